// The unit registry: one isolated mathjs instance, the hydrology units, text normalisation, cached parsing.
// Strings are parsed by mathjs's unit parser, never by its expression evaluator.
import mathjs from "mathjs/lib/browser/math.js";
import { DimensionalityError, UnitParseError } from "./errors.js";

const math = mathjs.create(mathjs.all);

/** US survey foot, the unit in which the US acre is defined (pint's acre, 1 acre·ft = 1233.48677 m³). */
const SURVEY_FOOT_M = 1200 / 3937;

type UnitDef = {
  name: string;
  definition?: string;
  base?: string;
  prefixes?: "short" | "long";
  aliases?: string[];
  override?: boolean;
};

/** Units added to mathjs's own. A `base` unit gets a dimension of its own that converts to nothing else. */
const UNIT_TABLE: UnitDef[] = [
  { name: "d", definition: "1 day" },
  { name: "ha", definition: "1 hectare" },
  { name: "acre", definition: `${43560 * SURVEY_FOOT_M * SURVEY_FOOT_M} m^2`, aliases: ["acres"], override: true },
  { name: "cfs", definition: "1 ft^3/s", prefixes: "short", aliases: ["cusec", "cusecs"] },
  { name: "cms", definition: "1 m^3/s", aliases: ["cumec", "cumecs"] },
  { name: "mgd", definition: "1e6 gal/day", aliases: ["MGD"] },
  { name: "impmgd", definition: "4.54609e6 L/day" },
  { name: "Mgal", definition: "1e6 gal" },
  { name: "gpm", definition: "1 gal/minute" },
  { name: "sfd", definition: "1 ft^3*day/s" },
  { name: "acreft", definition: "1 acre*ft", aliases: ["acrefoot", "acrefeet"] },
  { name: "mph", definition: "1 mi/hour" },
  { name: "percent", definition: "0.01" },
  { name: "deltadegC", definition: "1 K" },
  { name: "deltadegF", definition: `${5 / 9} K` },
  { name: "VA", base: "apparent_power", prefixes: "short", override: true },
  { name: "var", base: "reactive_power", prefixes: "short", override: true },
  { name: "NTU", base: "turbidity" },
  { name: "FNU", base: "turbidity_fnu" },
  { name: "pH", base: "acidity" },
];

/** Spellings accepted on input for units whose canonical names mathjs cannot hold (`_`, `%`, `°`). */
const WORD_ALIASES: Record<string, string> = {
  us_mgd: "mgd",
  imperial_mgd: "impmgd",
  delta_degC: "deltadegC",
  delta_degF: "deltadegF",
  pH_unit: "pH",
  "°C": "degC",
  "℃": "degC",
  "°F": "degF",
  "℉": "degF",
  "%": "percent",
};

/** How canonical strings spell the units above, so every answer can be sent back as input. */
const DISPLAY: Record<string, string> = { impmgd: "imperial_mgd", deltadegC: "delta_degC", deltadegF: "delta_degF" };

const ABSOLUTE_TEMPERATURE = new Set(["degC", "degF", "celsius", "fahrenheit"]);
const TEMPERATURE_DELTA = new Set(["deltadegC", "deltadegF"]);

const BASE_LABELS: Record<string, string> = {
  MASS: "mass",
  LENGTH: "length",
  TIME: "time",
  CURRENT: "current",
  TEMPERATURE: "temperature",
  LUMINOUS_INTENSITY: "luminosity",
  AMOUNT_OF_SUBSTANCE: "substance",
  ANGLE: "angle",
  BIT: "information",
};

for (const def of UNIT_TABLE) {
  const options = { override: def.override ?? false };
  if (def.base) {
    math.createUnit(def.name, { prefixes: def.prefixes ?? "none", aliases: def.aliases ?? [] }, options);
    BASE_LABELS[`${def.name}_STUFF`] = def.base;
  } else {
    const definition = String(def.definition);
    math.createUnit(def.name, { definition, prefixes: def.prefixes ?? "none", aliases: def.aliases ?? [] }, options);
  }
}

/** What a unit string means once parsed: SI value = (magnitude + offset) × factor. */
export type ParsedUnit = {
  /** The canonical spelling, accepted again as input (`m^3/s`, `cfs`, `delta_degC`). */
  canonical: string;
  /** Dimension in words, pint style: `[length]^3 [time]^-1`; `dimensionless` for none. */
  dimension: string;
  factor: number;
  offset: number;
  /** `absolute` for degC/degF (points on a scale), `delta` for temperature differences. */
  temperature: "absolute" | "delta" | null;
};

type Component = {
  power: number;
  prefix: { name: string; value: number };
  unit: { name: string; value: number; offset: number };
};

const MAX_UNIT_TEXT = 200;
const ALLOWED = /^[A-Za-z0-9µμ°℃℉%²³^*/()._\s-]*$/;

/** Rewrites a unit string into mathjs syntax: `**`→`^`, `m3`→`m^3`, `s-1`→`s^-1`, `acre-ft`→`acre*ft`, `°C`→`degC`. */
export function normaliseUnitText(text: string): string {
  let s = text.trim();
  for (const [from, to] of Object.entries(WORD_ALIASES)) {
    if (s.includes(from)) s = s.replace(new RegExp(`(?<![A-Za-z_])${escapeForRegExp(from)}(?![A-Za-z_])`, "g"), to);
  }
  return s
    .replace(/\*\*/g, "^")
    .replace(/²/g, "^2")
    .replace(/³/g, "^3")
    .replace(/[µμ]/g, "u")
    .replace(/([A-Za-z])-(?=[A-Za-z])/g, "$1*")
    .replace(/([A-Za-z])-(\d)/g, "$1^-$2")
    .replace(/([A-Za-z])(\d)/g, "$1^$2")
    .replace(/\s*\/\s*/g, "/")
    .replace(/\s*\^\s*/g, "^");
}

function escapeForRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A pure number: the unit of a ratio of like quantities, or of a plain scale factor. */
export const DIMENSIONLESS: ParsedUnit = {
  canonical: "",
  dimension: "dimensionless",
  factor: 1,
  offset: 0,
  temperature: null,
};

const cache = new Map<string, ParsedUnit>();
const refusals = new Map<string, string>();
const CACHE_LIMIT = 20_000;

/** Parses a unit string (cached); throws UnitParseError naming the text. */
export function parseUnit(text: string): ParsedUnit {
  if (text === "") return DIMENSIONLESS;
  const hit = cache.get(text);
  if (hit) return hit;
  // Refusals are cached too: the audit tries every word after a number, and most words are not units.
  const refused = refusals.get(text);
  if (refused !== undefined) throw new UnitParseError(refused);
  let parsed: ParsedUnit;
  try {
    parsed = parseUncached(text);
  } catch (e) {
    if (e instanceof UnitParseError && text.length <= MAX_UNIT_TEXT) {
      if (refusals.size >= CACHE_LIMIT) refusals.clear();
      refusals.set(text, e.message);
    }
    throw e;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, parsed);
  return parsed;
}

function parseUncached(text: string): ParsedUnit {
  if (typeof text !== "string" || text.length > MAX_UNIT_TEXT) {
    throw new UnitParseError(
      `cannot parse unit of ${String(text).length} characters; a unit is at most ${MAX_UNIT_TEXT} characters, such as "m^3/s" or "cfs"`,
    );
  }
  const normal = normaliseUnitText(text);
  if (normal === "") throw new UnitParseError(`the unit is empty; send a unit such as "m^3/s", "ft" or "cfs"`);
  if (!ALLOWED.test(text) || /\d/.test(normal.replace(/\^-?\d+(\.\d+)?/g, ""))) {
    throw new UnitParseError(
      `cannot parse unit '${text}': only unit names, exponents, '*' and '/' are allowed, such as "m^3/s" or "ft"`,
    );
  }
  let unit: import("mathjs").Unit;
  try {
    unit = math.unit(normal);
  } catch (e) {
    throw new UnitParseError(
      `cannot parse unit '${text}': ${(e as Error).message.replace(/\.$/, "")}; send a unit such as "m^3/s", "ft", "cfs" or "km^2"`,
    );
  }
  if (unit.value !== null && unit.value !== undefined) {
    throw new UnitParseError(`cannot parse unit '${text}': it carries a number; send the unit alone, such as "cfs"`);
  }
  const components = unit.units as unknown as Component[];
  let factor = 1;
  for (const c of components) factor *= (c.prefix.value * c.unit.value) ** c.power;
  const only = components.length === 1 && components[0]!.power === 1 ? components[0]! : null;
  const offset = only ? only.unit.offset : 0;
  if (
    !Number.isFinite(factor) ||
    factor === 0 ||
    components.some((c) => !Number.isFinite(c.power) || Math.abs(c.power) > 12)
  ) {
    throw new UnitParseError(`cannot parse unit '${text}': its scale is not a finite number`);
  }
  if (!only && components.some((c) => ABSOLUTE_TEMPERATURE.has(c.unit.name))) {
    throw new UnitParseError(
      `cannot parse unit '${text}': a degree-scale temperature cannot be part of a compound unit; use delta_degC or K`,
    );
  }
  const temperature =
    only && ABSOLUTE_TEMPERATURE.has(only.unit.name)
      ? "absolute"
      : components.some((c) => TEMPERATURE_DELTA.has(c.unit.name))
        ? "delta"
        : null;
  return { canonical: canonicalOf(components), dimension: dimensionOf(unit.dimensions), factor, offset, temperature };
}

function canonicalOf(components: Component[]): string {
  const name = (c: Component) => c.prefix.name + (DISPLAY[c.unit.name] ?? c.unit.name);
  const pow = (c: Component, p: number) => (p === 1 ? name(c) : `${name(c)}^${p}`);
  const num = components.filter((c) => c.power > 0).map((c) => pow(c, c.power));
  const den = components.filter((c) => c.power < 0).map((c) => pow(c, -c.power));
  if (num.length === 0 && den.length === 0) return "";
  // "1/s" would not parse again (a unit carries no number), so a unit with no numerator is written with negative powers.
  if (num.length === 0) return components.map((c) => pow(c, c.power)).join("*");
  return num.join("*") + den.map((d) => `/${d}`).join("");
}

function dimensionOf(dimensions: number[]): string {
  const names = math.Unit.BASE_DIMENSIONS;
  const parts: string[] = [];
  dimensions.forEach((p, i) => {
    if (p === 0) return;
    const label = BASE_LABELS[names[i] ?? ""] ?? (names[i] ?? `d${i}`).toLowerCase();
    parts.push(p === 1 ? `[${label}]` : `[${label}]^${p}`);
  });
  return parts.length ? parts.join(" ") : "dimensionless";
}

/** The dimension as stored and matched: points on a degree scale are kept apart from kelvin and intervals. */
export function dimensionKey(unit: string): string {
  const p = parseUnit(unit);
  return p.temperature === "absolute" ? `${p.dimension} absolute` : p.dimension;
}

/** True when both units measure the same physical dimension (absolute temperature and intervals differ). */
export function sameDimension(a: string, b: string): boolean {
  const pa = parseUnit(a);
  const pb = parseUnit(b);
  return pa.dimension === pb.dimension && compatibleTemperature(pa, pb);
}

function compatibleTemperature(a: ParsedUnit, b: ParsedUnit): boolean {
  // A point on a degree scale and an interval are different things; kelvin serves as either.
  if (a.temperature === "absolute" && b.temperature === "delta") return false;
  if (a.temperature === "delta" && b.temperature === "absolute") return false;
  return true;
}

/** Converts a magnitude between units, or answers null when either unit is unreadable or no conversion exists. */
export function tryConvert(value: number, from: string, to: string): number | null {
  if (from === to) return value;
  let a: ParsedUnit;
  let b: ParsedUnit;
  try {
    a = parseUnit(from);
    b = parseUnit(to);
  } catch {
    return null;
  }
  // Checked before converting: the provenance scans try many pairs, and an exception per miss is costly.
  if (a.dimension !== b.dimension || !compatibleTemperature(a, b)) return null;
  return scale(value, a, b);
}

function scale(value: number, a: ParsedUnit, b: ParsedUnit): number {
  if (a.offset === 0 && b.offset === 0) return (value * a.factor) / b.factor;
  return ((value + a.offset) * a.factor) / b.factor - b.offset;
}

/** Converts a magnitude between units; throws DimensionalityError when no conversion exists. */
export function convertMagnitude(value: number, from: string, to: string): number {
  if (from === to) return value;
  const a = parseUnit(from);
  const b = parseUnit(to);
  if (a.dimension !== b.dimension || !compatibleTemperature(a, b)) {
    throw new DimensionalityError(
      `cannot express ${formatMagnitude(value)} ${a.canonical} as ${b.canonical}: ${a.canonical} is ` +
        `${describe(a)} and ${b.canonical} is ${describe(b)}, and no conversion exists`,
      { context: { from: a.canonical, to: b.canonical } },
    );
  }
  return scale(value, a, b);
}

/** The magnitude in SI base units; null for a point on a degree scale (no SI magnitude is comparable across scales without offsets). */
export function toSI(value: number, unit: string): number {
  const p = parseUnit(unit);
  return (value + p.offset) * p.factor;
}

/** Describes a unit's dimension for a message: "[length]^3 [time]^-1", or "a temperature on a degree scale". */
export function describe(p: ParsedUnit): string {
  if (p.temperature === "absolute") return "a temperature on a degree scale";
  if (p.temperature === "delta") return "a temperature difference";
  return p.dimension;
}

/** The canonical spelling of a unit string. */
export function canonicalUnit(text: string): string {
  return parseUnit(text).canonical;
}

/** One factor of a unit as written: prefix, unit name and power (`km^2` is k, m, 2). */
export type UnitFactor = { prefix: string; name: string; power: number };

/** The factors of a unit string, in the order written; throws UnitParseError as parseUnit does. */
export function unitFactors(text: string): UnitFactor[] {
  const canonical = parseUnit(text).canonical;
  if (canonical === "") return [];
  const components = math.unit(normaliseUnitText(canonical)).units as unknown as Component[];
  return components.map((c) => ({ prefix: c.prefix.name, name: c.unit.name, power: c.power }));
}

/** Product or quotient of two units, as a canonical string that parses again. */
export function combineUnits(a: string, b: string, op: "mul" | "div"): string {
  const ua = math.unit(normaliseUnitText(parseUnit(a).canonical || "1"));
  const ub = math.unit(normaliseUnitText(parseUnit(b).canonical || "1"));
  const out = op === "mul" ? ua.multiply(ub) : ua.divide(ub);
  if (typeof out === "number") return "";
  const components = out.units as unknown as Component[];
  if (out.dimensions.every((d) => d === 0)) return "";
  return canonicalOf(components);
}

/** `%g`-style formatting used in messages: 35.3961, 2.91583e+06. */
export function formatMagnitude(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return "0";
  // Like %g, the exponent is that of the value rounded to six figures (999999.7 is 1e+06, not 1000000).
  const exp = Number(value.toExponential(5).split("e")[1]);
  if (exp < -4 || exp >= 6) {
    const [m, e] = value.toExponential(5).split("e");
    return `${String(Number(m))}e${Number(e) < 0 ? "-" : "+"}${String(Math.abs(Number(e))).padStart(2, "0")}`;
  }
  return String(Number(value.toPrecision(6)));
}

// Quantity: a magnitude or series with its unit, vertical datum, CRS and quality, and the algebra that keeps them honest.
import { DateTime } from "luxon";
import { CRSMismatch, DatumMismatch, DimensionalityError, TimezoneError, UnitParseError } from "./errors.js";
import { isNaive } from "./time.js";
import type { DatumRegistry } from "./datums.js";
import { type Grade, type QualityTable, DEFAULT_QUALITY, weakest } from "./quality.js";
import {
  type ParsedUnit,
  canonicalUnit,
  combineUnits,
  convertMagnitude,
  describe,
  formatMagnitude,
  parseUnit,
  toSI,
} from "./units.js";

/** A magnitude, or a series in which null marks a gap. */
export type Magnitude = number | (number | null)[];

/** The JSON form: every key but value and unit appears only when set, and the form can be sent back as it is. */
export type QuantityJSON = {
  value: Magnitude;
  unit: string;
  datum?: string;
  crs?: string;
  quality?: Grade;
  source?: string;
  /** ISO 8601 with an offset: the time the value describes (a reading's observation time). */
  observed_at?: string;
  /** The publisher's qualifiers as our quality flags (`ice`, `backwater`); `[]` says it stated none. */
  flags?: string[];
};

/** Metadata a quantity carries besides its magnitude and unit. */
export type QuantityMeta = {
  datum?: string | null;
  crs?: string | null;
  quality?: Grade | null;
  source?: string | null;
  observedAt?: string | null;
  /** Null: the publisher said nothing of qualifiers; `[]`: it said there are none. */
  flags?: readonly string[] | null;
};

type Op = "add" | "subtract" | "multiply" | "divide" | "compare";

const NUMBER_THEN_UNIT =
  /^([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?)\s*(.*)$/s;

/** A physical quantity. Immutable: every operation answers a new one. */
export class Quantity {
  readonly value: Magnitude;
  readonly unit: string;
  readonly datum: string | null;
  readonly crs: string | null;
  readonly quality: Grade | null;
  readonly source: string | null;
  readonly observedAt: string | null;
  readonly flags: readonly string[] | null;

  constructor(value: Magnitude, unit: string, meta: QuantityMeta = {}) {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new UnitParseError(
        `${value} is not a finite magnitude; a missing value should be omitted rather than carried as NaN or infinity`,
      );
    }
    if (Array.isArray(value) && value.some((v) => v !== null && !Number.isFinite(v))) {
      throw new UnitParseError("a series may hold numbers and null for gaps, not NaN or infinity");
    }
    this.value = value;
    this.unit = canonicalUnit(unit);
    this.datum = meta.datum ?? null;
    this.crs = meta.crs ?? null;
    this.quality = meta.quality ?? null;
    this.source = meta.source ?? null;
    this.observedAt = meta.observedAt ?? null;
    this.flags = meta.flags ?? null;
  }

  /** Reads "1250 cfs", "1,250 cfs", "1.25e3 cfs", "12.4ft"; a string without a unit is refused, and nothing is evaluated. */
  static parse(text: string, meta: QuantityMeta = {}): Quantity {
    if (text.length > 256)
      throw new UnitParseError(
        `cannot parse a quantity of ${text.length} characters; send a number and a unit such as "1250 cfs"`,
      );
    const m = NUMBER_THEN_UNIT.exec(text.trim());
    if (!m)
      throw new UnitParseError(
        `cannot parse quantity '${text}': expected a number followed by a unit, such as "1250 cfs"`,
      );
    const value = Number(m[1]!.replace(/,/g, ""));
    const unitText = m[2]!.trim();
    if (unitText === "")
      throw new UnitParseError(`'${text}' carries no unit; send it with its unit, such as "${text.trim()} cfs"`);
    if (!Number.isFinite(value)) {
      throw new UnitParseError(
        `'${text}' is not a finite magnitude; a missing value should be omitted rather than carried as NaN or infinity`,
      );
    }
    try {
      parseUnit(unitText);
    } catch (e) {
      throw new UnitParseError(`cannot parse quantity '${text}': ${(e as Error).message}`);
    }
    return new Quantity(value, unitText, meta);
  }

  /** True when the magnitude is a series. */
  get isSeries(): boolean {
    return Array.isArray(this.value);
  }

  /** The scalar magnitude; throws for a series. */
  get scalar(): number {
    if (typeof this.value !== "number") throw new UnitParseError("expected a single value, received a series");
    return this.value;
  }

  /** The dimension in words (`[length]^3 [time]^-1`). */
  get dimension(): string {
    return parseUnit(this.unit).dimension;
  }

  private with(value: Magnitude, unit: string, meta: QuantityMeta): Quantity {
    return new Quantity(value, unit, {
      datum: this.datum,
      crs: this.crs,
      quality: this.quality,
      source: this.source,
      observedAt: this.observedAt,
      flags: this.flags,
      ...meta,
    });
  }

  /** Converts into another unit, keeping datum, CRS, quality and source. */
  to(unit: string): Quantity {
    const target = canonicalUnit(unit);
    if (target === this.unit) return this;
    try {
      return this.with(
        mapMagnitude(this.value, (v) => convertMagnitude(v, this.unit, target)),
        target,
        {},
      );
    } catch (e) {
      if (e instanceof DimensionalityError) {
        throw new DimensionalityError(
          `cannot express ${this.display()} as ${target}: ${this.unit} is ${describe(parseUnit(this.unit))} ` +
            `and ${target} is ${describe(parseUnit(target))}; these are different physical quantities`,
          { context: e.context },
        );
      }
      throw e;
    }
  }

  /** Shifts an elevation onto another datum along a registered offset, in its own unit. */
  toDatum(target: string, datums: DatumRegistry): Quantity {
    if (!this.datum) {
      throw new DatumMismatch(
        `${this.display()} carries no datum, so it cannot be shifted to '${target}', since only absolute elevations have a vertical reference`,
      );
    }
    if (this.datum === target) return this;
    const metres = datums.offsetMetres(this.datum, target);
    const shift = convertMagnitude(metres, "m", this.unit);
    return this.with(
      mapMagnitude(this.value, (v) => v + shift),
      this.unit,
      { datum: target },
    );
  }

  /** Magnitude in SI base units (scalar only). */
  si(): number {
    return toSI(this.scalar, this.unit);
  }

  /** Sum: an elevation plus a delta stays on its datum; two elevations never add. */
  add(other: Quantity): Quantity {
    const crs = checkCrs(this, other, "add");
    if (this.datum && other.datum) {
      throw new DatumMismatch(
        `cannot add two absolute elevations (${this.datum} and ${other.datum}), since their sum has no ` +
          `physical meaning; difference them, or add a delta (a value with no datum)`,
        { context: { left_datum: this.datum, right_datum: other.datum } },
      );
    }
    const left = parseUnit(this.unit);
    const right = parseUnit(other.unit);
    if (left.temperature === "absolute" && right.temperature === "absolute") {
      throw new DimensionalityError(
        `cannot add ${this.display()} to ${other.display()}: a temperature on a degree scale is a point on ` +
          `that scale, not an amount of temperature; difference them, or add a delta_degC interval, or ` +
          `convert to kelvin`,
      );
    }
    const rhs =
      left.temperature === "absolute" && isInterval(right)
        ? inDegreesOf(other.value, right, left)
        : other.convertedFor(this, "add");
    return new Quantity(
      zip(this.value, rhs, (a, b) => a + b),
      this.unit,
      {
        datum: this.datum ?? other.datum,
        crs,
        quality: weakest(this.quality, other.quality),
      },
    );
  }

  /** Difference: same datum gives a delta; elevation minus delta stays on the datum; delta minus elevation is refused. */
  sub(other: Quantity): Quantity {
    const crs = checkCrs(this, other, "subtract");
    let datum: string | null = null;
    if (this.datum && other.datum && this.datum !== other.datum) {
      throw new DatumMismatch(
        `cannot difference an elevation on ${this.datum} against one on ${other.datum}, since both are in ` +
          `compatible units but measured from different references; convert one to the other's datum along a ` +
          `registered offset first`,
        { context: { left_datum: this.datum, right_datum: other.datum } },
      );
    }
    if (!this.datum && other.datum) {
      throw new DatumMismatch(
        `cannot subtract an elevation on ${other.datum} from a value carrying no datum, since the result is ` +
          `neither an elevation nor a delta; subtract the delta from the elevation instead`,
        { context: { right_datum: other.datum } },
      );
    }
    if (this.datum && !other.datum) datum = this.datum;
    const left = parseUnit(this.unit);
    const right = parseUnit(other.unit);
    const meta = { datum, crs, quality: weakest(this.quality, other.quality) };
    if (left.temperature === "absolute" && isInterval(right)) {
      // A point on a degree scale moved by an interval stays a point on that scale.
      return new Quantity(
        zip(this.value, inDegreesOf(other.value, right, left), (a, b) => a - b),
        this.unit,
        meta,
      );
    }
    const rhs = other.convertedFor(this, "subtract");
    const value = zip(this.value, rhs, (a, b) => a - b);
    if (left.temperature === "absolute" && right.temperature === "absolute") {
      // Two points on a degree scale differ by an interval, in that scale's degrees.
      return new Quantity(
        value,
        this.unit === "degF" || this.unit === "fahrenheit" ? "delta_degF" : "delta_degC",
        meta,
      );
    }
    return new Quantity(value, this.unit, meta);
  }

  /** Product; any scaling of an elevation or a degree-scale temperature is refused. */
  mul(other: Quantity | number): Quantity {
    return this.scale(other, "multiply");
  }

  /** Quotient; any scaling of an elevation or a degree-scale temperature is refused. */
  div(other: Quantity | number): Quantity {
    return this.scale(other, "divide");
  }

  private scale(other: Quantity | number, op: "multiply" | "divide"): Quantity {
    const o = typeof other === "number" ? new Quantity(other, "") : other;
    const crs = checkCrs(this, o, op);
    for (const q of [this, o]) {
      if (q.datum) {
        throw new DatumMismatch(
          `cannot ${op} a value measured from a vertical datum (${q.display()}), since a multiple of an ` +
            `absolute elevation has no physical meaning; difference it against an elevation on the same ` +
            `datum first`,
          { context: { datum: q.datum } },
        );
      }
      if (parseUnit(q.unit).temperature === "absolute") {
        throw new DimensionalityError(
          `cannot ${op} ${q.display()}: a temperature on a degree scale is a point on that scale, not an ` +
            `amount of temperature; convert it to kelvin or difference two readings first`,
        );
      }
    }
    const unit = combineUnits(this.unit, o.unit, op === "multiply" ? "mul" : "div");
    // Compute through SI so unit simplification (m^3/s ÷ m^3/s) cannot mis-scale the magnitude.
    const fa = parseUnit(this.unit).factor;
    const fb = parseUnit(o.unit).factor;
    const fr = parseUnit(unit || "").factor;
    const value = zip(
      this.value,
      o.value,
      (a, b) => (op === "multiply" ? a * fa * (b * fb) : (a * fa) / (b * fb)) / fr,
    );
    const quality = typeof other === "number" ? this.quality : weakest(this.quality, o.quality);
    return new Quantity(value, unit, { crs, quality });
  }

  /** Ordering comparison: datums must match, the right side is converted into the left's unit. */
  compare(other: Quantity): number {
    checkCrs(this, other, "compare");
    if (this.datum !== other.datum) {
      throw new DatumMismatch(
        `cannot compare a value on ${this.datum ?? "no datum"} against one on ${other.datum ?? "no datum"}, ` +
          `since the comparison is only meaningful on a shared reference`,
        { context: { left_datum: this.datum, right_datum: other.datum } },
      );
    }
    const rhs = other.convertedFor(this, "compare");
    if (typeof this.value !== "number" || typeof rhs !== "number")
      throw new DimensionalityError("cannot order series; compare single values");
    return this.value - rhs;
  }

  /** Physical equality: a datum mismatch is refused; different dimensions are simply unequal. */
  equals(other: Quantity): boolean {
    checkCrs(this, other, "compare");
    if (this.datum !== other.datum) {
      throw new DatumMismatch(
        `cannot compare a value on ${this.datum ?? "no datum"} against one on ${other.datum ?? "no datum"}, ` +
          `since the comparison is only meaningful on a shared reference`,
      );
    }
    let rhs: Magnitude;
    try {
      rhs = other.to(this.unit).value;
    } catch {
      return false;
    }
    if (typeof this.value === "number" || typeof rhs === "number") return this.value === rhs;
    const a = this.value;
    return a.length === rhs.length && a.every((v, i) => v === rhs[i]);
  }

  private convertedFor(left: Quantity, op: Op): Magnitude {
    try {
      return this.to(left.unit).value;
    } catch (e) {
      if (!(e instanceof DimensionalityError)) throw e;
      const verb = { add: "add", subtract: "subtract", multiply: "multiply", divide: "divide", compare: "compare" }[op];
      const phrase =
        op === "subtract"
          ? `subtract ${this.display()} from ${left.display()}`
          : op === "add"
            ? `add ${left.display()} to ${this.display()}`
            : `${verb} ${left.display()} with ${this.display()}`;
      throw new DimensionalityError(
        `cannot ${phrase}: ${left.unit} is ${describe(parseUnit(left.unit))} and ${this.unit} is ${describe(parseUnit(this.unit))}`,
        { context: e.context },
      );
    }
  }

  /** The JSON form, keys present only when set. */
  toJSON(): QuantityJSON {
    const out: QuantityJSON = { value: Array.isArray(this.value) ? [...this.value] : this.value, unit: this.unit };
    if (this.datum) out.datum = this.datum;
    if (this.crs) out.crs = this.crs;
    if (this.quality) out.quality = this.quality;
    if (this.source) out.source = this.source;
    if (this.observedAt) out.observed_at = this.observedAt;
    if (this.flags) out.flags = [...this.flags];
    return out;
  }

  /** Display form for messages: "1250 cfs (provisional)", "[4 values, 980 to 1640] cfs". */
  display(): string {
    const meta = [this.datum, this.quality].filter(Boolean);
    const suffix = meta.length ? ` (${meta.join(", ")})` : "";
    if (typeof this.value === "number") return `${formatMagnitude(this.value)} ${this.unit}`.trim() + suffix;
    const present = this.value.filter((v): v is number => v !== null);
    const gaps = this.value.length - present.length;
    const body =
      present.length === 0
        ? `${this.value.length} values, all missing`
        : `${this.value.length} values, ${formatMagnitude(Math.min(...present))} to ${formatMagnitude(Math.max(...present))}${gaps ? `, ${gaps} missing` : ""}`;
    return `[${body}] ${this.unit}`.trim() + suffix;
  }

  /** Reads the JSON form; unknown keys are refused so a misspelt "datum " never passes silently. */
  static fromJSON(json: unknown, opts: { datums?: DatumRegistry; quality?: QualityTable } = {}): Quantity {
    if (typeof json !== "object" || json === null || Array.isArray(json))
      throw new UnitParseError('a quantity is an object {"value": ..., "unit": ...}');
    const o = json as Record<string, unknown>;
    const unknown = Object.keys(o).filter((k) => !QUANTITY_KEYS.includes(k));
    if (unknown.length) {
      throw new UnitParseError(
        `a quantity takes only value, unit, datum, crs, quality, source, observed_at and flags; remove ${unknown.map((k) => `'${k}'`).join(", ")}`,
      );
    }
    if (!("value" in o))
      throw new UnitParseError(`quantity object needs a 'value' key, received keys [${Object.keys(o).join(", ")}]`);
    if (typeof o.unit !== "string") throw new UnitParseError(`quantity object needs a 'unit' string, such as "cfs"`);
    return new Quantity(readMagnitude(o.value), o.unit, readMeta(o, opts));
  }
}

/** The keys of a quantity's JSON form. */
export const QUANTITY_KEYS: readonly string[] = [
  "value",
  "unit",
  "datum",
  "crs",
  "quality",
  "source",
  "observed_at",
  "flags",
];

/** Reads a JSON magnitude: a finite number, or an array of finite numbers and nulls. */
export function readMagnitude(v: unknown): Magnitude {
  if (typeof v === "number") return v;
  if (Array.isArray(v) && v.every((x) => x === null || typeof x === "number")) return v as (number | null)[];
  throw new UnitParseError(
    `a quantity's value must be a number or an array of numbers (null marks a gap), received ${JSON.stringify(v) ?? String(v)}`,
  );
}

/** One optional string field of an object form (a module function: a closure here would be named on every read). */
function metaString(o: Record<string, unknown>, k: string): string | null {
  const v = o[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string")
    throw new UnitParseError(`a quantity's '${k}' must be a string, received ${JSON.stringify(v)}`);
  return v;
}

/** Reads and checks datum, crs, quality and source of an object form. */
export function readMeta(
  o: Record<string, unknown>,
  opts: { datums?: DatumRegistry; quality?: QualityTable } = {},
): QuantityMeta {
  const datum = metaString(o, "datum");
  if (datum && opts.datums) opts.datums.get(datum);
  return {
    datum,
    crs: metaString(o, "crs"),
    quality: (opts.quality ?? DEFAULT_QUALITY).normalise(metaString(o, "quality")),
    source: metaString(o, "source"),
    observedAt: observedAt(metaString(o, "observed_at")),
    flags: metaFlags(o.flags),
  };
}

/** A quantity's `flags`: absent or null as unknown, else an array of short non-empty strings. */
function metaFlags(v: unknown): string[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length > 32 || !v.every((f) => typeof f === "string" && f.trim() !== "" && f.length <= 64))
    throw new UnitParseError(
      `a quantity's 'flags' must be an array of up to 32 qualifier names such as ["ice"], received ${JSON.stringify(v)}`,
    );
  return v as string[];
}

/** An observation time as sent, checked: ISO 8601 with an explicit offset (the publisher's own offset is kept). */
function observedAt(text: string | null): string | null {
  if (text === null) return null;
  if (!DateTime.fromISO(text, { setZone: true }).isValid || isNaive(text)) {
    throw new TimezoneError(
      `a quantity's 'observed_at' must be ISO 8601 with an offset, such as '2026-03-14T10:15:00-05:00'; received '${text}'`,
    );
  }
  return text;
}

function checkCrs(a: Quantity, b: Quantity, op: Op): string | null {
  if (a.crs && b.crs && a.crs !== b.crs) {
    throw new CRSMismatch(
      `cannot ${op} values in different coordinate reference systems (${a.crs} and ${b.crs}), reproject first`,
      {
        context: { left_crs: a.crs, right_crs: b.crs },
      },
    );
  }
  return a.crs ?? b.crs;
}

/** A temperature interval alone (delta_degC, delta_degF), not a rate of one. */
function isInterval(p: ParsedUnit): boolean {
  return p.temperature === "delta" && p.dimension === "[temperature]";
}

/** An interval's magnitude in the degrees of a degree scale (5 delta_degC is 9 degrees on degF). */
function inDegreesOf(value: Magnitude, interval: ParsedUnit, scale: ParsedUnit): Magnitude {
  return mapMagnitude(value, (v) => (v * interval.factor) / scale.factor);
}

function mapMagnitude(v: Magnitude, f: (x: number) => number): Magnitude {
  return typeof v === "number" ? f(v) : v.map((x) => (x === null ? null : f(x)));
}

function zip(a: Magnitude, b: Magnitude, f: (x: number, y: number) => number): Magnitude {
  if (typeof a === "number" && typeof b === "number") return f(a, b);
  if (typeof a === "number") return (b as (number | null)[]).map((y) => (y === null ? null : f(a, y)));
  if (typeof b === "number") return a.map((x) => (x === null ? null : f(x, b)));
  if (a.length !== b.length)
    throw new DimensionalityError(
      `cannot combine series of ${a.length} and ${b.length} values; they must be the same length`,
    );
  return a.map((x, i) => (x === null || b[i] === null ? null : f(x, b[i] as number)));
}

// The OGC API's fields as our values, as data: value strings read exactly, units, approval status and qualifiers,
// and the site's time zone. Nothing here guesses: an unknown unit or time zone is refused with its text.
import { UnitParseError } from "../../quantity/errors.js";
import { type Grade, weakest } from "../../quantity/quality.js";
import { canonicalUnit } from "../../quantity/units.js";

/** `unit_of_measure` → our unit; exact text only (USGS writes `ft^3/s`, `ft`, `in`, `degC`, `uS/cm`, `lbs/day` ...). */
export const OGC_UNITS: Readonly<Record<string, string>> = {
  "ft^3/s": "ft^3/s",
  "ft3/s": "ft^3/s",
  cfs: "ft^3/s",
  ft: "ft",
  in: "inch",
  degC: "degC",
  degF: "degF",
  "deg C": "degC",
  "deg F": "degF",
  "uS/cm": "uS/cm",
  "uS/cm @25C": "uS/cm",
  "mg/l": "mg/L",
  "mg/L": "mg/L",
  "ug/l": "ug/L",
  "ug/L": "ug/L",
  "lbs/day": "lb/day",
  "tons/day": "ton/day",
  "ft/s": "ft/s",
  "ft/sec": "ft/s",
  "m^3/s": "m^3/s",
  m: "m",
  mm: "mm",
  "%": "percent",
  "ac-ft": "acre*ft",
  mgd: "mgd",
  mph: "mph",
  "in/hr": "inch/hour",
  NTU: "NTU",
  FNU: "FNU",
  "std units": "pH_unit",
  "mi^2": "mi^2",
};

/** Our unit for a `unit_of_measure`; UnitParseError quoting the text when it is not in the table. */
export function ogcUnit(text: unknown): string {
  const hit = typeof text === "string" ? OGC_UNITS[text] : undefined;
  if (hit !== undefined) return canonicalUnit(hit);
  throw new UnitParseError(
    `USGS unit_of_measure ${JSON.stringify(text ?? null)} is not one this service maps to a unit, so the value is not read ` +
      "rather than guessed; add it to OGC_UNITS with the unit it stands for",
    { context: { unit_of_measure: text ?? null } },
  );
}

const DECIMAL = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/;

/** Digits and exponent of a decimal, normalised (no leading or trailing zeros), so two spellings compare equal. */
function normalised(text: string): string | null {
  const m = DECIMAL.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const digits = `${m[2]}${m[3] ?? ""}`;
  const exp = Number(m[4] ?? 0) - (m[3] ?? "").length;
  const lead = digits.search(/[1-9]/);
  if (lead < 0) return "0";
  const trimmed = digits.slice(lead).replace(/0+$/, "");
  const shift = digits.slice(lead).length - trimmed.length;
  return `${m[1] === "-" ? "-" : ""}${trimmed}e${exp + shift}`;
}

/**
 * A `value` string as a number, only when the number holds exactly the digits written ("94.0" is 94, "1.31" is 1.31);
 * null when it is not a decimal, or when it has more significant digits than a stored number keeps (then it is not
 * read rather than rounded).
 */
export function exactNumber(text: string): number | null {
  const t = text.trim();
  const want = normalised(t);
  if (want === null) return null;
  const n = Number(t);
  if (!Number.isFinite(n)) return null;
  return normalised(String(n)) === want ? n : null;
}

/** What a reading's review status is, in the answers: never `approved` unless USGS said Approved. */
export type OgcQuality = "approved" | "provisional" | "estimated" | "unknown";

/** Qualifier spellings → our quality flags (lower case); an unknown qualifier is kept as its own lower-cased text. */
export const QUALIFIER_FLAGS: Readonly<Record<string, string>> = {
  e: "estimated",
  estimated: "estimated",
  ice: "ice",
  bkw: "backwater",
  backwater: "backwater",
  eqp: "equipment",
  equipment: "equipment",
  fld: "flood_damage",
  dis: "discontinued",
  mnt: "maintenance",
  "***": "unavailable",
  rat: "rating",
  ssn: "seasonal",
  dry: "dry",
  zfl: "zero_flow",
  p: "provisional",
  a: "approved",
};

/** The grade a flag weakens a reading to, when it says something about the value. */
const FLAG_GRADES: Readonly<Record<string, Grade>> = {
  estimated: "estimated",
  ice: "unverified",
  backwater: "unverified",
  equipment: "unverified",
  flood_damage: "unverified",
  discontinued: "unverified",
  maintenance: "unverified",
  unavailable: "unverified",
  rating: "estimated",
  seasonal: "estimated",
  dry: "estimated",
  zero_flow: "estimated",
};

/** A `qualifier` given as a string (one code, or several separated by commas), an array of strings, or null. */
export function qualifiersOf(v: unknown): string[] {
  const parts = Array.isArray(v)
    ? v.filter((x): x is string => typeof x === "string")
    : typeof v === "string"
      ? [v]
      : [];
  return parts
    .flatMap((p) => p.split(","))
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** Our flags for a reading's qualifiers, in their order, each once. */
export function flagsOf(qualifiers: readonly string[]): string[] {
  return [...new Set(qualifiers.map((q) => QUALIFIER_FLAGS[q.toLowerCase()] ?? q.toLowerCase()))];
}

/** The answer's quality: estimated when a qualifier says so, else the approval status; null or unknown text is unknown. */
export function qualityOf(approval: unknown, flags: readonly string[]): OgcQuality {
  if (flags.includes("estimated")) return "estimated";
  if (approval === "Approved") return "approved";
  if (approval === "Provisional") return "provisional";
  return "unknown";
}

/** The grade stored on the quantity: the review status weakened by any flag that weakens it (unknown is unverified). */
export function gradeOf(quality: OgcQuality, flags: readonly string[]): Grade {
  const base: Grade = quality === "unknown" ? "unverified" : quality;
  return weakest(base, ...flags.map((f) => FLAG_GRADES[f] ?? null).filter((g): g is Grade => g !== null)) ?? base;
}

/** (time_zone_abbreviation, uses_daylight_savings) → an IANA zone; standard-time-only sites get a fixed Etc zone. */
const ZONES: Readonly<Record<string, string>> = {
  "EST:Y": "America/New_York",
  "EST:N": "Etc/GMT+5",
  "CST:Y": "America/Chicago",
  "CST:N": "Etc/GMT+6",
  "MST:Y": "America/Denver",
  "MST:N": "America/Phoenix",
  "PST:Y": "America/Los_Angeles",
  "PST:N": "Etc/GMT+8",
  "AKST:Y": "America/Anchorage",
  "AKST:N": "Etc/GMT+9",
  "HST:N": "Pacific/Honolulu",
  "HST:Y": "Pacific/Honolulu",
  "AST:N": "America/Puerto_Rico",
  "AST:Y": "America/Halifax",
  "UTC:N": "UTC",
  "GMT:N": "UTC",
  "ChST:N": "Pacific/Guam",
  "SST:N": "Pacific/Pago_Pago",
};

/** The IANA zone of a site, or null when USGS names one this table does not hold. */
export function ianaZone(abbreviation: unknown, dst: unknown): string | null {
  if (typeof abbreviation !== "string") return null;
  return ZONES[`${abbreviation.trim()}:${dst === "Y" ? "Y" : "N"}`] ?? null;
}

/** Names of the common parameters, for answers; others are named by their code. */
export const PARAMETER_NAMES: Readonly<Record<string, string>> = {
  "00060": "Discharge",
  "00065": "Gage height",
  "00010": "Temperature, water",
  "00045": "Precipitation",
  "00095": "Specific conductance",
  "00300": "Dissolved oxygen",
  "00400": "pH",
  "63680": "Turbidity",
  "72019": "Depth to water level",
};

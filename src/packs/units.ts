// Publisher unit spellings as data: USGS unit codes and Environment Agency unit names, each mapped to one of our units.
import { UnitParseError } from "../quantity/errors.js";
import { canonicalUnit } from "../quantity/units.js";

/** USGS `variable.unit.unitCode` → our unit. Looked up exactly, then case-insensitively. */
export const USGS_UNIT_CODES: Readonly<Record<string, string>> = {
  "ft3/s": "ft^3/s",
  ft: "ft",
  in: "inch",
  "deg C": "degC",
  "deg F": "degF",
  "mg/l": "mg/L",
  "uS/cm @25C": "uS/cm",
  "ft3/s/mi2": "ft^3/s/mi^2",
  mi2: "mi^2",
  "m3/s": "m^3/s",
  m: "m",
  mm: "mm",
  "ft/sec": "ft/s",
  "ft/s": "ft/s",
  "ac-ft": "acre*ft",
  mgd: "mgd",
  "ug/l": "ug/L",
  "in/hr": "inch/hour",
  mph: "mph",
  // USGS sediment loads are short tons, which is mathjs's `ton`.
  "tons/day": "ton/day",
  "%": "percent",
  "std units": "pH_unit",
  NTU: "NTU",
  FNU: "FNU",
};

/** Where an Environment Agency level is measured from: the station's own zero, a named datum, or no datum at all. */
export type EaSurface =
  | { unit: string; surface: "station" }
  | { unit: string; surface: "datum"; datum: string }
  | { unit: string; surface: null };

/** Environment Agency `unitName` → our unit and reference surface. Exact match only: the names are case-significant (`mASD`, `mAOD`). */
export const EA_UNIT_NAMES: Readonly<Record<string, EaSurface>> = {
  mASD: { unit: "m", surface: "station" },
  mAOD: { unit: "m", surface: "datum", datum: "ODN" },
  m: { unit: "m", surface: null },
  mm: { unit: "mm", surface: null },
  "m3/s": { unit: "m^3/s", surface: null },
  "l/s": { unit: "L/s", surface: null },
  "Ml/d": { unit: "megaliter/day", surface: null },
  "mm/hr": { unit: "mm/hour", surface: null },
  "m/s": { unit: "m/s", surface: null },
  C: { unit: "degC", surface: null },
  deg: { unit: "deg", surface: null },
  "%": { unit: "percent", surface: null },
  hPa: { unit: "hPa", surface: null },
  "ug/l": { unit: "ug/L", surface: null },
  V: { unit: "V", surface: null },
  "---": { unit: "", surface: null },
};

/** Names left unmapped on purpose, with the reason a reader is told. */
export const EA_REFUSED_UNITS: Readonly<Record<string, string>> = {
  mBDAT: "metres below a datum are measured downward, so reading one as a level would invert its sign",
};

/** A USGS unit table with more codes; each target unit is checked now, so a bad entry fails when added, not when read. */
export function extendUsgsUnits(
  extra: Readonly<Record<string, string>>,
  base: Readonly<Record<string, string>> = USGS_UNIT_CODES,
): Readonly<Record<string, string>> {
  for (const [code, unit] of Object.entries(extra)) checkTarget(`USGS unit code '${code}'`, unit);
  return Object.freeze({ ...base, ...extra });
}

/** An Environment Agency unit table with more names; each target unit is checked now. */
export function extendEaUnits(
  extra: Readonly<Record<string, EaSurface>>,
  base: Readonly<Record<string, EaSurface>> = EA_UNIT_NAMES,
): Readonly<Record<string, EaSurface>> {
  for (const [name, s] of Object.entries(extra))
    if (s.unit !== "") checkTarget(`Environment Agency unit '${name}'`, s.unit);
  return Object.freeze({ ...base, ...extra });
}

/** Our unit for a USGS unit code (exact key, then any case); UnitParseError naming the code when unmapped. */
export function usgsUnit(code: string, table: Readonly<Record<string, string>> = USGS_UNIT_CODES): string {
  const exact = table[code];
  if (exact !== undefined) return canonicalUnit(exact);
  const folded = code.trim().toLowerCase();
  for (const [k, unit] of Object.entries(table)) if (k.toLowerCase() === folded) return canonicalUnit(unit);
  throw new UnitParseError(
    `unmapped USGS unit code '${code}'; add it to the USGS unit codes (extendUsgsUnits) with the unit it stands for`,
    {
      context: { unit_code: code },
    },
  );
}

/** Our unit and surface for an Environment Agency unit name (exact only); UnitParseError naming the name when unmapped. */
export function eaUnit(name: string, table: Readonly<Record<string, EaSurface>> = EA_UNIT_NAMES): EaSurface {
  const hit = table[name];
  if (hit !== undefined) return { ...hit, unit: hit.unit === "" ? "" : canonicalUnit(hit.unit) };
  const refused = EA_REFUSED_UNITS[name];
  const why = refused
    ? `: it is left unmapped on purpose, since ${refused}`
    : "; add it to the Environment Agency unit names (extendEaUnits) with the unit it stands for";
  throw new UnitParseError(`unmapped Environment Agency unit '${name}'${why}`, { context: { unit_name: name } });
}

function checkTarget(what: string, unit: string): void {
  try {
    canonicalUnit(unit);
  } catch (e) {
    throw new UnitParseError(`${what} maps to '${unit}', which is not a unit: ${(e as Error).message}`);
  }
}

// The physical comparer for claim values: "17.1 ft" and "5.212 m" state one length; one elevation on two datums differs.
import { BUILTIN_DATUMS } from "../quantity/datums.js";
import { Quantity } from "../quantity/quantity.js";
import { parseUnit, sameDimension } from "../quantity/units.js";
import type { QuantityComparer, QuantityForm, QuantityIndex } from "./values.js";

/** A value read as a quantity, with the half-unit in the last stated digit of each magnitude (its rounding). */
interface Stated {
  q: Quantity;
  /** Half a unit in the last place of each magnitude, in the quantity's own unit (null for a gap). */
  half: (number | null)[];
  datum: string | null;
}

const BUILTIN = new Set(BUILTIN_DATUMS.map((d) => d.name.toUpperCase()));
// A local gauge datum as the retrieval packs name it: GAGE:<site>, GAUGE:<station>.
const LOCAL_DATUM = /^(?:GAGE|GAUGE):[A-Za-z0-9_.-]+$/i;
// "<quantity> <datum>", "<quantity> above <datum>", "<quantity> (<datum>)".
const WITH_DATUM = /^(.+?)\s+(?:(?:above|on|re)\s+)?\(?([A-Za-z][A-Za-z0-9_.:+-]*)\)?$/i;
const LEADING_NUMBER = /^\s*[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d*))?(?:[eE]([-+]?\d+))?/;

/** Half a unit in the last stated place of a number written as text ("17.1" → 0.05, "1250" → 0.5, "5e3" → 500). */
export function halfUlp(numberText: string): number {
  const m = LEADING_NUMBER.exec(numberText);
  const decimals = (m?.[1]?.length ?? 0) - Number(m?.[2] ?? 0);
  return 0.5 * 10 ** -decimals;
}

function canonicalDatum(name: string, known: ReadonlySet<string>): string | null {
  const upper = name.toUpperCase();
  if (BUILTIN.has(upper) || LOCAL_DATUM.test(name)) return upper;
  return known.has(upper) ? upper : null;
}

function fromText(text: string, known: ReadonlySet<string>): Stated | null {
  const trimmed = text.trim();
  try {
    const q = Quantity.parse(trimmed);
    return { q, half: [halfUlp(trimmed)], datum: null };
  } catch {
    // Not "<number> <unit>"; it may still end with a datum name.
  }
  const m = WITH_DATUM.exec(trimmed);
  const datum = m?.[2] === undefined ? null : canonicalDatum(m[2], known);
  if (!m?.[1] || datum === null) return null;
  try {
    return { q: Quantity.parse(m[1]), half: [halfUlp(m[1])], datum };
  } catch {
    return null;
  }
}

function fromObject(o: Record<string, unknown>, known: ReadonlySet<string>): Stated | null {
  if (!("value" in o) || typeof o.unit !== "string") return null;
  let q: Quantity;
  try {
    q = Quantity.fromJSON(o);
  } catch {
    return null;
  }
  const half = Array.isArray(q.value)
    ? q.value.map((v) => (v === null ? null : halfUlp(String(v))))
    : [halfUlp(String(q.value))];
  const datum = q.datum === null ? null : (canonicalDatum(q.datum, known) ?? q.datum.toUpperCase());
  return { q, half, datum };
}

/** Reads a claim value as a quantity: "17.1 ft", "17.1 ft NAVD88", or {value, unit, datum?}; null when it is not one. */
export function readStatedQuantity(value: unknown, knownDatums: ReadonlySet<string> = new Set()): Stated | null {
  if (typeof value === "string") return value.length > 256 ? null : fromText(value, knownDatums);
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return fromObject(value as Record<string, unknown>, knownDatums);
  return null;
}

const magnitudes = (q: Quantity): (number | null)[] => (Array.isArray(q.value) ? q.value : [q.value]);

/**
 * Two stated quantities agree when they are the same dimension, on the same datum and CRS, and differ by no more
 * than the rounding of the less precise statement (half a unit in its last stated digit), compared in SI.
 */
function agree(a: Stated, b: Stated): boolean {
  if (a.datum !== b.datum) return false;
  if (a.q.crs !== null && b.q.crs !== null && a.q.crs.toUpperCase() !== b.q.crs.toUpperCase()) return false;
  if (!sameDimension(a.q.unit, b.q.unit)) return false;
  const ua = parseUnit(a.q.unit);
  const ub = parseUnit(b.q.unit);
  const va = magnitudes(a.q);
  const vb = magnitudes(b.q);
  if (va.length !== vb.length || Array.isArray(a.q.value) !== Array.isArray(b.q.value)) return false;
  return va.every((x, i) => {
    const y = vb[i];
    if (x === null || y === null || y === undefined) return x === y;
    const siA = (x + ua.offset) * ua.factor;
    const siB = (y + ub.offset) * ub.factor;
    const tol = Math.max((a.half[i] ?? 0) * ua.factor, (b.half[i] ?? 0) * ub.factor);
    // The relative epsilon absorbs binary rounding in the conversion factors.
    return Math.abs(siA - siB) <= tol + 1e-12 * Math.max(Math.abs(siA), Math.abs(siB));
  });
}

/**
 * A QuantityComparer for the contradiction and stability gates. `datums` adds a team's own datum names to the
 * built-in ones so "12 ft MYGAUGE" is read as an elevation; values that are not both quantities are "not_quantities".
 * @example createQuantityComparer()("17.1 ft", "5.212 m") // "same"
 */
export function createQuantityComparer(datums: Iterable<string> = []): QuantityComparer {
  const known = new Set([...datums].map((d) => d.toUpperCase()));
  // A thousand claims against a thousand live entries read each text once, not once per pair.
  const readings = new Map<string, Stated | null>();
  const readCached = (v: unknown): Stated | null => {
    if (typeof v !== "string") return readStatedQuantity(v, known);
    const hit = readings.get(v);
    if (hit !== undefined) return hit;
    const stated = readStatedQuantity(v, known);
    if (readings.size >= 10_000) readings.clear();
    readings.set(v, stated);
    return stated;
  };
  const compare = (a: unknown, b: unknown): "same" | "different" | "not_quantities" => {
    const sa = readCached(a);
    if (sa === null) return "not_quantities";
    const sb = readCached(b);
    if (sb === null) return "not_quantities";
    return agree(sa, sb) ? "same" : "different";
  };
  const index: QuantityIndex = {
    read: (value) => {
      const s = readCached(value);
      return s === null ? null : formOf(s);
    },
    agree: (a, b) => agree((a as StatedForm).stated, (b as StatedForm).stated),
  };
  return Object.assign(compare, { index });
}

/** A reading for grouping: what `agree` requires to be equal in the bucket, the first magnitude and its rounding in SI. */
interface StatedForm extends QuantityForm {
  stated: Stated;
}

function formOf(s: Stated): StatedForm {
  const u = parseUnit(s.q.unit);
  const first = magnitudes(s.q)[0] ?? null;
  const shape = Array.isArray(s.q.value) ? `[${s.q.value.length}]` : "scalar";
  return {
    bucket: JSON.stringify([s.datum, u.dimension, shape, first === null]),
    at: first === null ? null : (first + u.offset) * u.factor,
    tol: (s.half[0] ?? 0) * u.factor,
    stated: s,
  };
}

/** The comparer over the built-in datums. */
export const compareQuantities: QuantityComparer = createQuantityComparer();

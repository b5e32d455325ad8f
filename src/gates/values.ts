// Comparing claim values and keys: physically through an injected quantity comparer, otherwise by normalised text.

/** Answers whether two values are the same physical quantity; injected so the gates need not import src/quantity. */
export type QuantityComparer = (a: unknown, b: unknown) => "same" | "different" | "not_quantities";

/** A value equality used by the contradiction and stability gates. */
export type ValueMatcher = (a: unknown, b: unknown) => boolean;

/** Trims, collapses whitespace and casefolds a claim key, the form keys are compared and stored in. */
export function normaliseKey(key: string): string {
  return key.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();
}

// A number with optional sign, thousands separators, decimals and exponent; not glued to a preceding word.
const NUMBER =
  /(?<![\p{L}\p{N}.])[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d+)?|(?<![\p{L}\p{N}.])[+\-−]?\.\d+/giu;
// Symbols that change what a value means and so survive normalisation; other punctuation is wording.
const MEANINGFUL = /[%$€£¥°×/<>=≤≥±~^]/u;

function canonicalNumber(raw: string): string {
  const n = Number(raw.replace(/−/g, "-").replace(/,/g, ""));
  return Number.isFinite(n) ? String(n === 0 ? 0 : n) : raw;
}

/**
 * Normalises a value's text: numbers in canonical form ("17.10" = "17.1", "1,250" = "1250", "+3" = "3"),
 * letters casefolded, punctuation and whitespace that carry no meaning dropped, "×" read as "x".
 */
export function normaliseValueText(value: unknown): string {
  const text = valueText(value).normalize("NFKC").toLowerCase().replace(/×/g, " x ");
  const tokens: string[] = [];
  let last = 0;
  for (const m of text.matchAll(NUMBER)) {
    tokens.push(...wordTokens(text.slice(last, m.index)), canonicalNumber(m[0]));
    last = m.index + m[0].length;
  }
  tokens.push(...wordTokens(text.slice(last)));
  return tokens.join(" ");
}

function wordTokens(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/[\p{L}\p{N}]+|\S/gu)) {
    if (/[\p{L}\p{N}]/u.test(m[0]) || MEANINGFUL.test(m[0])) out.push(m[0]);
  }
  return out;
}

/** Renders any claim value as text; a quantity object reads as "17.1 ft NAVD88" so it equals the same value written out. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "object" && !Array.isArray(value)) {
    const q = value as Record<string, unknown>;
    if ((typeof q.value === "number" || Array.isArray(q.value)) && typeof q.unit === "string") {
      return [
        Array.isArray(q.value) ? q.value.join(" ") : String(q.value),
        q.unit,
        typeof q.datum === "string" ? q.datum : "",
      ]
        .join(" ")
        .trim();
    }
  }
  return stableJson(value);
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/**
 * True when two claim values state the same thing. With a quantity comparer its verdict wins
 * ("17.1 ft" = "5.212 m"; two datums differ); otherwise, or for non-quantities, normalised text decides.
 */
export function sameValue(a: unknown, b: unknown, compareQuantities?: QuantityComparer): boolean {
  if (compareQuantities) {
    const verdict = compareQuantities(a, b);
    if (verdict !== "not_quantities") return verdict === "same";
  }
  return normaliseValueText(a) === normaliseValueText(b);
}

/** A memoised `sameValue`: repeated pairs (the same prior value in a thousand runs) are compared once. */
export function createValueMatcher(compareQuantities?: QuantityComparer, limit = 100_000): ValueMatcher {
  const memo = new Map<string, boolean>();
  return (a, b) => {
    // Exact (case-preserving) text as the memo key: "5 ML/d" and "5 ml/d" are different units.
    const ka = stableJson(a);
    const kb = stableJson(b);
    if (ka === kb) return true;
    const key = ka < kb ? `${ka}\u0000${kb}` : `${kb}\u0000${ka}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const same = sameValue(a, b, compareQuantities);
    if (memo.size >= limit) memo.clear();
    memo.set(key, same);
    return same;
  };
}

/** Groups values into classes of mutually same values (first member represents a class). */
export function distinctValues<T>(values: readonly T[], read: (v: T) => unknown, same: ValueMatcher): T[][] {
  const classes: T[][] = [];
  for (const v of values) {
    const cls = classes.find((c) => c[0] !== undefined && same(read(c[0]), read(v)));
    if (cls) cls.push(v);
    else classes.push([v]);
  }
  return classes;
}

// Comparing claim values and keys: physically through an injected quantity comparer, otherwise by normalised text.

/**
 * A quantity read once for grouping: `bucket` holds everything two quantities must share to agree (datum, dimension,
 * shape), `at` the first magnitude in SI (null for a gap) and `tol` the half-unit of its last stated digit in SI.
 */
export interface QuantityForm {
  readonly bucket: string;
  readonly at: number | null;
  readonly tol: number;
}

/** Reads values once and compares the readings, so grouping need not parse a value for every pair. */
export interface QuantityIndex {
  /** The value's reading, or null when it is not a quantity. */
  read(value: unknown): QuantityForm | null;
  /** The comparer's verdict on two readings from `read`. */
  agree(a: QuantityForm, b: QuantityForm): boolean;
}

/** Answers whether two values are the same physical quantity; injected so the gates need not import src/quantity. */
export type QuantityComparer = ((a: unknown, b: unknown) => "same" | "different" | "not_quantities") & {
  /** When present, lets `distinctValues` group in n log n instead of comparing every pair. */
  readonly index?: QuantityIndex;
};

/**
 * A value equality used by the contradiction and stability gates. `index` null: text alone decides;
 * undefined: the matcher is opaque and grouping compares pairs.
 */
export type ValueMatcher = ((a: unknown, b: unknown) => boolean) & { readonly index?: QuantityIndex | null };

// A result names few distinct keys but normalises each claim's key several times (contract, gates, store); NFKC and two
// regular expressions per call were a visible share of a 1,000-claim evaluation.
const normalisedKeys = new Map<string, string>();

/** Trims, collapses whitespace and casefolds a claim key, the form keys are compared and stored in. */
export function normaliseKey(key: string): string {
  const hit = normalisedKeys.get(key);
  if (hit !== undefined) return hit;
  const normal = key.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();
  if (key.length <= 256) {
    if (normalisedKeys.size >= 10_000) normalisedKeys.clear();
    normalisedKeys.set(key, normal);
  }
  return normal;
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
  const matcher = (a: unknown, b: unknown): boolean => {
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
  return Object.assign(matcher, { index: compareQuantities === undefined ? null : compareQuantities.index });
}

/**
 * Groups values into classes of mutually same values: each value joins the first class (in order of creation) whose
 * first member it equals, else starts a class. With a matcher that carries an index this reads every value once and
 * looks a value up among the classes that can hold it (by normalised text, or by SI magnitude within a quantity's
 * bucket), so a result of thousands of claims on one key groups in n log n rather than comparing every pair.
 */
export function distinctValues<T>(values: readonly T[], read: (v: T) => unknown, same: ValueMatcher): T[][] {
  if (same.index === undefined) return distinctByPairs(values, read, same);
  const index = same.index;
  const classes: T[][] = [];
  // The first class of any kind, and the first that is not a quantity, per normalised text.
  const firstAny = new Map<string, number>();
  const firstPlain = new Map<string, number>();
  const buckets = new Map<string, Bucket>();
  const forms = values.map((v) => (index === null ? null : index.read(read(v))));
  // Text is looked up only for a value that is not a quantity, and matched only against such values: when every value
  // is a quantity (1,000 lengths on one key), normalising their text would be work nobody reads.
  const allQuantities = forms.every((f) => f !== null);
  for (const [i, v] of values.entries()) {
    const value = read(v);
    const form = forms[i] ?? null;
    const text = allQuantities ? "" : normaliseValueText(value);
    // A quantity meets another quantity through the comparer, and anything else through its text.
    const found =
      form === null || index === null
        ? firstAny.get(text)
        : earliest(firstPlain.get(text), buckets.get(form.bucket)?.find(form, index));
    if (found !== undefined) {
      classes[found]?.push(v);
      continue;
    }
    const id = classes.length;
    classes.push([v]);
    if (!firstAny.has(text)) firstAny.set(text, id);
    if (form === null) {
      if (!firstPlain.has(text)) firstPlain.set(text, id);
    } else {
      let bucket = buckets.get(form.bucket);
      if (!bucket) buckets.set(form.bucket, (bucket = new Bucket()));
      bucket.add(form, id);
    }
  }
  return classes;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined || a < b ? a : b;
}

/** The first members of the quantity classes of one bucket, sorted by SI magnitude; gaps apart. */
class Bucket {
  private readonly sorted: { form: QuantityForm; at: number; id: number }[] = [];
  private readonly gaps: { form: QuantityForm; id: number }[] = [];
  private maxTol = 0;

  add(form: QuantityForm, id: number): void {
    if (form.at === null) {
      this.gaps.push({ form, id });
      return;
    }
    this.sorted.splice(this.lowerBound(form.at), 0, { form, at: form.at, id });
    this.maxTol = Math.max(this.maxTol, form.tol);
  }

  /** The earliest class whose first member agrees with `form`, looking only where an agreeing magnitude can lie. */
  find(form: QuantityForm, index: QuantityIndex): number | undefined {
    let best: number | undefined;
    if (form.at === null) {
      for (const g of this.gaps) if ((best === undefined || g.id < best) && index.agree(g.form, form)) best = g.id;
      return best;
    }
    // Agreement allows the larger tolerance plus a relative 1e-12; the window is a little wider, the check exact.
    const reach = (Math.max(this.maxTol, form.tol) + 1e-12 * Math.abs(form.at)) * (1 + 1e-9);
    for (let i = this.lowerBound(form.at - reach); i < this.sorted.length; i++) {
      const r = this.sorted[i];
      if (r === undefined || r.at > form.at + reach) break;
      if ((best === undefined || r.id < best) && index.agree(r.form, form)) best = r.id;
    }
    return best;
  }

  private lowerBound(at: number): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.sorted[mid]?.at ?? Number.POSITIVE_INFINITY) < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

// An opaque matcher (a test double) leaves nothing to index: compare with the first member of every class.
function distinctByPairs<T>(values: readonly T[], read: (v: T) => unknown, same: ValueMatcher): T[][] {
  const classes: T[][] = [];
  for (const v of values) {
    const cls = classes.find((c) => c[0] !== undefined && same(read(c[0]), read(v)));
    if (cls) cls.push(v);
    else classes.push([v]);
  }
  return classes;
}

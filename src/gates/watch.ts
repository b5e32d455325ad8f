// Watch patterns of demoted claims, compiled with RE2 (linear time, so user patterns cannot hang the service) and cached.
import RE2 from "re2";

/** A compiled watch pattern, or why RE2 refused it. */
export type CompiledWatch = { ok: true; re: RE2 } | { ok: false; reason: string };

/** Longest pattern accepted; a watch names a claim, it is not a program. */
export const MAX_WATCH_LENGTH = 2_000;

/**
 * Most extra copies counted repetition may make of a watch's parts. RE2 stays linear, but a pattern such as
 * [\s\S]{800}x outgrows its DFA budget and is scanned by the slow NFA: 300 of them took 4.5 s per 35 KB report.
 */
export const MAX_WATCH_REPEATS = 100;

const COUNTED = /^\{(\d+)(?:,(\d*))?\}/;
// \p{L}, \P{Greek}, \x{263a}: braces that belong to an escape, not a repetition.
const BRACED_ESCAPE = /^[pPx]\{[^}]*\}/;

/** How many extra copies of its parts a pattern's counted repetitions ({n}, {n,}, {n,m}) make, nesting multiplied. */
export function countedRepeats(pattern: string): number {
  const extras: number[] = [0]; // per open group
  let atom = 0; // size of the atom just read; 0 when there is nothing a quantifier could repeat
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern.charAt(i);
    if (ch === "\\") {
      i += BRACED_ESCAPE.exec(pattern.slice(i + 1))?.[0].length ?? 1;
      atom = 1;
    } else if (ch === "[") {
      let j = i + 1;
      if (pattern[j] === "^") j += 1;
      if (pattern[j] === "]") j += 1;
      while (j < pattern.length && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1;
      i = j;
      atom = 1;
    } else if (ch === "(") {
      extras.push(0);
      atom = 0;
    } else if (ch === ")" && extras.length > 1) {
      const inner = extras.pop() ?? 0;
      extras[extras.length - 1] = (extras[extras.length - 1] ?? 0) + inner;
      atom = 1 + inner;
    } else if (ch === "{" && atom > 0 && COUNTED.test(pattern.slice(i))) {
      const m = COUNTED.exec(pattern.slice(i)) ?? ["", "0"];
      const n = Math.max(Number(m[1]), m[2] ? Number(m[2]) : 0);
      const added = atom * Math.max(0, n - 1);
      extras[extras.length - 1] = (extras[extras.length - 1] ?? 0) + added;
      atom += added;
      i += m[0].length - 1;
    } else if (ch === "|") {
      atom = 0;
    } else if (ch !== "*" && ch !== "+" && ch !== "?") {
      atom = 1;
    }
  }
  return extras.reduce((a, b) => a + b, 0);
}

// RE2's own messages ("invalid perl operator: (?=") are exact but terse; say what the user can do.
const REFUSALS: readonly { test: RegExp; why: string }[] = [
  { test: /invalid escape sequence: \\[1-9]/, why: "backreferences (\\1) are not supported" },
  { test: /invalid perl operator: \(\?(?:=|!|<=|<!)/, why: "lookaround ((?=, (?!, (?<=, (?<!) is not supported" },
  { test: /invalid perl operator: \(\?P=/, why: "named backreferences ((?P=name)) are not supported" },
];

function compile(pattern: string): CompiledWatch {
  if (pattern.length === 0)
    return { ok: false, reason: "the watch pattern is empty; send a regular expression or leave watch out" };
  if (pattern.length > MAX_WATCH_LENGTH) {
    return {
      ok: false,
      reason: `the watch pattern is ${pattern.length} characters long; the limit is ${MAX_WATCH_LENGTH}`,
    };
  }
  const repeats = countedRepeats(pattern);
  if (repeats > MAX_WATCH_REPEATS) {
    return {
      ok: false,
      reason:
        `the watch pattern ${JSON.stringify(pattern)} repeats parts of itself ${repeats} extra times ` +
        `through counted repetition ({n}, {n,m}); the limit is ${MAX_WATCH_REPEATS}`,
    };
  }
  try {
    return { ok: true, re: new RE2(pattern) };
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    const known = REFUSALS.find((r) => r.test.test(detail));
    return {
      ok: false,
      reason: `RE2 cannot compile ${JSON.stringify(pattern)}: ${known ? `${known.why} (${detail})` : detail}; rewrite it without backreferences or lookaround`,
    };
  }
}

/** A bounded cache of compiled patterns: compile once, reuse for every later report. */
export class WatchCache {
  private readonly entries = new Map<string, CompiledWatch>();
  constructor(readonly limit = 50_000) {}

  /** Compiles a pattern, or returns its cached compilation (refusals are cached too). */
  get(pattern: string): CompiledWatch {
    const hit = this.entries.get(pattern);
    if (hit) {
      // Re-insert so the Map's insertion order doubles as least-recently-used order.
      this.entries.delete(pattern);
      this.entries.set(pattern, hit);
      return hit;
    }
    const compiled = compile(pattern);
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(pattern, compiled);
    return compiled;
  }

  /** Number of cached patterns. */
  get size(): number {
    return this.entries.size;
  }
}

const shared = new WatchCache();

/** Compiles a watch pattern through the shared cache: {ok, re} or {ok: false, reason} naming what RE2 refused. */
export function compileWatch(pattern: string, cache: WatchCache = shared): CompiledWatch {
  return cache.get(pattern);
}

/** Which of many patterns occur in a text, and why the others were refused. */
export interface WatchScan {
  /** Indices (into the patterns given) of the patterns that occur in the text. */
  matched: Set<number>;
  /** Index → reason, for the patterns RE2 refused; they match nothing. */
  refused: Map<number, string>;
}

type CompiledSet = InstanceType<typeof RE2.Set>;

/**
 * How a list of patterns is searched: RE2.Sets over consecutive slices [start, end) of the list, and the positions
 * of patterns no set could hold, which are tried one by one.
 */
export interface WatchSetPlan {
  sets: { set: CompiledSet; start: number; end: number }[];
  single: number[];
}

// RE2 compiles a set within a fixed memory budget the binding cannot raise, so 10,000 watches do not fit in one;
// slices of this size compile (about 10 ms each) and scan a 50 KB report in well under a millisecond.
const SET_SLICE = 1_000;

function planSets(patterns: readonly RE2[], start: number, end: number, plan: WatchSetPlan): void {
  if (end - start === 1) {
    plan.single.push(start);
    return;
  }
  try {
    plan.sets.push({ set: new RE2.Set(patterns.slice(start, end)), start, end });
  } catch {
    // Too large for RE2's budget: halve it until each half compiles, or a pattern stands alone.
    const mid = start + Math.floor((end - start) / 2);
    planSets(patterns, start, mid, plan);
    planSets(patterns, mid, end, plan);
  }
}

/** Compiled RE2.Sets keyed by their patterns: a ledger's watches are compiled once, in slices RE2 can hold. */
export class WatchSetCache {
  private readonly sets = new Map<string, WatchSetPlan>();
  constructor(readonly limit = 8) {}

  /** The sets covering these valid patterns (`sources`: their text, the cache key), in order; patterns no set can hold are in `single`. */
  get(patterns: readonly RE2[], sources: readonly string[] = patterns.map((p) => p.source)): WatchSetPlan {
    // The patterns as written, not RE2's `source` getter, which costs a call into the binding per pattern.
    const key = sources.join("\u0000");
    const hit = this.sets.get(key);
    if (hit) return hit;
    const plan: WatchSetPlan = { sets: [], single: [] };
    for (let start = 0; start < patterns.length; start += SET_SLICE)
      planSets(patterns, start, Math.min(patterns.length, start + SET_SLICE), plan);
    if (this.sets.size >= this.limit) {
      const oldest = this.sets.keys().next();
      if (!oldest.done) this.sets.delete(oldest.value);
    }
    this.sets.set(key, plan);
    return plan;
  }
}

const sharedSets = new WatchSetCache();

type CompiledList = {
  patterns: readonly string[];
  refused: Map<number, string>;
  valid: RE2[];
  sources: string[];
  indices: number[];
  /** The set plan of `valid` in each set cache, so a repeated list is not keyed again (10,000 patterns joined). */
  plans: WeakMap<WatchSetCache, WatchSetPlan>;
};

// The last list compiled through each cache: a ledger's demoted claims change rarely, and looking 10,000 patterns up
// one by one cost more than scanning the report with them.
const lastList = new WeakMap<WatchCache, CompiledList>();

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/** The patterns compiled (valid ones in order, with their positions), and the refusals, reusing the last list. */
function compiledList(patterns: readonly string[], cache: WatchCache): CompiledList {
  const last = lastList.get(cache);
  if (last && sameList(last.patterns, patterns)) return last;
  const list: CompiledList = {
    patterns: [...patterns],
    refused: new Map(),
    valid: [],
    sources: [],
    indices: [],
    plans: new WeakMap(),
  };
  patterns.forEach((p, i) => {
    const w = compileWatch(p, cache);
    if (w.ok) {
      list.valid.push(w.re);
      list.sources.push(p);
      list.indices.push(i);
    } else {
      list.refused.set(i, w.reason);
    }
  });
  lastList.set(cache, list);
  return list;
}

/**
 * Searches a text for many watch patterns, a slice of them per pass (RE2.Sets: linear in the text, whatever the
 * number of patterns). A pattern no set can hold, or a set RE2 cannot run (it reports out of memory), is searched alone.
 */
export function scanWatches(
  patterns: readonly string[],
  text: string,
  cache: WatchCache = shared,
  sets: WatchSetCache = sharedSets,
): WatchScan {
  const list = compiledList(patterns, cache);
  const { refused: known, valid, sources, indices } = list;
  const refused = new Map(known); // the caller's own copy: the cached list is shared by later scans
  const matched = new Set<number>();
  if (valid.length === 0) return { matched, refused };
  // Positions in a set are offsets into its slice of the valid patterns, whose order the cache key fixes.
  const hit = (k: number): void => {
    const original = indices[k];
    if (original !== undefined) matched.add(original);
  };
  const alone = (k: number): void => {
    if (valid[k]?.test(text)) hit(k);
  };
  let plan = list.plans.get(sets);
  if (!plan) list.plans.set(sets, (plan = sets.get(valid, sources)));
  for (const { set, start, end } of plan.sets) {
    try {
      for (const k of set.match(text)) hit(start + k);
    } catch {
      for (let k = start; k < end; k += 1) alone(k);
    }
  }
  plan.single.forEach(alone);
  return { matched, refused };
}

/** True when a compiled watch occurs anywhere in the text (unanchored search). */
export function watchMatches(watch: CompiledWatch, text: string): boolean {
  return watch.ok && watch.re.test(text);
}

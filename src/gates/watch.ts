// Watch patterns of demoted claims, compiled with RE2 (linear time, so user patterns cannot hang the service) and cached.
import RE2 from "re2";

/** A compiled watch pattern, or why RE2 refused it. */
export type CompiledWatch = { ok: true; re: RE2 } | { ok: false; reason: string };

/** Longest pattern accepted; a watch names a claim, it is not a program. */
export const MAX_WATCH_LENGTH = 2_000;

// RE2's own messages ("invalid perl operator: (?=") are exact but terse; say what the user can do.
const REFUSALS: readonly { test: RegExp; why: string }[] = [
  { test: /invalid escape sequence: \\[1-9]/, why: "backreferences (\\1) are not supported" },
  { test: /invalid perl operator: \(\?(?:=|!|<=|<!)/, why: "lookaround ((?=, (?!, (?<=, (?<!) is not supported" },
  { test: /invalid perl operator: \(\?P=/, why: "named backreferences ((?P=name)) are not supported" },
];

function compile(pattern: string): CompiledWatch {
  if (pattern.length === 0) return { ok: false, reason: "the watch pattern is empty; send a regular expression or leave watch out" };
  if (pattern.length > MAX_WATCH_LENGTH) {
    return { ok: false, reason: `the watch pattern is ${pattern.length} characters long; the limit is ${MAX_WATCH_LENGTH}` };
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

/** Compiled RE2.Sets keyed by their patterns: a ledger's watches are compiled into one automaton once. */
export class WatchSetCache {
  private readonly sets = new Map<string, CompiledSet | null>();
  constructor(readonly limit = 8) {}

  /** The compiled set for these valid patterns, or null when RE2 cannot build it (then patterns are tried one by one). */
  get(patterns: readonly RE2[]): CompiledSet | null {
    const key = patterns.map((p) => p.source).join("\u0000");
    if (this.sets.has(key)) return this.sets.get(key) ?? null;
    let built: CompiledSet | null;
    try {
      built = new RE2.Set(patterns);
    } catch {
      built = null;
    }
    if (this.sets.size >= this.limit) {
      const oldest = this.sets.keys().next();
      if (!oldest.done) this.sets.delete(oldest.value);
    }
    this.sets.set(key, built);
    return built;
  }
}

const sharedSets = new WatchSetCache();

/**
 * Searches a text for many watch patterns in one pass (an RE2.Set: linear in the text, whatever the number of
 * patterns). Falls back to one search per pattern if RE2 cannot build or run the set (it reports out of memory).
 */
export function scanWatches(patterns: readonly string[], text: string, cache: WatchCache = shared, sets: WatchSetCache = sharedSets): WatchScan {
  const refused = new Map<number, string>();
  const valid: RE2[] = [];
  const indices: number[] = [];
  patterns.forEach((p, i) => {
    const w = compileWatch(p, cache);
    if (w.ok) {
      valid.push(w.re);
      indices.push(i);
    } else {
      refused.set(i, w.reason);
    }
  });
  const matched = new Set<number>();
  if (valid.length === 0) return { matched, refused };
  const compiled = sets.get(valid);
  try {
    if (compiled) {
      // Set positions index the valid patterns, in the order given, which the key fixes.
      for (const k of compiled.match(text)) {
        const original = indices[k];
        if (original !== undefined) matched.add(original);
      }
      return { matched, refused };
    }
  } catch {
    // RE2.Set gives up (out of memory) on some huge sets: answer the slow, still linear, way.
  }
  valid.forEach((re, k) => {
    const original = indices[k];
    if (original !== undefined && re.test(text)) matched.add(original);
  });
  return { matched, refused };
}

/** True when a compiled watch occurs anywhere in the text (unanchored search). */
export function watchMatches(watch: CompiledWatch, text: string): boolean {
  return watch.ok && watch.re.test(text);
}

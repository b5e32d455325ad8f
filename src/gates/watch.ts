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

/** True when a compiled watch occurs anywhere in the text (unanchored search). */
export function watchMatches(watch: CompiledWatch, text: string): boolean {
  return watch.ok && watch.re.test(text);
}

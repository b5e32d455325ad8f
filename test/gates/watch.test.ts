import { describe, expect, it } from "vitest";
import {
  compileWatch,
  MAX_WATCH_LENGTH,
  MAX_WATCH_REPEATS,
  scanWatches,
  WatchCache,
  watchMatches,
  WatchSetCache,
} from "../../src/gates/watch.js";

describe("watch patterns", () => {
  it("matches (a+)+$ against forty a's and a ! without backtracking: no match", () => {
    const w = compileWatch("(a+)+$", new WatchCache());
    expect(w.ok).toBe(true);
    expect(watchMatches(w, `${"a".repeat(40)}!`)).toBe(false);
    expect(watchMatches(w, "a".repeat(40))).toBe(true);
  });

  it("searches unanchored and honours an inline (?i)", () => {
    expect(watchMatches(compileWatch("2\\.08x"), "June: Thompson beats greedy by 2.08x.")).toBe(true);
    expect(watchMatches(compileWatch("2\\.08x"), "June: 2.08 x")).toBe(false);
    expect(watchMatches(compileWatch("(?i)thompson beats"), "THOMPSON BEATS greedy")).toBe(true);
  });

  it("refuses a backreference and says why", () => {
    const w = compileWatch("(a)\\1", new WatchCache());
    expect(w).toEqual({
      ok: false,
      reason:
        'RE2 cannot compile "(a)\\\\1": backreferences (\\1) are not supported (invalid escape sequence: \\1); rewrite it without backreferences or lookaround',
    });
  });

  it.each(["a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b"])("refuses the lookaround %s", (p) => {
    const w = compileWatch(p, new WatchCache());
    expect(w.ok).toBe(false);
    expect(w.ok ? "" : w.reason).toContain("lookaround ((?=, (?!, (?<=, (?<!) is not supported");
  });

  it("refuses an empty or oversized pattern and a syntax error", () => {
    const c = new WatchCache();
    expect(compileWatch("", c)).toEqual({
      ok: false,
      reason: "the watch pattern is empty; send a regular expression or leave watch out",
    });
    expect(compileWatch("a".repeat(MAX_WATCH_LENGTH + 1), c).ok).toBe(false);
    expect(compileWatch("[", c)).toEqual({
      ok: false,
      reason: 'RE2 cannot compile "[": missing ]: [; rewrite it without backreferences or lookaround',
    });
  });

  it.each([
    ["[\\s\\S]{800}x0", 799],
    ["(?:[\\s\\S]{10}){100}x", 999],
    ["a{150,}", 149],
    ["(?:a{20}b{20}){5}", 194],
  ])("refuses %s, whose counted repetition makes %i extra copies: RE2 can only scan it slowly", (p, extra) => {
    // 300 watches like [\s\S]{800}x0 took 4.5 s on every 35 KB report; nesting multiplies the copies.
    expect(compileWatch(String(p), new WatchCache())).toEqual({
      ok: false,
      reason: `the watch pattern ${JSON.stringify(p)} repeats parts of itself ${extra} extra times through counted repetition ({n}, {n,m}); the limit is ${MAX_WATCH_REPEATS}`,
    });
  });

  it("accepts small counted repetition and braces that are not repetition", () => {
    for (const p of ["\\d{4}-\\d{2}-\\d{2}", "[\\s\\S]{100}x", "\\{1000\\}", "[{]1000}", "\\p{L}{3}"])
      expect(compileWatch(p, new WatchCache()).ok).toBe(true);
  });

  it("compiles a pattern once and keeps the cache within its bound", () => {
    const c = new WatchCache(3);
    const first = compileWatch("x+", c);
    expect(compileWatch("x+", c)).toBe(first);
    for (const p of ["a", "b", "c"]) compileWatch(p, c);
    expect(c.size).toBe(3);
    expect(compileWatch("x+", c)).not.toBe(first);
  });

  it("evicts the least recently used pattern, not the most recently read one", () => {
    const c = new WatchCache(2);
    const a = compileWatch("a", c);
    compileWatch("b", c);
    compileWatch("a", c);
    compileWatch("c", c);
    expect(compileWatch("a", c)).toBe(a);
  });

  it("scans many patterns in one pass, reporting which matched and which RE2 refused", () => {
    const scan = scanWatches(
      ["2\\.08x", "(a)\\1", "(?i)THOMPSON beats", "never here", "(a+)+$"],
      `Thompson beats greedy by 2.08x ${"a".repeat(40)}!`,
      new WatchCache(),
      new WatchSetCache(),
    );
    expect([...scan.matched].sort()).toEqual([0, 2]);
    expect([...scan.refused.keys()]).toEqual([1]);
  });

  it("maps matches back to the caller's positions when a cached set is reused with refused patterns moved", () => {
    const cache = new WatchCache();
    const sets = new WatchSetCache();
    expect([...scanWatches(["(a)\\1", "x"], "x", cache, sets).matched]).toEqual([1]);
    expect([...scanWatches(["x", "(a)\\1"], "x", cache, sets).matched]).toEqual([0]);
  });
});

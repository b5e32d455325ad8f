// Ten thousand watch patterns: more than one RE2.Set can hold, so they are compiled into several.
import { describe, expect, it } from "vitest";
import { compileWatch, scanWatches, WatchCache, WatchSetCache } from "../../src/gates/watch.js";

/** Demotion watches of three realistic shapes, numbered so each is its own pattern. */
const PATTERNS = Array.from(
  { length: 10_000 },
  (_, i) =>
    [
      `weir ${i} gain of 2\\.08x`,
      `(?i)station ${i} beats gauge ${i + 1} by \\d+(\\.\\d+)?x`,
      `\\bclaim-${i}\\b[^.]*\\d+%`,
    ][i % 3] ?? "",
);

describe("watch sets for a large ledger", () => {
  it("compiles 10,000 patterns into RE2.Sets (one set cannot hold them), leaving none to be tried one by one", () => {
    const cache = new WatchCache();
    const compiled = PATTERNS.map((p) => compileWatch(p, cache)).flatMap((w) => (w.ok ? [w.re] : []));
    const plan = new WatchSetCache().get(compiled);
    expect(plan.single).toEqual([]);
    expect(plan.sets.map((s) => s.end - s.start).reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(plan.sets[0]?.start).toBe(0);
    for (const [i, s] of plan.sets.slice(1).entries()) expect(s.start).toBe(plan.sets[i]?.end);
  });

  it("finds exactly the patterns that occur in a 50 KB report, mapped back to their positions", () => {
    const text = `${"Station 1 reading for the week. 10.0 ft. ".repeat(1_250)} weir 9999 gain of 2.08x. STATION 4 BEATS GAUGE 5 BY 3.5x. claim-8 rose 12%.`;
    const patterns = [...PATTERNS, "(a)\\1"];
    const scan = scanWatches(patterns, text, new WatchCache(), new WatchSetCache());
    expect([...scan.matched].sort((a, b) => a - b)).toEqual([4, 8, 9999]);
    expect([...scan.refused.keys()]).toEqual([10_000]);
  });

  it("answers a repeated list from the list it compiled last, and compiles a changed list afresh", () => {
    const cache = new WatchCache();
    const sets = new WatchSetCache();
    const text = "weir 3 gain of 2.08x; claim-2 fell 40%.";
    const first = scanWatches([...PATTERNS.slice(0, 12), "(a)\\1"], text, cache, sets);
    const again = scanWatches([...PATTERNS.slice(0, 12), "(a)\\1"], text, cache, sets);
    expect([...again.matched].sort((a, b) => a - b)).toEqual([2, 3]);
    expect([...again.refused.keys()]).toEqual([12]);
    expect(again.refused).not.toBe(first.refused); // each scan answers its own map
    // One pattern changed: position 3 now holds weir 0's pattern, which the text does not hold (a stale list: [2, 3]).
    const changed = scanWatches([...PATTERNS.slice(0, 3), PATTERNS[0]!, ...PATTERNS.slice(4, 12)], text, cache, sets);
    expect([...changed.matched]).toEqual([2]);
    expect(changed.refused.size).toBe(0);
    const other = scanWatches(PATTERNS.slice(0, 3), "no watch occurs here", cache, sets);
    expect(other.matched.size).toBe(0);
  });
});

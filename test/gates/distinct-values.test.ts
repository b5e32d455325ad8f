import { describe, expect, it } from "vitest";
import { createQuantityComparer } from "../../src/gates/quantity-compare.js";
import { createValueMatcher, distinctValues, type ValueMatcher } from "../../src/gates/values.js";

// The grouping before the index: each value compared with the first member of every earlier class.
function byPairs(values: readonly unknown[], same: ValueMatcher): unknown[][] {
  const opaque: ValueMatcher = (a, b) => same(a, b);
  return distinctValues(values, (v) => v, opaque);
}

// A small deterministic generator, so a failure names a seed that reproduces it.
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const UNITS = ["m", "ft", "cm", "km", "cfs", "m^3/s", "degC", "degF", "K", "delta_degC", "%", ""];
const DATUMS = ["", " NAVD88", " NGVD29", " GAGE:07374000"];

function mixedValues(seed: number, n: number): unknown[] {
  const next = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  return Array.from({ length: n }, () => {
    const kind = next();
    const magnitude = (next() * 40 - 5).toFixed(Math.floor(next() * 3));
    if (kind < 0.55) return `${magnitude} ${pick(UNITS)}${next() < 0.3 ? pick(DATUMS) : ""}`.trim();
    if (kind < 0.7) return { value: Number(magnitude), unit: pick(UNITS.filter((u) => u !== "")) };
    if (kind < 0.8) return Number(magnitude);
    if (kind < 0.9) return pick(["yes", "Yes!", "approved", "5 m.", "five metres", "17.1 ft"]);
    return { value: [Number(magnitude), next() < 0.2 ? null : 1], unit: "m" };
  });
}

describe("distinctValues groups as comparing every pair did, in n log n", () => {
  it.each([1, 2, 3, 4])("gives the same classes, in the same order, on mixed values (seed %i)", (seed) => {
    const same = createValueMatcher(createQuantityComparer(["MYGAUGE"]));
    const values = mixedValues(seed, 400);
    expect(distinctValues(values, (v) => v, same)).toEqual(byPairs(values, same));
  });

  it("keeps the first class a value agrees with when rounding lets it agree with two", () => {
    const same = createValueMatcher(createQuantityComparer());
    // "17 ft" (±0.5 ft) holds 17.4 ft; "17.4 ft" came after, so 17.3 ft joins "17 ft", whose first member it agrees with.
    const values = ["17 ft", "18.0 ft", "17.4 ft", "17.3 ft", "5.3 m", "17.38 ft"];
    const classes = distinctValues(values, (v) => v, same);
    expect(classes).toEqual(byPairs(values, same));
    expect(classes).toEqual([["17 ft", "17.4 ft", "17.3 ft", "5.3 m", "17.38 ft"], ["18.0 ft"]]);
  });

  it("groups 9,000 distinct lengths on one key in well under a second", () => {
    const same = createValueMatcher(createQuantityComparer());
    const values = Array.from({ length: 9000 }, (_, i) => `${i} m`);
    const started = performance.now();
    const classes = distinctValues(values, (v) => v, same);
    expect(classes).toHaveLength(9000);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

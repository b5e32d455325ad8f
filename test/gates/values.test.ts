import { describe, expect, it } from "vitest";
import {
  createValueMatcher,
  normaliseKey,
  normaliseValueText,
  sameValue,
  type QuantityComparer,
} from "../../src/gates/values.js";

// A test double of the injected comparer: feet and metres on a datum, nothing else. Not a model of src/quantity.
const FT = 0.3048;
const fakeQuantities: QuantityComparer = (a, b) => {
  const read = (v: unknown): { m: number; datum: string } | null => {
    if (typeof v === "object" && v !== null && "value" in v && "unit" in v) {
      const q = v as { value: number; unit: string; datum?: string };
      return { m: q.unit === "ft" ? q.value * FT : q.value, datum: q.datum ?? "" };
    }
    if (typeof v !== "string") return null;
    const m = /^(-?\d+(?:\.\d+)?) ?(ft|m)(?: (\w+))?$/.exec(v.trim());
    return m ? { m: Number(m[1]) * (m[2] === "ft" ? FT : 1), datum: m[3] ?? "" } : null;
  };
  const x = read(a);
  const y = read(b);
  if (!x || !y) return "not_quantities";
  if (x.datum !== y.datum) return "different";
  return Math.abs(x.m - y.m) <= 0.0005 * Math.max(Math.abs(x.m), Math.abs(y.m)) ? "same" : "different";
};

describe("value normalisation", () => {
  it.each([
    ["17.10", "17.1"],
    ["1,250 cfs", "1250 cfs"],
    ["+3.94x", "3.94 x"],
    ["3.94 ×", "3.94 x"],
    ["  The  Answer. ", "the answer"],
    ["40.0", "40"],
    ["Yes!", "yes"],
    ["40%", "40 %"],
  ])("reads %j as %j", (raw, norm) => {
    expect(normaliseValueText(raw)).toBe(norm);
  });

  it("keeps signs and meaningful symbols: -3.94x is not 3.94x and 40% is not 40", () => {
    expect(sameValue("-3.94x", "3.94x")).toBe(false);
    expect(sameValue("40%", "40")).toBe(false);
    expect(sameValue("<5", "5")).toBe(false);
  });

  it("treats numbers, numeric strings and booleans by value", () => {
    expect(sameValue(40, "40.0")).toBe(true);
    expect(sameValue(true, "True")).toBe(true);
    expect(sameValue(17.1, 17.2)).toBe(false);
  });

  it("reads a quantity object as its written form without a comparer", () => {
    expect(sameValue({ value: 17.1, unit: "ft" }, "17.10 ft")).toBe(true);
    expect(sameValue({ value: 17.1, unit: "ft", datum: "NAVD88" }, "17.1 ft")).toBe(false);
  });

  it("normalises keys by case and whitespace", () => {
    expect(normaliseKey("  Median   Latency ")).toBe("median latency");
  });
});

describe("physical comparison through the injected comparer", () => {
  it("finds 17.1 ft and 5.212 m the same value", () => {
    expect(sameValue("17.1 ft", "5.212 m", fakeQuantities)).toBe(true);
    expect(sameValue("17.1 ft", "5.212 m")).toBe(false);
  });

  it("finds 17.1 ft and 18.6 ft different", () => {
    expect(sameValue("17.1 ft", "18.6 ft", fakeQuantities)).toBe(false);
  });

  it("finds one elevation on two datums different", () => {
    expect(
      sameValue(
        { value: 17.1, unit: "ft", datum: "NAVD88" },
        { value: 17.1, unit: "ft", datum: "NGVD29" },
        fakeQuantities,
      ),
    ).toBe(false);
  });

  it("falls back to text for values that are not quantities", () => {
    expect(sameValue("Thompson", "thompson.", fakeQuantities)).toBe(true);
  });

  it("memoises each pair once in a matcher", () => {
    let calls = 0;
    const counting: QuantityComparer = (a, b) => {
      calls += 1;
      return fakeQuantities(a, b);
    };
    const same = createValueMatcher(counting);
    for (let i = 0; i < 100; i += 1) expect(same("17.1 ft", "5.212 m")).toBe(true);
    expect(same("5.212 m", "17.1 ft")).toBe(true);
    expect(same("17.1 ft", "17.1 ft")).toBe(true);
    expect(calls).toBe(1);
  });
});

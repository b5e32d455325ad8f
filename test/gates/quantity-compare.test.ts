// The physical comparer the evaluation routes and the CLI inject into the contradiction and stability gates.
import { describe, expect, it } from "vitest";
import {
  compareQuantities,
  createQuantityComparer,
  halfUlp,
  readStatedQuantity,
} from "../../src/gates/quantity-compare.js";
import { sameValue } from "../../src/gates/values.js";

describe("compareQuantities", () => {
  it('answers "same" for 17.1 ft and 5.212 m (one length in two units)', () => {
    expect(compareQuantities("17.1 ft", "5.212 m")).toBe("same");
    expect(compareQuantities("5.212 m", "17.1 ft")).toBe("same");
  });

  it('answers "different" for 17.1 ft and 18.6 ft', () => {
    expect(compareQuantities("17.1 ft", "18.6 ft")).toBe("different");
  });

  it('answers "different" for one elevation stated on two datums', () => {
    expect(compareQuantities("17.1 ft NAVD88", "17.1 ft NGVD29")).toBe("different");
    expect(
      compareQuantities({ value: 17.1, unit: "ft", datum: "NAVD88" }, { value: 17.1, unit: "ft", datum: "NGVD29" }),
    ).toBe("different");
  });

  it('answers "different" when only one side names a datum', () => {
    expect(compareQuantities("17.1 ft NAVD88", "17.1 ft")).toBe("different");
  });

  it("reads a datum after the unit, after 'above' and in parentheses, case-insensitively", () => {
    expect(compareQuantities("17.1 ft NAVD88", "5.212 m above navd88")).toBe("same");
    expect(compareQuantities("17.1 ft (NAVD88)", { value: 5.212, unit: "m", datum: "NAVD88" })).toBe("same");
    expect(compareQuantities("3.2 m GAGE:07374000", "3.2 m gage:07374000")).toBe("same");
  });

  it("knows a team's own datum names only when given them", () => {
    expect(compareQuantities("3.2 m MYPORT", "3.2 m")).toBe("not_quantities");
    expect(createQuantityComparer(["MYPORT"])("3.2 m MYPORT", "3.2 m")).toBe("different");
    expect(createQuantityComparer(["MYPORT"])("3.2 m MYPORT", "320 cm myport")).toBe("same");
  });

  it('answers "not_quantities" unless both values are quantities', () => {
    expect(compareQuantities("2.08x", "2.08x")).toBe("not_quantities");
    expect(compareQuantities("17.1 ft", "tall")).toBe("not_quantities");
    expect(compareQuantities(17.1, "17.1 ft")).toBe("not_quantities");
    expect(compareQuantities(true, false)).toBe("not_quantities");
    expect(compareQuantities(null, "1 m")).toBe("not_quantities");
  });

  it('answers "different" across dimensions, and compares through unit offsets', () => {
    expect(compareQuantities("17.1 ft", "17.1 s")).toBe("different");
    expect(compareQuantities("20 degC", "68 degF")).toBe("same");
    expect(compareQuantities("1250 cfs", "35.4 m^3/s")).toBe("same");
    expect(compareQuantities("1250 cfs", "36.4 m^3/s")).toBe("different");
  });

  it("tolerates the rounding of the less precise statement, and no more", () => {
    expect(compareQuantities("17.1 ft", "17.14 ft")).toBe("same");
    expect(compareQuantities("17.1 ft", "17.16 ft")).toBe("different");
    expect(compareQuantities("17.10 ft", "17.1 ft")).toBe("same");
  });

  it("compares series element by element, gaps aligned", () => {
    expect(compareQuantities({ value: [1, null, 3], unit: "m" }, { value: [100, null, 300], unit: "cm" })).toBe("same");
    expect(compareQuantities({ value: [1, null, 3], unit: "m" }, { value: [1, 2, 3], unit: "m" })).toBe("different");
    expect(compareQuantities({ value: [1, 2], unit: "m" }, { value: 1, unit: "m" })).toBe("different");
  });

  it("feeds sameValue: physical verdicts win over text", () => {
    expect(sameValue("17.1 ft", "5.212 m", compareQuantities)).toBe(true);
    expect(sameValue("17.1 ft", "18.6 ft", compareQuantities)).toBe(false);
    expect(sameValue("2.08x", "2.08 x", compareQuantities)).toBe(true);
  });
});

describe("halfUlp and readStatedQuantity", () => {
  it("gives half a unit in the last stated place", () => {
    expect(halfUlp("17.1")).toBeCloseTo(0.05, 12);
    expect(halfUlp("1,250")).toBe(0.5);
    expect(halfUlp("5e3")).toBe(500);
    expect(halfUlp("5.212")).toBeCloseTo(0.0005, 12);
  });

  it("refuses strings over 256 characters and objects that are not quantities", () => {
    expect(readStatedQuantity(`1 ${"m".repeat(300)}`)).toBeNull();
    expect(readStatedQuantity({ value: 1 })).toBeNull();
    expect(readStatedQuantity({ value: 1, unit: "m", colour: "red" })).toBeNull();
  });
});

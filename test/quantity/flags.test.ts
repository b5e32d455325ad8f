// A quantity's qualifier flags: read from and written to its JSON form, kept through a conversion, refused when
// malformed, and stored as one text for any order (flagsKey), so a reordering is never a revision.
import { describe, expect, it } from "vitest";
import { flagsKey, flagsWords } from "../../src/quantity/quality.js";
import { Quantity } from "../../src/quantity/quantity.js";

describe("quantity flags", () => {
  it("round-trips flags through JSON, keeps [] as stated, omits them when unknown, and keeps them through a conversion", () => {
    const q = Quantity.fromJSON({ value: 412000, unit: "cfs", quality: "unverified", flags: ["backwater", "ice"] });
    expect(q.flags).toEqual(["backwater", "ice"]);
    expect(q.toJSON()).toEqual({ value: 412000, unit: "cfs", quality: "unverified", flags: ["backwater", "ice"] });
    expect(Quantity.fromJSON({ value: 1, unit: "ft", flags: [] }).toJSON()).toEqual({
      value: 1,
      unit: "ft",
      flags: [],
    });
    expect(Quantity.fromJSON({ value: 1, unit: "ft" }).flags).toBeNull();
    expect(Quantity.fromJSON({ value: 1, unit: "ft", flags: null }).toJSON()).toEqual({ value: 1, unit: "ft" });
    expect(q.to("m^3/s").flags).toEqual(["backwater", "ice"]);
  });

  it("refuses flags that are not an array of short non-empty strings", () => {
    for (const flags of ["ice", [1], [""], [" "], { ice: true }, Array.from({ length: 33 }, () => "ice")])
      expect(() => Quantity.fromJSON({ value: 1, unit: "ft", flags })).toThrow(
        `a quantity's 'flags' must be an array of up to 32 qualifier names such as ["ice"], received ${JSON.stringify(flags)}`,
      );
  });

  it("stores the same flags in any order and case as one text, and unknown flags as null", () => {
    expect(flagsKey(["ice", "backwater"])).toBe('["backwater","ice"]');
    expect(flagsKey(["Backwater", " ICE", "ice"])).toBe('["backwater","ice"]');
    expect(flagsKey([])).toBe("[]");
    expect(flagsKey(null)).toBeNull();
    expect([flagsWords('["backwater","ice"]'), flagsWords("[]")]).toEqual(["backwater, ice", "none"]);
  });
});

import { describe, expect, it } from "vitest";
import {
  canonicalUnit,
  convertMagnitude,
  formatMagnitude,
  parseUnit,
  sameDimension,
  tryConvert,
} from "../../src/quantity/units.js";
import { Quantity } from "../../src/quantity/quantity.js";

const close = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected) / Math.abs(expected)).toBeLessThan(1e-9);

// Every unit of the spec's section 2 with its value in SI (m^3/s, m^3, m^2, m, m/s).
const TABLE: [string, number, string, number][] = [
  ["cfs", 1, "m^3/s", 0.028316846592],
  ["cusec", 1, "m^3/s", 0.028316846592],
  ["cusecs", 1, "m^3/s", 0.028316846592],
  ["cms", 1, "m^3/s", 1],
  ["cumec", 1, "m^3/s", 1],
  ["cumecs", 1, "m^3/s", 1],
  ["m**3/s", 1, "m^3/s", 1],
  ["m3/s", 1, "m^3/s", 1],
  ["ft3/s", 1, "m^3/s", 0.028316846592],
  ["ft**3/s", 1, "m^3/s", 0.028316846592],
  ["kcfs", 1.25, "cfs", 1250],
  ["mgd", 1, "m^3/s", 0.04381263638888889],
  ["us_mgd", 1, "Ml/d", 3.785411784],
  ["imperial_mgd", 1, "Ml/d", 4.54609],
  ["Ml/d", 1, "m^3/s", 0.011574074074074073],
  ["ML/d", 1, "m^3/s", 0.011574074074074073],
  ["megaliter/day", 1, "m^3/s", 0.011574074074074073],
  ["Mgal/d", 1, "mgd", 1],
  ["gallon/minute", 1000, "m^3/s", 0.0630901964],
  ["gpm", 1000, "m^3/s", 0.0630901964],
  ["sfd", 1, "m^3", 2446.5755455488],
  ["acre*ft", 1, "m^3", 1233.4867714896718],
  ["acre-ft", 1, "m^3", 1233.4867714896718],
  ["acre-feet", 5, "m^3", 5 * 1233.4867714896718],
  ["km**2", 1, "m^2", 1e6],
  ["mile**2", 1, "km^2", 2.589988110336],
  ["ft", 12.4, "m", 3.77952],
  ["inch", 0.75, "mm", 19.05],
  ["in", 1, "m", 0.0254],
  ["mm/day", 5, "m/s", 5.787037037037037e-8],
  ["mm/d", 5, "m/s", 5.787037037037037e-8],
  ["hours", 36, "s", 129600],
  ["MVA", 1, "VA", 1e6],
  ["kvar", 1, "var", 1000],
  ["degC", 21, "degF", 69.8],
  ["degF", 32, "K", 273.15],
  ["delta_degC", 3, "delta_degF", 5.4],
];

describe("unit registry", () => {
  it.each(TABLE)("converts %s (%d) into %s to 1e-9 relative", (from, value, to, expected) => {
    close(convertMagnitude(value, from, to), expected);
  });

  it("reads 1250 cfs as 35.39605824 m3/s", () => {
    close(Quantity.parse("1250 cfs").to("m^3/s").scalar, 35.39605824);
  });

  it("keeps mgd (US) and imperial_mgd apart by 20 percent", () => {
    close(convertMagnitude(1, "imperial_mgd", "mgd"), 4.54609 / 3.785411784);
  });

  it("keeps VA, var and W as three dimensions", () => {
    expect(sameDimension("VA", "W")).toBe(false);
    expect(sameDimension("var", "VA")).toBe(false);
    expect(() => convertMagnitude(1, "MVA", "W")).toThrowError(
      expect.objectContaining({ code: "dimensionality_error" }),
    );
  });

  it("keeps NTU, FNU and pH apart from each other and from percent", () => {
    for (const [a, b] of [
      ["NTU", "FNU"],
      ["NTU", "pH_unit"],
      ["FNU", "percent"],
    ] as const) {
      expect(sameDimension(a, b)).toBe(false);
    }
  });

  it("refuses to read a degree-scale temperature as a temperature difference", () => {
    expect(() => convertMagnitude(21, "degC", "delta_degC")).toThrowError(/temperature on a degree scale/);
  });

  it("normalises Python exponents, superscripts, hyphens and digit exponents to one canonical form", () => {
    expect(canonicalUnit("m**3/s")).toBe("m^3/s");
    expect(canonicalUnit("m³/s")).toBe("m^3/s");
    expect(canonicalUnit("m3 s-1")).toBe("m^3/s");
    expect(canonicalUnit("km2")).toBe("km^2");
    expect(canonicalUnit("acre-ft")).toBe("acre*ft");
    expect(canonicalUnit("°C")).toBe("degC");
    expect(canonicalUnit("us_mgd")).toBe("mgd");
    expect(canonicalUnit("imperial_mgd")).toBe("imperial_mgd");
  });

  it("answers canonical units that parse again to the same unit", () => {
    for (const [u] of TABLE) {
      const c = canonicalUnit(u);
      expect(canonicalUnit(c)).toBe(c);
    }
  });

  it("reports dimensions in words", () => {
    expect(parseUnit("cfs").dimension).toBe("[length]^3 [time]^-1");
    expect(parseUnit("ft").dimension).toBe("[length]");
  });

  it("refuses unknown units, numbers and expressions inside a unit with unit_parse_error", () => {
    for (const bad of ["furlongs/fortnight", "2*3", "cfs+1", "sqrt(m)", "import(x)", "m^1e308", "x".repeat(300)]) {
      expect(() => parseUnit(bad), bad).toThrowError(expect.objectContaining({ code: "unit_parse_error" }));
    }
  });
});

describe("quantity strings", () => {
  it.each([
    ["1250 cfs", 1250, "cfs"],
    ["1,250 cfs", 1250, "cfs"],
    ["1e3 cfs", 1000, "cfs"],
    ["1.25e3 cfs", 1250, "cfs"],
    [" 1250 cfs ", 1250, "cfs"],
    ["12.4ft", 12.4, "ft"],
    ["1250 ft3/s", 1250, "ft^3/s"],
    ["150000 acre-ft", 150000, "acre*ft"],
    ["5 Ml/d", 5, "Ml/d"],
    ["-3.5 m", -3.5, "m"],
  ])("reads %j", (text, value, unit) => {
    const q = Quantity.parse(text);
    expect(q.value).toBe(value);
    expect(q.unit).toBe(unit);
  });

  it("refuses 2*3 cfs instead of evaluating it", () => {
    expect(() => Quantity.parse("2*3 cfs")).toThrowError(expect.objectContaining({ code: "unit_parse_error" }));
  });

  it("refuses a number without a unit", () => {
    expect(() => Quantity.parse("1250")).toThrowError(/'1250' carries no unit/);
  });

  it("refuses NaN, infinities and overflow", () => {
    for (const bad of ["NaN cfs", "Infinity cfs", "1e999 cfs", "abc cfs", "1250 cfs extra"]) {
      expect(() => Quantity.parse(bad), bad).toThrowError(expect.objectContaining({ code: "unit_parse_error" }));
    }
  });
});

describe("reciprocal units (review)", () => {
  it("spells a unit with no numerator so that it parses again: s^-1, day^-1, m^-2*s^-1", () => {
    expect(canonicalUnit("s^-1")).toBe("s^-1");
    expect(canonicalUnit("day**-1")).toBe("day^-1");
    expect(canonicalUnit("m^-2*s^-1")).toBe("m^-2*s^-1");
    for (const u of ["s^-1", "day^-1", "m^-2*s^-1"]) expect(canonicalUnit(canonicalUnit(u))).toBe(canonicalUnit(u));
  });
  it("converts between reciprocal units: 1 day^-1 is 1/86400 s^-1", () => {
    close(convertMagnitude(1, "day^-1", "s^-1"), 1 / 86400);
  });
  it("answers a pure number divided by a time in a unit it accepts again", () => {
    const r = new Quantity(1, "").div(new Quantity(2, "s"));
    expect(r.toJSON()).toEqual({ value: 0.5, unit: "s^-1" });
  });
});

describe("magnitudes in messages (%g, spec 1.5)", () => {
  it.each([
    [35.39605824, "35.3961"],
    [2915830, "2.91583e+06"],
    [-2915830, "-2.91583e+06"],
    [0.0001, "0.0001"],
    [0.00001234, "1.234e-05"],
    [1250, "1250"],
    [0, "0"],
    // %g decides between fixed and exponent form after rounding to six figures.
    [999999.7, "1e+06"],
    [0.000099999999, "0.0001"],
  ])("formats %d as %s", (value, text) => {
    expect(formatMagnitude(value)).toBe(text);
  });
});

describe("degree scales inside other units (review)", () => {
  it("refuses a power of a degree-scale temperature as it refuses a compound: degC^2, degF^-1", () => {
    for (const u of ["degC^2", "degF^-1", "degC/s"]) {
      expect(() => parseUnit(u), u).toThrowError(
        /a degree-scale temperature cannot be part of a compound unit; use delta_degC or K/,
      );
    }
    expect(parseUnit("K^2").dimension).toBe("[temperature]^2");
  });
});

describe("tryConvert", () => {
  it("converts like convertMagnitude and answers null, never throwing, where no conversion exists", () => {
    expect(tryConvert(1250, "cfs", "m^3/s")).toBeCloseTo(35.39605824, 9);
    expect(tryConvert(1, "ft", "s")).toBeNull();
    expect(tryConvert(21, "degC", "delta_degC")).toBeNull();
    expect(tryConvert(1, "furlongs", "m")).toBeNull();
  });
});

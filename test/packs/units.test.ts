import { describe, expect, it } from "vitest";
import { canonicalUnit, convertMagnitude } from "../../src/quantity/units.js";
import {
  EA_UNIT_NAMES,
  USGS_UNIT_CODES,
  eaUnit,
  extendEaUnits,
  extendUsgsUnits,
  usgsUnit,
} from "../../src/packs/units.js";

const code = (c: string) => expect.objectContaining({ code: c });

describe("USGS unit codes", () => {
  it("maps every code in the table to a unit the registry reads", () => {
    for (const [k, unit] of Object.entries(USGS_UNIT_CODES)) expect(usgsUnit(k)).toBe(canonicalUnit(unit));
    expect(Object.keys(USGS_UNIT_CODES)).toHaveLength(24);
  });
  it.each([
    ["ft3/s", "ft^3/s"],
    ["in", "inch"],
    ["deg C", "degC"],
    ["uS/cm @25C", "uS/cm"],
    ["std units", "pH"],
    ["ac-ft", "acre*ft"],
    ["ft/sec", "ft/s"],
    ["%", "percent"],
    ["tons/day", "ton/day"],
    ["mi2", "mi^2"],
  ])("reads %s as %s", (k, unit) => {
    expect(usgsUnit(k)).toBe(unit);
  });
  it("falls back to a case-insensitive match after the exact key", () => {
    expect(usgsUnit("FT3/S")).toBe("ft^3/s");
    expect(usgsUnit("deg c")).toBe("degC");
    expect(usgsUnit("Std Units")).toBe("pH");
  });
  it("converts the customary codes by their definitions", () => {
    expect(convertMagnitude(1, usgsUnit("in/hr"), "mm/hour")).toBeCloseTo(25.4, 12);
    expect(convertMagnitude(1, usgsUnit("ft3/s"), "m^3/s")).toBeCloseTo(0.028316846592, 12);
  });
  it("refuses an unmapped code, naming it and the table to extend", () => {
    expect(() => usgsUnit("furlongs/fortnight")).toThrowError(code("unit_parse_error"));
    expect(() => usgsUnit("furlongs/fortnight")).toThrowError(
      "unmapped USGS unit code 'furlongs/fortnight'; add it to the USGS unit codes (extendUsgsUnits) with the unit it stands for",
    );
  });
  it("extends the table as data without changing the default one", () => {
    const t = extendUsgsUnits({ "ft3/d": "ft^3/day" });
    expect(usgsUnit("ft3/d", t)).toBe("ft^3/day");
    expect(() => usgsUnit("ft3/d")).toThrowError(code("unit_parse_error"));
  });
  it("refuses an extension whose target is not a unit, when it is added", () => {
    expect(() => extendUsgsUnits({ blarg: "blargs" })).toThrowError(
      /^USGS unit code 'blarg' maps to 'blargs', which is not a unit/,
    );
  });
});

describe("Environment Agency unit names", () => {
  it("reads mASD on the station datum and mAOD on ODN", () => {
    expect(eaUnit("mASD")).toEqual({ unit: "m", surface: "station" });
    expect(eaUnit("mAOD")).toEqual({ unit: "m", surface: "datum", datum: "ODN" });
    expect(eaUnit("m3/s")).toEqual({ unit: "m^3/s", surface: null });
    expect(eaUnit("---")).toEqual({ unit: "", surface: null });
  });
  it("maps every name in the table to a unit the registry reads", () => {
    for (const [k, s] of Object.entries(EA_UNIT_NAMES))
      expect(eaUnit(k).unit).toBe(s.unit === "" ? "" : canonicalUnit(s.unit));
    expect(Object.keys(EA_UNIT_NAMES)).toHaveLength(16);
  });
  it("reads Ml/d as megalitres a day", () => {
    expect(convertMagnitude(1, eaUnit("Ml/d").unit, "m^3/day")).toBeCloseTo(1000, 9);
  });
  it("matches exactly: masd is not mASD", () => {
    expect(() => eaUnit("masd")).toThrowError(
      "unmapped Environment Agency unit 'masd'; add it to the Environment Agency unit names (extendEaUnits) with the unit it stands for",
    );
  });
  it("leaves mBDAT unmapped on purpose and says why", () => {
    expect(() => eaUnit("mBDAT")).toThrowError(
      "unmapped Environment Agency unit 'mBDAT': it is left unmapped on purpose, since metres below a datum are measured downward, so reading one as a level would invert its sign",
    );
  });
  it("extends the table as data, for example a level above Belfast datum", () => {
    const t = extendEaUnits({ mABD: { unit: "m", surface: "datum", datum: "BELFAST" } });
    expect(eaUnit("mABD", t)).toEqual({ unit: "m", surface: "datum", datum: "BELFAST" });
    expect(() => extendEaUnits({ x: { unit: "blargs", surface: null } })).toThrowError(
      /^Environment Agency unit 'x' maps to 'blargs', which is not a unit/,
    );
  });
});

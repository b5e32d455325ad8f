// Every UCUM code we advertise is checked by an independent UCUM implementation (@lhncbc/ucum-lhc, from the US
// National Library of Medicine): it must be valid UCUM and mean the same amount as our unit.
import ucum from "@lhncbc/ucum-lhc";
import { describe, expect, it } from "vitest";
import { convertMagnitude } from "../../src/quantity/units.js";
import { ucumCode } from "../../src/quantity/ucum.js";

const utils = ucum.UcumLhcUtils.getInstance();

/** Each unit beside a unit of the same dimension, so both sides convert one to the other. */
const PAIRS: [string, string][] = [
  ["cfs", "m^3/s"],
  ["ft^3/s", "cms"],
  ["cms", "L/s"],
  ["mgd", "m^3/s"],
  ["imperial_mgd", "m^3/s"],
  ["gpm", "L/s"],
  ["Mgal", "m^3"],
  ["acreft", "m^3"],
  ["sfd", "m^3"],
  ["ft", "m"],
  ["in", "mm"],
  ["mi", "km"],
  ["yd", "m"],
  ["km^2", "m^2"],
  ["mi^2", "km^2"],
  ["acre", "m^2"],
  ["ha", "m^2"],
  ["mm/h", "m/s"],
  ["in/d", "mm/h"],
  ["mph", "m/s"],
  ["degC", "K"],
  ["degF", "K"],
  ["kPa", "Pa"],
  ["psi", "kPa"],
  ["bar", "Pa"],
  ["mg/L", "g/m^3"],
  ["uS/cm", "S/m"],
  ["lb/day", "kg/s"],
  ["Wh", "J"],
  ["percent", ""],
  ["kilometer", "m"],
  ["s^-1", "min^-1"],
];

describe("UCUM codes for our units", () => {
  it("writes the USGS units as the USGS Water Data APIs' UCUM does", () => {
    expect(ucumCode("ft^3/s")).toBe("[ft_i]3/s");
    expect(ucumCode("cfs")).toBe("[ft_i]3/s");
    expect(ucumCode("ft")).toBe("[ft_i]");
    expect(ucumCode("in")).toBe("[in_i]");
    expect(ucumCode("degC")).toBe("Cel");
    expect(ucumCode("uS/cm")).toBe("uS/cm");
    expect(ucumCode("km^2")).toBe("km2");
    expect(ucumCode("m^3/s")).toBe("m3/s");
  });

  it.each(PAIRS)("%s has a valid UCUM code that converts to %s as we do", (unit, other) => {
    const code = ucumCode(unit);
    const otherCode = ucumCode(other);
    expect(code, unit).toBeDefined();
    expect(otherCode, other).toBeDefined();
    expect(utils.validateUnitString(code as string).status, `${unit} -> ${code}`).toBe("valid");
    const theirs = utils.convertUnitTo(code as string, 1, otherCode as string);
    expect(theirs.status, theirs.msg.join("; ")).toBe("succeeded");
    const ours = convertMagnitude(1, unit, other);
    expect(Math.abs((theirs.toVal as number) - ours) / Math.abs(ours)).toBeLessThan(1e-9);
  });

  it("gives no code to a unit that has no UCUM form rather than a near one", () => {
    expect(ucumCode("NTU")).toBeUndefined();
    expect(ucumCode("FNU")).toBeUndefined();
    expect(ucumCode("delta_degC")).toBeUndefined();
    expect(ucumCode("VA")).toBeUndefined();
    expect(ucumCode("kWh")).toBeUndefined();
    expect(ucumCode("cfs^2")).toBeUndefined();
    expect(ucumCode("not a unit")).toBeUndefined();
  });

  it("writes a dimensionless quantity as 1 and a composite divisor in parentheses", () => {
    expect(ucumCode("")).toBe("1");
    expect(ucumCode("m/cfs")).toBe("m/([ft_i]3/s)");
    expect(utils.validateUnitString("m/([ft_i]3/s)").status).toBe("valid");
  });
});

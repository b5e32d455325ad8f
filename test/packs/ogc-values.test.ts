// The OGC API's fields as our values, each mapping pinned: units (an unknown one refused with its text), approval
// status to quality (null never approved), qualifiers as a string, an array or null, and the site's time zone.
import { describe, expect, it } from "vitest";
import { flagsOf, gradeOf, ianaZone, ogcUnit, qualifiersOf, qualityOf } from "../../src/packs/ogc/values.js";

describe("OGC field mappings", () => {
  it("maps unit_of_measure to our units: ft^3/s and cfs are cfs, ft, in, degC, uS/cm, mg/l", () => {
    expect(["ft^3/s", "cfs", "ft", "in", "degC", "deg C", "uS/cm", "mg/l"].map(ogcUnit)).toEqual([
      "ft^3/s",
      "ft^3/s",
      "ft",
      "inch",
      "degC",
      "degC",
      "uS/cm",
      "mg/L",
    ]);
  });

  it("refuses an unknown or missing unit_of_measure quoting its text, never guessing", () => {
    expect(() => ogcUnit("furlongs")).toThrow(
      'USGS unit_of_measure "furlongs" is not one this service maps to a unit, so the value is not read rather than ' +
        "guessed; add it to OGC_UNITS with the unit it stands for",
    );
    expect(() => ogcUnit(null)).toThrow("USGS unit_of_measure null is not one this service maps to a unit");
  });

  it("reads qualifiers as a string (split on commas), an array, or null, and maps them to flags once each", () => {
    expect(qualifiersOf("e, Bkw")).toEqual(["e", "Bkw"]);
    expect(qualifiersOf(["Ice", "A"])).toEqual(["Ice", "A"]);
    expect(qualifiersOf(null)).toEqual([]);
    expect(flagsOf(["e", "Bkw", "ICE", "Ice", "Xyz"])).toEqual(["estimated", "backwater", "ice", "xyz"]);
  });

  it("maps approval_status to quality, a null status to unknown (never approved), and weakens the grade by the flags", () => {
    expect([qualityOf("Approved", []), qualityOf("Provisional", []), qualityOf(null, [])]).toEqual([
      "approved",
      "provisional",
      "unknown",
    ]);
    expect(qualityOf("Approved", ["estimated"])).toBe("estimated");
    expect([gradeOf("unknown", []), gradeOf("approved", ["ice"]), gradeOf("approved", [])]).toEqual([
      "unverified",
      "unverified",
      "approved",
    ]);
  });

  it("maps the site's time zone abbreviation and daylight saving to an IANA zone, and an unknown one to null", () => {
    expect([ianaZone("CST", "Y"), ianaZone("MST", "N"), ianaZone("XYZ", "N")]).toEqual([
      "America/Chicago",
      "America/Phoenix",
      null,
    ]);
  });
});

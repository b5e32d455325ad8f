import { describe, expect, it } from "vitest";
import { type Literal, literalsIn, numberValuesIn, readUnit } from "../../src/guard/tokenise.js";

/** The literal as the audit shows it: text, value, precision and the unit as written and as parsed. */
function seen(text: string) {
  return literalsIn(text).map((l: Literal) => ({
    text: text.slice(l.start, l.unit && !l.unit.shared ? l.unit.end : l.numberEnd),
    value: l.value,
    unit: l.unit ? l.unit.text : null,
  }));
}

describe("numeric literals (spec 6.6.1)", () => {
  it("never reads the digits of a name: NAVD88, NGVD29, v2, H2O", () => {
    expect(literalsIn("Elevations on NAVD88 and NGVD29, model v2, pure H2O.")).toEqual([]);
  });

  it("drops commas from the value: 1,250 cfs is 1250", () => {
    expect(seen("a flow of 1,250 cfs")).toEqual([{ text: "1,250 cfs", value: 1250, unit: "cfs" }]);
  });

  it("keeps a trailing comma in the text of a bare literal: 1993,", () => {
    expect(seen("In 1993, the peak was 1250 cfs.")).toEqual([
      { text: "1993,", value: 1993, unit: null },
      { text: "1250 cfs", value: 1250, unit: "cfs" },
    ]);
  });

  it("does not make a plus sign part of the number", () => {
    expect(seen("+4.06 ft")).toEqual([{ text: "4.06 ft", value: 4.06, unit: "ft" }]);
  });

  it("reads the precision written: 17 has 0 decimals, 17.0 has 1, 7.730 has 3", () => {
    expect(literalsIn("17 ft, 17.0 ft, 7.730 ft").map((l) => l.decimals)).toEqual([0, 1, 3]);
  });

  it("marks a single significant figure: 8 and 1e3 are single figures, 13 and 1.2e3 are not", () => {
    expect(literalsIn("8 ft, 13 ft, 1e3 cfs, 1.2e3 cfs").map((l) => l.singleFigure)).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });

  it("notes a hyphen and a letter after the number: 50-year", () => {
    const [l] = literalsIn("a 50-year-old survey");
    expect(l).toMatchObject({ value: 50, hyphenWord: true, unit: null });
  });
});

describe("unit tokens (spec 6.6.1)", () => {
  it("reads a unit with or without a space, with exponents and a slash", () => {
    expect(seen("12.4ft, 35.4 m3/s, 1250 ft^3/s, 12 ft**3/s, 3.7 mm / d, 29000 km²")).toEqual([
      { text: "12.4ft", value: 12.4, unit: "ft" },
      { text: "35.4 m3/s", value: 35.4, unit: "m3/s" },
      { text: "1250 ft^3/s", value: 1250, unit: "ft^3/s" },
      { text: "12 ft**3/s", value: 12, unit: "ft**3/s" },
      { text: "3.7 mm / d", value: 3.7, unit: "mm / d" },
      { text: "29000 km²", value: 29000, unit: "km²" },
    ]);
  });

  it("reads acre-ft and acre-feet as one word, and 50-year as no unit", () => {
    expect(seen("150000 acre-ft, 5 acre-feet, a 50-year flood")).toEqual([
      { text: "150000 acre-ft", value: 150000, unit: "acre-ft" },
      { text: "5 acre-feet", value: 5, unit: "acre-feet" },
      { text: "50", value: 50, unit: null },
    ]);
  });

  it("drops every stop word as a unit", () => {
    const stop =
      "and or of to the an on is was for from by with per about above below over under than utc gage gauge station site times x no not so if we it its that this then were";
    for (const word of stop.split(" ")) expect(readUnit(`1250 ${word} more`, 4), word).toBeNull();
  });

  it("leaves the number bare after a word that is not a unit: sites, properties, total, reports", () => {
    expect(seen("45 sites, 46 properties, 47 total, 48 reports, 36 hours").map((s) => s.unit)).toEqual([
      null,
      null,
      null,
      null,
      "hours",
    ]);
  });

  it("leaves the number bare after a unit that parses as a pure number: %, percent, mm/m, degrees", () => {
    expect(seen("20.03 %, 20.03%, 21 percent, 1000 mm/m, 45 degrees").map((s) => s.unit)).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it("retries an all-capitals unit in lower case: CFS reads as cfs", () => {
    const [l] = literalsIn("1250 CFS");
    expect(l!.unit).toMatchObject({ text: "CFS", unit: "cfs" });
  });

  it("reads words that happen to be units as units: 12 are is 12 ares", () => {
    const [l] = literalsIn("12 are");
    expect(l!.unit).toMatchObject({ text: "are", unit: "dam^2", dimension: "[length]^2", ambiguous: false });
  });

  it("reads British spellings pint knows and mathjs does not: metres, megalitres", () => {
    expect(literalsIn("0.783 metres and 1,350 megalitres").map((l) => l.unit?.unit)).toEqual(["m", "ML"]);
  });

  it("flags a, am, as, at, in and pm as ambiguous, with the unit pint gives each", () => {
    const units = literalsIn("1 a, 2 am, 3 as, 4 at, 5 in, 6 pm").map((l) => [
      l.unit?.text,
      l.unit?.unit,
      l.unit?.ambiguous,
    ]);
    expect(units).toEqual([
      ["a", "year", true],
      ["am", "am", true],
      ["as", "as", true],
      ["at", "kgf/cm^2", true],
      ["in", "in", true],
      ["pm", "pm", true],
    ]);
  });

  it("reads a unit of several words before its first word", () => {
    expect(
      seen(
        "150000 acre feet; 1250 cubic feet per second; 11,197 square miles; 12 degrees Celsius; 35.4 cubic metres per second; 3 feet per second",
      ),
    ).toEqual([
      { text: "150000 acre feet", value: 150000, unit: "acre feet" },
      { text: "1250 cubic feet per second", value: 1250, unit: "cubic feet per second" },
      { text: "11,197 square miles", value: 11197, unit: "square miles" },
      { text: "12 degrees Celsius", value: 12, unit: "degrees Celsius" },
      { text: "35.4 cubic metres per second", value: 35.4, unit: "cubic metres per second" },
      { text: "3 feet per second", value: 3, unit: "feet per second" },
    ]);
    expect(literalsIn("150000 acre feet")[0]!.unit!.unit).toBe("acre*ft");
  });

  it("reads '<unit> per <unit>' as a rate, and falls back to the first word when the pair is no unit", () => {
    expect(seen("3.7 mm per day, 1250 cfs per USGS")).toEqual([
      { text: "3.7 mm per day", value: 3.7, unit: "mm per day" },
      { text: "1250 cfs", value: 1250, unit: "cfs" },
    ]);
  });
});

describe("scientific notation, thousands, negatives and ranges (our reading)", () => {
  it("reads 1e3 as 1000 with the unit after it, not 1 with unit e3", () => {
    expect(seen("1e3 cfs")).toEqual([{ text: "1e3 cfs", value: 1000, unit: "cfs" }]);
  });

  it("reads every written power of ten as one number", () => {
    const text = "1.2e3 cfs, 1.2E3 cfs, 1.2×10^3 cfs, 1.2 x 10^3 cfs, 1.2*10^3 cfs, 1.2×10³ cfs, 1.2 × 10**3 cfs";
    expect(seen(text).map((s) => [s.value, s.unit])).toEqual(Array(7).fill([1200, "cfs"]));
    expect(literalsIn(text).map((l) => l.decimals)).toEqual(Array(7).fill(-2));
  });

  it("reads a negative power of ten: 2.5E-3 m and 6.5 × 10⁻⁹ MWh", () => {
    expect(seen("2.5E-3 m and 6.5 × 10⁻⁹ MWh")).toEqual([
      { text: "2.5E-3 m", value: 0.0025, unit: "m" },
      { text: "6.5 × 10⁻⁹ MWh", value: 6.5e-9, unit: "MWh" },
    ]);
  });

  it("reads thousands separators in groups of three: 29,000 and 1,125,810, but 12,34 is two numbers", () => {
    expect(numberValuesIn("29,000 km2 and 1,125,810 acre-ft and 12,34")).toEqual([29000, 1125810, 12, 34]);
  });

  it("reads a minus at the start, after a space, or a Unicode minus as a sign", () => {
    expect(numberValuesIn("-4.06 ft, then -4.06 ft and (−0.44 ft)")).toEqual([-4.06, -4.06, -0.44]);
  });

  it("does not read the hyphen of a range or a date as a minus", () => {
    expect(numberValuesIn("1200-1300 and 2024-05-01")).toEqual([1200, 1300, 2024, 5, 1]);
  });

  it("gives both numbers of a range the unit: hyphen, en dash, and 'to'", () => {
    expect(seen("1200-1300 cfs; 1200–1300 cfs; 1,200 to 1,300 cfs")).toEqual([
      { text: "1200", value: 1200, unit: "cfs" },
      { text: "1300 cfs", value: 1300, unit: "cfs" },
      { text: "1200", value: 1200, unit: "cfs" },
      { text: "1300 cfs", value: 1300, unit: "cfs" },
      { text: "1,200", value: 1200, unit: "cfs" },
      { text: "1,300 cfs", value: 1300, unit: "cfs" },
    ]);
  });

  it("reads no range where the first number is not the smaller, or a spaced hyphen separates them", () => {
    expect(seen("converted 1250 to 35.4 m3/s; 31.0 - 12.4 ft")).toEqual([
      { text: "1250", value: 1250, unit: null },
      { text: "35.4 m3/s", value: 35.4, unit: "m3/s" },
      { text: "31.0", value: 31, unit: null },
      { text: "12.4 ft", value: 12.4, unit: "ft" },
    ]);
  });

  it("reads the question's numbers with identifiers and years included", () => {
    expect(numberValuesIn("For USGS station 07374000, in 1993, the 29,000 km2 basin?")).toEqual([7374000, 1993, 29000]);
  });
});

describe("words named like Object members (review)", () => {
  it("reads 'constructor' after a number as prose, not as a unit, and does not throw", () => {
    expect(readUnit("1250 constructor", 4)).toBeNull();
    expect(seen("The 1250 constructor built it")).toEqual([{ text: "1250", value: 1250, unit: null }]);
  });
});

import { describe, expect, it } from "vitest";
import {
  type AuditItem,
  type AuditOptions,
  auditAnswer,
  auditReport,
  close,
  roundDecimal,
} from "../../src/provenance/audit.js";
import type { PriorOutput } from "../../src/guard/history.js";
import { dimensionKey, toSI } from "../../src/quantity/units.js";

type Out = [value: number, unit: string, tool: string, field?: string];

/** Scalar outputs in ledger order, as the store records them; call ids c1, c2, ... */
function ledger(...outs: Out[]): PriorOutput[] {
  return outs.map(([value, unit, tool, field = "return"], i) => ({
    callId: `c${i + 1}`,
    seq: i + 1,
    tool,
    field,
    value,
    unit,
    valueSi: toSI(value, unit),
    dimension: dimensionKey(unit),
    datum: null,
    quality: null,
  }));
}

const discharge = ledger([1250, "cfs", "read_discharge"], [29000, "km^2", "read_drainage_area"]);
const levee = ledger([31.0, "ft", "read_crest"], [12.4, "ft", "read_stage"]);

/** The audit of one answer, every item. */
const audit = (answer: string, outputs: PriorOutput[], options?: AuditOptions) => auditAnswer(answer, outputs, options);

/** The single audited item of an answer that holds one number. */
function only(answer: string, outputs: PriorOutput[], options?: AuditOptions): AuditItem {
  const { numbers } = audit(answer, outputs, options);
  expect(numbers).toHaveLength(1);
  return numbers[0]!;
}

/** The status and explanation of each item, in text order. */
const verdicts = (answer: string, outputs: PriorOutput[], options?: AuditOptions) =>
  audit(answer, outputs, options).numbers.map((n) => [n.text, n.status, n.explanation]);

const FROM_DISCHARGE = "from read_discharge.return";
const UNSOURCED = "no tool output produced this value";
const QUOTED = "repeated back from the question";

describe("tokenising the answer (spec 6.6.1)", () => {
  it("never audits the digits inside NAVD88 or NGVD29", () => {
    expect(audit("Stage on NAVD88, crest on NGVD29.", levee)).toEqual({ ok: true, numbers: [] });
  });

  it("reads 1,250 cfs as 1250 cfs and traces it to the discharge read", () => {
    expect(only("The flow is 1,250 cfs.", discharge)).toEqual({
      text: "1,250 cfs",
      value: 1250,
      unit: "cfs",
      status: "sourced",
      source: "read_discharge.return",
      callId: "c1",
      callIds: ["c1"],
      explanation: FROM_DISCHARGE,
      start: 12,
      end: 21,
    });
  });

  it("keeps the comma of '1993,' in the item text", () => {
    const [year] = audit("In 1993, the peak was 1250 cfs.", discharge).numbers;
    expect(year).toMatchObject({
      text: "1993,",
      value: 1993,
      unit: null,
      status: "ignored",
      explanation: "a year",
      start: 3,
      end: 8,
    });
  });

  it("audits '12 are' as 12 ares: unsourced against a discharge ledger", () => {
    expect(only("12 are", discharge)).toMatchObject({
      text: "12 are",
      value: 12,
      unit: "are",
      status: "unsourced",
      explanation: UNSOURCED,
    });
  });

  it("audits '12 are' as 12 ares: sourced against a 1200 m² output", () => {
    expect(only("12 are", ledger([1200, "m^2", "read_plot_area"]))).toMatchObject({
      unit: "are",
      status: "sourced",
      explanation: "from read_plot_area.return",
    });
  });

  it("treats a number before a non-unit word as bare: '45 sites' is bare 45", () => {
    expect(only("45 sites", discharge)).toMatchObject({ text: "45", value: 45, unit: null, status: "unsourced" });
  });

  it("treats a stop word as no unit: '1250 to' matches the discharge as a bare number", () => {
    expect(only("rose 1250 to the peak", discharge)).toMatchObject({
      text: "1250",
      unit: null,
      status: "sourced",
      explanation: FROM_DISCHARGE,
    });
  });

  it("treats % as a pure number, so 20.03 % is bare and matches a raw 20.03", () => {
    expect(only("a share of 20.03 %", ledger([20.03, "percent", "abstraction_fraction"]))).toMatchObject({
      text: "20.03",
      unit: null,
      status: "sourced",
    });
  });

  it("retries an all-capitals unit in lower case: 1250 CFS is sourced", () => {
    expect(only("1250 CFS", discharge)).toMatchObject({ text: "1250 CFS", unit: "CFS", status: "sourced" });
  });

  it("audits 36 hours as a unit and finds it in the question", () => {
    expect(
      only("over the next 36 hours", discharge, { context: "What is the peak in the next 36 hours?" }),
    ).toMatchObject({
      text: "36 hours",
      unit: "hours",
      status: "quoted",
      explanation: QUOTED,
    });
  });
});

describe("ambiguous unit words (a, am, as, at, in, pm)", () => {
  it("reads '0.75 in' as inches when that matches 19.05 mm converted", () => {
    expect(only("0.75 in of rain", ledger([19.05, "mm", "read_rainfall"]))).toMatchObject({
      text: "0.75 in",
      unit: "in",
      status: "sourced",
      source: "read_rainfall.return",
      explanation: "from read_rainfall.return",
    });
  });

  it("reads 'in' as prose when no length output connects: '1250 in the river' is bare and sourced", () => {
    expect(only("1250 in the river", discharge)).toMatchObject({
      text: "1250",
      unit: null,
      status: "sourced",
      explanation: FROM_DISCHARGE,
    });
  });

  it("reads 'as' and 'at' as prose beside a discharge: '1250 as reported at 1250'", () => {
    expect(verdicts("1250 as reported, 1250 at the gage", discharge)).toEqual([
      ["1250", "sourced", FROM_DISCHARGE],
      ["1250", "sourced", FROM_DISCHARGE],
    ]);
  });

  it("reads 'in' as a unit when a length output has that raw magnitude, so '12.4 in' is mislabelled (spec: raw magnitude connects)", () => {
    expect(only("the stage was 12.4 in the morning", levee)).toMatchObject({
      text: "12.4 in",
      unit: "in",
      status: "unit_mislabelled",
      explanation: "magnitude matches read_stage.return but that value is in ft, not in",
    });
  });

  it("leaves a small count before a prose 'a' ignored: '6 a day'", () => {
    expect(only("6 a day", discharge)).toMatchObject({ text: "6", unit: null, status: "ignored" });
  });
});

describe("ignored numbers (spec 6.6.2)", () => {
  const IDENTIFIER = (word: string) => `an identifier: it follows "${word}"`;

  it("ignores a number joined to a word by a hyphen: 'a 50-year-old survey'", () => {
    expect(only("a 50-year-old survey", discharge)).toMatchObject({
      text: "50",
      status: "ignored",
      explanation: "a number joined to a word by a hyphen (as in 50-year), not a measured value",
    });
  });

  it("ignores the hyphenated modifier even with a decimal point: '2.5-inch pipe' (rule 1 comes before rule 2)", () => {
    expect(only("a 2.5-inch pipe", discharge)).toMatchObject({ text: "2.5", status: "ignored" });
  });

  it("audits a number written with a decimal point even after an identifier word: 'Station 45.0'", () => {
    expect(only("Station 45.0", discharge)).toMatchObject({ text: "45.0", status: "unsourced" });
  });

  it("ignores identifiers after station, gage, No., reference", () => {
    expect(verdicts("Station 07374000, Gage 4155, No. 4500, Reference 5000", discharge)).toEqual([
      ["07374000,", "ignored", IDENTIFIER("Station")],
      ["4155,", "ignored", IDENTIFIER("Gage")],
      ["4500,", "ignored", IDENTIFIER("No")],
      ["5000", "ignored", IDENTIFIER("Reference")],
    ]);
  });

  it("ignores identifiers after site, gauge and number", () => {
    expect(audit("site 4501 and gauge 4502 and number 4503", discharge).numbers.map((n) => n.status)).toEqual([
      "ignored",
      "ignored",
      "ignored",
    ]);
  });

  it("needs the identifier word at a word boundary: 'substation 4500' is audited", () => {
    expect(only("substation 4500", discharge)).toMatchObject({ text: "4500", status: "unsourced" });
  });

  it("ignores an identifier written as station=7374000 (punctuation after the word)", () => {
    expect(only("read_discharge(station=7374000)", discharge)).toMatchObject({
      text: "7374000",
      status: "ignored",
      explanation: IDENTIFIER("station"),
    });
  });

  it("audits a number further on than the identifier word: 'gage 07374000 reads 4500'", () => {
    expect(verdicts("gage 07374000 reads 4500", discharge)[1]).toEqual(["4500", "unsourced", UNSOURCED]);
  });

  it("ignores '#4500' as an identifier (the reference's # never matched)", () => {
    expect(only("#4500 applies", discharge)).toMatchObject({
      text: "4500",
      status: "ignored",
      explanation: IDENTIFIER("#"),
    });
  });

  it("ignores zero-padded integers and integers of 8 digits or more", () => {
    expect(verdicts("USGS 07374000 and 12345678 and 1234567", discharge)).toEqual([
      ["07374000", "ignored", "an identifier: it is written with a leading zero"],
      ["12345678", "ignored", "an identifier: it has 8 digits or more"],
      ["1234567", "unsourced", UNSOURCED],
    ]);
  });

  it("ignores years from 1800 to 2100 and audits 1799 and 2101", () => {
    expect(audit("1799 1800 1993 2100 2101", discharge).numbers.map((n) => n.status)).toEqual([
      "unsourced",
      "ignored",
      "ignored",
      "ignored",
      "unsourced",
    ]);
  });

  it("ignores small counts up to 31, negative ones too, and audits 32", () => {
    expect(verdicts("3 gauges, 31 gauges, -5 runs, 32 runs", discharge)).toEqual([
      ["3", "ignored", "a small count (31 or less), not a measured value"],
      ["31", "ignored", "a small count (31 or less), not a measured value"],
      ["-5", "ignored", "a small count (31 or less), not a measured value"],
      ["32", "unsourced", UNSOURCED],
    ]);
  });

  it("audits bare 45, 150000, 999999 and 4500", () => {
    expect(audit("45 150000 999999 4500", discharge).numbers.map((n) => n.status)).toEqual([
      "unsourced",
      "unsourced",
      "unsourced",
      "unsourced",
    ]);
  });

  it("never ignores a number with a unit: 12 ft is audited though 12 is small", () => {
    expect(only("12 ft", discharge)).toMatchObject({ text: "12 ft", status: "unsourced" });
  });
});

describe("precision (spec 6.6.3)", () => {
  const crest = ledger([17.1, "ft", "read_crest"]);

  it("'17 ft' restates 17.1 ft", () => {
    expect(only("17 ft", crest)).toMatchObject({ status: "sourced", explanation: "from read_crest.return" });
  });

  it("'17.0 ft' does not restate 17.1 ft", () => {
    expect(only("17.0 ft", crest)).toMatchObject({ status: "unsourced", explanation: UNSOURCED });
  });

  it("'1 kcfs' never matches 1250 cfs (1.25 kcfs): one significant figure is no restatement", () => {
    expect(only("about 1 kcfs", discharge)).toMatchObject({ text: "1 kcfs", status: "unsourced" });
  });

  it("'1.25 kcfs' matches 1250 cfs through conversion", () => {
    expect(only("1.25 kcfs", discharge)).toMatchObject({ status: "sourced", explanation: FROM_DISCHARGE });
  });

  it("'8 ft' does not match 7.6 ft", () => {
    expect(only("8 ft", ledger([7.6, "ft", "read_stage"]))).toMatchObject({ status: "unsourced" });
  });

  it("'13 ft' matches 12.6 ft by rounding", () => {
    expect(only("13 ft", ledger([12.6, "ft", "read_stage"]))).toMatchObject({ status: "sourced" });
  });

  it("'35 m3/s' matches 1250 cfs (35.396 m3/s) by rounding", () => {
    expect(only("35 m3/s", discharge)).toMatchObject({ status: "sourced", explanation: FROM_DISCHARGE });
  });

  it("'35.4 m3/s' and '35.4 cumecs' match 1250 cfs through conversion", () => {
    expect(verdicts("35.4 m3/s or 35.4 cumecs", discharge)).toEqual([
      ["35.4 m3/s", "sourced", FROM_DISCHARGE],
      ["35.4 cumecs", "sourced", FROM_DISCHARGE],
    ]);
  });

  it("matches within 0.5 %: 29100 km2 is sourced (0.34 %), 29200 km2 is not (0.69 %)", () => {
    expect(verdicts("29100 km2 then 29200 km2", discharge).map((v) => v[1])).toEqual(["sourced", "unsourced"]);
  });

  it("widens the match with the tolerance option: 29200 km2 is sourced at 1 %", () => {
    expect(only("29200 km2", discharge, { tolerance: 0.01 })).toMatchObject({ status: "sourced" });
  });

  it("matches zero only with zero", () => {
    const zero = ledger([0, "ft", "read_freeboard"]);
    expect(verdicts("0.0 ft and 0.001 ft", zero).map((v) => v[1])).toEqual(["sourced", "unsourced"]);
  });

  it("rounds a half away from zero on the decimal text: '0.13 m' restates 0.125 m, '0.12 m' does not", () => {
    const level = ledger([0.125, "m", "read_level"]);
    expect(verdicts("0.13 m or 0.12 m", level).map((v) => v[1])).toEqual(["sourced", "unsourced"]);
  });

  it("rounds half away from zero for negatives and on the shortest decimal form of a float", () => {
    expect(roundDecimal("-0.125", 2)).toBe(-13n);
    expect(roundDecimal("2.675", 2)).toBe(268n);
    expect(roundDecimal("1250", -2)).toBe(13n);
    expect(roundDecimal("6.5e-9", 10)).toBe(65n);
    expect(roundDecimal("0.004", 2)).toBe(0n);
    expect(roundDecimal("1e+21", -20)).toBe(10n);
    expect(roundDecimal("NaN", 2)).toBeNull();
  });

  it("applies the precision rule to the literal as written", () => {
    const lit = (value: number, decimals: number, singleFigure: boolean) => ({ value, decimals, singleFigure });
    expect(close(lit(17, 0, false), 17.1, 0.005)).toBe(true);
    expect(close(lit(17, 1, false), 17.1, 0.005)).toBe(false);
    expect(close(lit(1, 0, true), 1.25, 0.005)).toBe(false);
    expect(close(lit(7.73, 3, false), 7.7304, 0)).toBe(true);
  });
});

describe("classification order (spec 6.6.3)", () => {
  it("compares a bare number with raw magnitudes: bare 1250 is sourced, bare 35.4 is not", () => {
    expect(verdicts("1250 and 35.4", discharge)).toEqual([
      ["1250", "sourced", FROM_DISCHARGE],
      ["35.4", "unsourced", UNSOURCED],
    ]);
  });

  it("calls '1250 ft' after a 1250 cfs read mislabelled (another dimension)", () => {
    expect(only("1250 ft", discharge)).toEqual({
      text: "1250 ft",
      value: 1250,
      unit: "ft",
      status: "unit_mislabelled",
      source: "read_discharge.return",
      callId: "c1",
      callIds: ["c1"],
      explanation: "magnitude matches read_discharge.return but that value is in cfs, not ft",
      start: 0,
      end: 7,
    });
  });

  it("calls '1250 m3/s' after a 1250 cfs read mislabelled (same dimension, no conversion)", () => {
    expect(only("1250 m3/s", discharge)).toMatchObject({
      status: "unit_mislabelled",
      explanation: "magnitude matches read_discharge.return but that value is in cfs, not m3/s",
    });
  });

  it("prefers a later converted match to an earlier raw-magnitude match", () => {
    const outs = ledger([35.4, "ft", "read_stage"], [1250, "cfs", "read_discharge"]);
    expect(only("35.4 m3/s", outs)).toMatchObject({ status: "sourced", callId: "c2", explanation: FROM_DISCHARGE });
  });

  it("a mislabel beats a quote: '1250 m3/s' stays mislabelled when the question says 1250", () => {
    expect(only("1250 m3/s", discharge, { context: "Is 1250 a high flow?" })).toMatchObject({
      status: "unit_mislabelled",
    });
  });

  it("calls a number from the question quoted, unit-blind: '29,000 km2' with no area output", () => {
    const only_q = ledger([1250, "cfs", "read_discharge"]);
    expect(only("over 29,000 km2", only_q, { context: "What is the runoff over the 29,000 km2 basin?" })).toEqual({
      text: "29,000 km2",
      value: 29000,
      unit: "km2",
      status: "quoted",
      source: null,
      callId: null,
      callIds: [],
      explanation: QUOTED,
      start: 5,
      end: 15,
    });
  });

  it("uses only the context it is given for quotes: without it, the same number is unsourced", () => {
    expect(only("over 29,000 km2", ledger([1250, "cfs", "read_discharge"]))).toMatchObject({ status: "unsourced" });
  });

  it("prefers a tool output to the question: 1250 cfs in both is sourced", () => {
    expect(only("1250 cfs", discharge, { context: "Is 1250 cfs high?" })).toMatchObject({ status: "sourced" });
  });
});

describe("sign (spec 6.6.3)", () => {
  const freeboard = ledger([-4.06, "ft", "read_freeboard"]);
  const INVERTED =
    "magnitude matches read_freeboard.return, but that value is -4.06 and the answer states 4.06 with no wording that carries the sign; these describe opposite conditions";

  it("calls 4.06 ft against -4.06 ft sign-inverted when no word carries the sign", () => {
    expect(only("Freeboard is 4.06 ft.", freeboard)).toEqual({
      text: "4.06 ft",
      value: 4.06,
      unit: "ft",
      status: "sign_inverted",
      source: "read_freeboard.return",
      callId: "c1",
      callIds: ["c1"],
      explanation: INVERTED,
      start: 13,
      end: 20,
    });
  });

  it("sources 4.06 ft against -4.06 ft when a sign word follows: 'below the crest'", () => {
    expect(only("The water is 4.06 ft below the crest.", freeboard)).toMatchObject({
      status: "sourced",
      explanation: "from read_freeboard.return, with the sign in the wording",
    });
  });

  it("sources 4.06 ft against -4.06 ft when a sign word precedes: 'overtopped by'", () => {
    expect(only("The levee is overtopped by 4.06 ft.", freeboard)).toMatchObject({ status: "sourced" });
  });

  it("looks only 48 characters either side for the sign word", () => {
    const gap = (n: number) => "x".repeat(n - 1);
    // "below" then a space and n - 1 letters: the number starts n + 1 characters after the word ends.
    const near = `below ${gap(42)} 4.06 ft`;
    const far = `below ${gap(48)} 4.06 ft`;
    expect(only(near, freeboard)).toMatchObject({ status: "sourced" });
    expect(only(far, freeboard)).toMatchObject({ status: "sign_inverted" });
    expect(only(`4.06 ft ${gap(42)} below`, freeboard)).toMatchObject({ status: "sourced" });
    expect(only(`4.06 ft ${gap(48)} below`, freeboard)).toMatchObject({ status: "sign_inverted" });
  });

  it("sources -4.06 ft against -4.06 ft without any sign word", () => {
    expect(only("Freeboard: -4.06 ft", freeboard)).toMatchObject({
      value: -4.06,
      status: "sourced",
      explanation: "from read_freeboard.return",
    });
  });

  it("checks the sign of a bare number too: bare 4.06 is sign-inverted", () => {
    expect(only("Freeboard 4.06.", freeboard)).toMatchObject({
      text: "4.06",
      status: "sign_inverted",
      explanation: INVERTED,
    });
  });

  it("reads a Unicode minus: '−0.44 ft' matches a -0.44 ft offset", () => {
    expect(only("offset −0.44 ft", ledger([-0.44, "ft", "vertcon_offset"]))).toMatchObject({
      value: -0.44,
      status: "sourced",
    });
  });

  it("knows every sign word of the spec", () => {
    const words =
      "subtract subtracting less minus below under beneath down drop drops dropped fall falls fell decrease decreased decline declined deficit short shortfall lower lowered reduce reduced reduction negative loss lost deeper overtopped overtopping exceeds exceeded above";
    for (const w of words.split(" ")) expect(only(`4.06 ft ${w}`, freeboard).status, w).toBe("sourced");
    expect(only("4.06 ft beyond", freeboard).status).toBe("sign_inverted");
  });
});

describe("derived values (spec 6.6.4)", () => {
  const DERIVED = "an arithmetic combination of recorded outputs (read_crest.return - read_stage.return)";

  it("calls 18.6 ft derived from 31.0 ft - 12.4 ft, whatever the physics", () => {
    expect(only("Freeboard is 18.6 ft.", levee)).toEqual({
      text: "18.6 ft",
      value: 18.6,
      unit: "ft",
      status: "derived",
      source: null,
      callId: null,
      callIds: ["c1", "c2"],
      explanation: DERIVED,
      start: 13,
      end: 20,
    });
  });

  it("derives a bare number too: '18.6'", () => {
    expect(only("Freeboard is 18.6.", levee)).toMatchObject({ text: "18.6", status: "derived", explanation: DERIVED });
  });

  it("ignores the sign of a derived value: '-18.6 ft' is derived", () => {
    expect(only("-18.6 ft", levee)).toMatchObject({ status: "derived" });
  });

  it("derives sums, through conversion: 43.4 ft is 13.228 m", () => {
    expect(only("13.23 m", levee)).toMatchObject({
      status: "derived",
      callIds: ["c1", "c2"],
      explanation: "an arithmetic combination of recorded outputs (read_crest.return + read_stage.return)",
    });
  });

  it("holds derived matches to 0.1 %: 18.61 ft is derived, 18.62 ft is not", () => {
    expect(verdicts("18.61 ft or 18.62 ft", levee).map((v) => v[1])).toEqual(["derived", "unsourced"]);
  });

  it("derives by rounding too: '19 ft' restates 18.6 ft", () => {
    expect(only("19 ft", levee)).toMatchObject({ status: "derived" });
  });

  it("counts twice an output as derived (x + x) with one call id", () => {
    expect(only("62.0 ft", levee)).toMatchObject({ status: "derived", callIds: ["c1"] });
  });

  it("never derives a product: 3.9 MW over 6 h is not 23.4 MWh", () => {
    expect(only("23.4 MWh", ledger([3.9, "MW", "read_plant_output"], [6, "h", "read_dispatch_window"]))).toMatchObject({
      status: "unsourced",
    });
  });

  it("never mixes dimensions: 1250 cfs and 29000 km² give no 30250", () => {
    expect(verdicts("30250 or 30250 cfs", discharge).map((v) => v[1])).toEqual(["unsourced", "unsourced"]);
  });

  it("takes one step only: the sum of three outputs is not derived", () => {
    const three = ledger([10.1, "ft", "a"], [20.2, "ft", "b"], [30.4, "ft", "c"]);
    expect(only("60.7 ft", three)).toMatchObject({ status: "unsourced" });
  });

  it("never adds two points on a degree scale: 50.5 °C is not 30.2 °C + 20.3 °C (spec: °C addition skipped)", () => {
    const temps = ledger([30.2, "degC", "read_water_temp"], [20.3, "degC", "read_air_temp"]);
    expect(only("50.5 °C", temps)).toMatchObject({ status: "unsourced", explanation: UNSOURCED });
    expect(only("60.4 °C", temps)).toMatchObject({ status: "unsourced" });
  });

  it("derives from the first 12 outputs only", () => {
    const first12 = Array.from({ length: 12 }, (_, i): Out => [100 + i * 1000, "ft", `read_${i + 1}`]);
    // 61100 is read_13 + read_12, one step, but read_13 is past the twelve that seed the candidates.
    const outs = ledger(...first12, [50000, "ft", "read_13"]);
    expect(verdicts("1200.0 ft, 50000.0 ft and 61100.0 ft", outs)).toEqual([
      ["1200.0 ft", "derived", "an arithmetic combination of recorded outputs (read_1.return + read_2.return)"],
      ["50000.0 ft", "sourced", "from read_13.return"],
      ["61100.0 ft", "unsourced", UNSOURCED],
    ]);
  });
});

describe("our readings: scientific notation, thousands, negatives, ranges, multi-word units", () => {
  it("reads 1.25e3 cfs as 1250 cfs and sources it", () => {
    expect(only("1.25e3 cfs", discharge)).toMatchObject({
      text: "1.25e3 cfs",
      value: 1250,
      unit: "cfs",
      status: "sourced",
    });
  });

  it("reads 1.25×10^3 cfs and 1.25 x 10^3 cfs the same way", () => {
    expect(verdicts("1.25×10^3 cfs, 1.25 x 10^3 cfs", discharge).map((v) => v[1])).toEqual(["sourced", "sourced"]);
  });

  it("rounds scientific notation at its precision: 1.3e3 cfs restates 1250, 1.2e3 cfs does not, 1e3 cfs never does", () => {
    expect(verdicts("1.3e3 cfs, 1.2e3 cfs, 1e3 cfs", discharge).map((v) => v[1])).toEqual([
      "sourced",
      "unsourced",
      "unsourced",
    ]);
  });

  it("audits a number in scientific notation even where a plain one would be ignored: 2e3", () => {
    expect(only("2e3", discharge)).toMatchObject({ value: 2000, status: "unsourced" });
  });

  it("reads thousands separators: 1,125,810 acre-ft", () => {
    expect(only("1,125,810 acre-ft", ledger([1125810, "acre*ft", "read_storage"]))).toMatchObject({
      value: 1125810,
      status: "sourced",
    });
  });

  it("gives both numbers of a range the unit: 1200-1300 cfs, 1200–1300 cfs, 1,200 to 1,300 cfs", () => {
    const outs = ledger([1200, "cfs", "read_low"], [1300, "cfs", "read_high"]);
    for (const answer of ["1200-1300 cfs", "1200–1300 cfs", "1,200 to 1,300 cfs"]) {
      expect(audit(answer, outs).numbers.map((n) => [n.value, n.unit, n.status, n.callId])).toEqual([
        [1200, "cfs", "sourced", "c1"],
        [1300, "cfs", "sourced", "c2"],
      ]);
    }
  });

  it("flags the first number of a range when its unit is wrong: 1250-1300 m3/s after 1250 cfs", () => {
    expect(verdicts("1250-1300 m3/s", discharge)).toEqual([
      ["1250", "unit_mislabelled", "magnitude matches read_discharge.return but that value is in cfs, not m3/s"],
      ["1300 m3/s", "unsourced", UNSOURCED],
    ]);
  });

  it("reads 150000 acre feet as acre-feet, not acres", () => {
    expect(only("150000 acre feet", ledger([185022015.7, "m^3", "read_storage"]))).toMatchObject({
      unit: "acre feet",
      status: "sourced",
    });
  });

  it("reads cubic feet per second as cfs", () => {
    expect(only("1250 cubic feet per second", discharge)).toMatchObject({
      text: "1250 cubic feet per second",
      status: "sourced",
    });
  });

  it("reads square miles: 11,197 square miles is the 29000 km² area", () => {
    expect(only("11,197 square miles", discharge)).toMatchObject({
      status: "sourced",
      explanation: "from read_drainage_area.return",
    });
  });

  it("reads degrees Celsius as a temperature: 12.0 degrees Celsius is 53.6 °F", () => {
    expect(only("12.0 degrees Celsius", ledger([53.6, "degF", "read_water_temperature"]))).toMatchObject({
      status: "sourced",
    });
  });
});

describe("result and report (spec 6.6.5)", () => {
  it("is ok when every number is sourced, derived, quoted or ignored", () => {
    const r = audit("Station 07374000: crest 31.0 ft, stage 12.4 ft, freeboard 18.6 ft over 36 hours.", levee, {
      context: "within 36 hours",
    });
    expect(r.numbers.map((n) => n.status)).toEqual(["ignored", "sourced", "sourced", "derived", "quoted"]);
    expect(r.ok).toBe(true);
  });

  it("is not ok when a number is unsourced", () => {
    expect(audit("31.0 ft and 99.9 ft", levee).ok).toBe(false);
  });

  it("is not ok when a number is mislabelled", () => {
    expect(audit("1250 ft", discharge).ok).toBe(false);
  });

  it("is not ok when a number is sign-inverted", () => {
    expect(audit("4.06 ft", ledger([-4.06, "ft", "read_freeboard"])).ok).toBe(false);
  });

  it("reports one line per audited number with its mark, and skips ignored numbers", () => {
    const outs = ledger(
      [1250, "cfs", "read_discharge"],
      [31.0, "ft", "read_crest"],
      [12.4, "ft", "read_stage"],
      [-4.06, "ft", "read_freeboard"],
    );
    const r = audit("Station 07374000: 1250 cfs, 18.6 ft, 36 hours, 99.9 ft, 1250 m3/s, 4.06 ft.", outs, {
      context: "36 hours",
    });
    expect(auditReport(r)).toBe(
      [
        "  [ok] 1250 cfs  from read_discharge.return",
        "  [derived] 18.6 ft  an arithmetic combination of recorded outputs (read_crest.return - read_stage.return)",
        "  [quoted] 36 hours  repeated back from the question",
        "  [UNSOURCED] 99.9 ft  no tool output produced this value",
        "  [MISLABELLED] 1250 m3/s  magnitude matches read_discharge.return but that value is in cfs, not m3/s",
        "  [SIGN INVERTED] 4.06 ft  magnitude matches read_freeboard.return, but that value is -4.06 and the answer states 4.06 with no wording that carries the sign; these describe opposite conditions",
      ].join("\n"),
    );
  });

  it("reports '(no numeric claims found)' when every number is ignored or there is none", () => {
    expect(auditReport(audit("Station 07374000 in 1993.", discharge))).toBe("  (no numeric claims found)");
    expect(auditReport(audit("No numbers here.", discharge))).toBe("  (no numeric claims found)");
  });

  it("lists items in text order, each text being the answer between start and end", () => {
    const answer = "Peak 1250 cfs in 1993.";
    const { numbers } = audit(answer, discharge);
    expect(numbers.map((n) => [n.text, n.start, n.end])).toEqual([
      ["1250 cfs", 5, 13],
      ["1993", 17, 21],
    ]);
    for (const n of numbers) expect(answer.slice(n.start, n.end)).toBe(n.text);
  });
});

describe("sign: corpus fixes beyond the reference", () => {
  it("prefers a same-sign match on a later output over a flipped match on an earlier one", () => {
    const outs = ledger([12.4, "ft", "read_gage_height"], [-12.4, "ft", "freeboard"]);
    expect(only("The freeboard is -12.4 ft.", outs)).toMatchObject({
      status: "sourced",
      callId: "c2",
      explanation: "from freeboard.return",
    });
  });
  it("still flags a flipped match when no output matches as stated", () => {
    const outs = ledger([-4.06, "ft", "freeboard"]);
    expect(only("The freeboard is 4.06 ft.", outs).status).toBe("sign_inverted");
  });
  it("reads 'overstated by' as wording that carries the sign", () => {
    const outs = ledger([-0.44, "ft", "freeboard_error"]);
    expect(only("The model overstated freeboard by 0.44 ft.", outs)).toMatchObject({
      status: "sourced",
      explanation: "from freeboard_error.return, with the sign in the wording",
    });
  });
  it("reads a written-out subtraction as carrying the sign of the subtrahend", () => {
    const outs = ledger([22.9, "ft", "read_crest"], [-0.44, "ft", "settlement"]);
    const items = audit("Crest after settlement: 22.9 − 0.44 ft.", outs).numbers.map((n) => [n.text, n.status]);
    expect(items).toEqual([
      ["22.9", "sourced"],
      ["0.44 ft", "sourced"],
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { DatumRegistry } from "../../src/quantity/datums.js";
import { compileTool, type ToolDeclarationInput } from "../../src/guard/declaration.js";
import { checkCall, checkResult, type GuardContext } from "../../src/guard/verdict.js";
import { MemoryHistory } from "../../src/guard/history.js";

const datums = new DatumRegistry([{ name: "GAGE:DROP" }]);
const tool = (name: string, d: ToolDeclarationInput) => compileTool(name, d, { datums });

const readDischarge = tool("read_discharge", { params: { station: {} }, returns: { unit: "cfs" } });
const readStage = tool("read_stage", { params: {}, returns: { unit: "ft", datum: "GAGE:DROP" } });
const runoff = tool("runoff_depth", {
  params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
  returns: { unit: "mm/day" },
});
const freeboard = tool("freeboard", { params: { stage: { unit: "ft", datum: "NAVD88" } } });
const freeboardM = tool("freeboard_m", { params: { stage: { unit: "m", datum: "NAVD88" } } });
const plainStage = tool("plain_stage", { params: { stage: { unit: "ft" } } });
const areaTool = tool("area_tool", { params: { area: { unit: "km**2", sourced: true } } });

/** A session: calls recorded in a MemoryHistory exactly as the store would record returns. */
function session(enforcement: "enforce" | "warn" = "enforce", context = "") {
  const history = new MemoryHistory();
  const ctx: GuardContext = { datums, enforcement, history, context };
  let seq = 0;
  return {
    ctx,
    returned(t: ReturnType<typeof tool>, result: unknown) {
      seq += 1;
      const r = checkResult(t, result, ctx);
      for (const c of r.crossings) {
        if (c.value !== null && c.unit !== null && c.outcome !== "refused") {
          history.push({
            callId: `c${seq}`,
            seq,
            tool: t.name,
            field: c.param,
            value: c.value,
            unit: c.unit,
            valueSi: c.valueSi as number,
            dimension: c.dimension as string,
            datum: c.datum,
            quality: c.quality,
          });
        }
      }
      return r;
    },
    call(t: ReturnType<typeof tool>, args: Record<string, unknown>) {
      seq += 1;
      return checkCall(t, t.name, args, ctx);
    },
  };
}

const codes = (v: { violations: { code: string }[] }) => v.violations.map((x) => x.code);

describe("input shapes", () => {
  it("reads a bare number in the declared unit", () => {
    const v = session().call(runoff, { discharge: 35.4, area: 29000 });
    expect(v.ok).toBe(true);
    expect(v.args).toEqual({ discharge: { value: 35.4, unit: "m^3/s" }, area: { value: 29000, unit: "km^2" } });
  });
  it('converts "1250 cfs" into 35.39605824 m^3/s', () => {
    const v = session().call(runoff, { discharge: "1250 cfs", area: 29000 });
    expect((v.args.discharge as { value: number }).value).toBeCloseTo(35.39605824, 9);
    expect(v.crossings[0]!.outcome).toBe("converted");
  });
  it("reads the object form and a JSON-encoded object string", () => {
    const s = session();
    expect(s.call(runoff, { discharge: { value: 1250, unit: "cfs" }, area: 29000 }).ok).toBe(true);
    expect(s.call(runoff, { discharge: '{"value": 1250, "unit": "cfs"}', area: 29000 }).ok).toBe(true);
  });
  it("reads an object written as Python's repr, as some models send it", () => {
    const v = session().call(freeboard, { stage: "{'value': 31.0, 'unit': 'ft', 'datum': 'NAVD88'}" });
    expect(v.args.stage).toEqual({ value: 31, unit: "ft", datum: "NAVD88" });
  });
  it("reads a series in the declared unit with null gaps", () => {
    const v = session().call(runoff, { discharge: [1, null, 3], area: 1 });
    expect(v.args.discharge).toEqual({ value: [1, null, 3], unit: "m^3/s" });
  });
  it("refuses a unitless string with unit_parse_error naming the parameter", () => {
    const v = session().call(runoff, { discharge: "1250", area: 1 });
    expect(v.violations[0]).toMatchObject({ code: "unit_parse_error", param: "discharge" });
    expect(v.violations[0]!.repair).toBe(
      "[unit_parse_error] for `discharge` '1250' carries no unit; send it with its unit, such as \"1250 cfs\"",
    );
  });
  it("refuses a non-numeric value and null with unit_parse_error, not a crash", () => {
    expect(codes(session().call(runoff, { discharge: { value: "abc", unit: "cfs" }, area: 1 }))).toEqual([
      "unit_parse_error",
    ]);
    expect(codes(session().call(runoff, { discharge: null, area: 1 }))).toEqual(["unit_parse_error"]);
    expect(codes(session().call(runoff, { discharge: true, area: 1 }))).toEqual(["unit_parse_error"]);
  });
  it("refuses an extra key in the object form", () => {
    expect(
      session().call(runoff, { discharge: { value: 1, unit: "cfs", datum_: "X" }, area: 1 }).violations[0]!.message,
    ).toMatch(/remove 'datum_'/);
  });
});

describe("require_explicit_unit", () => {
  const strict = tool("strict", { params: { q: { unit: "cfs", require_explicit_unit: true } } });
  it("refuses a bare number, a series and an object without a unit, and names what to send", () => {
    const s = session();
    const bare = s.call(strict, { q: 1250 });
    expect(bare.violations[0]).toMatchObject({ code: "missing_unit" });
    expect(bare.violations[0]!.message).toBe(
      'this tool requires an explicit unit, so send {"value": 1250, "unit": "cfs"} rather than a bare number',
    );
    expect(codes(s.call(strict, { q: [1, 2] }))).toEqual(["missing_unit"]);
    expect(s.call(strict, { q: { value: 1 } }).violations[0]!.message).toMatch(/left it out$/);
    expect(s.call(strict, { q: { value: 1, unit: "" } }).violations[0]!.message).toMatch(/left it empty$/);
    expect(s.call(strict, { q: "1250 cfs" }).ok).toBe(true);
  });
});

describe("validation order and codes", () => {
  it("refuses a length where a discharge is declared with dimensionality_error", () => {
    const v = session().call(runoff, { discharge: { value: 12.4, unit: "ft" }, area: 29000 });
    expect(v.violations[0]!.repair).toMatch(
      /^\[dimensionality_error\] for `discharge` expected a quantity in m\^3\/s \(\[length\]\^3 \[time\]\^-1\), received 12\.4 ft \(\[length\]\)/,
    );
  });
  it("assumes the declared datum for a value with none, refuses another datum", () => {
    const s = session();
    expect(s.call(freeboard, { stage: 31 }).args.stage).toEqual({ value: 31, unit: "ft", datum: "NAVD88" });
    const v = s.call(freeboard, { stage: { value: 31, unit: "ft", datum: "GAGE:DROP" } });
    expect(v.violations[0]!.message).toMatch(
      /^expected an elevation referenced to NAVD88, received one referenced to GAGE:DROP/,
    );
  });
  it("refuses an unknown datum on a value", () => {
    expect(codes(session().call(freeboard, { stage: { value: 1, unit: "ft", datum: "MARS" } }))).toEqual([
      "datum_mismatch",
    ]);
  });
  it("refuses a different CRS only when the value states one", () => {
    const t = tool("crs_tool", { params: { x: { unit: "m", crs: "EPSG:4326" } } });
    const s = session();
    expect(s.call(t, { x: 1 }).ok).toBe(true);
    expect(s.call(t, { x: { value: 1, unit: "m", crs: "EPSG:26915" } }).violations[0]!.message).toMatch(
      /^expected EPSG:4326, received EPSG:26915/,
    );
  });
  it("refuses an unflagged value and a weaker grade against a quality floor", () => {
    const t = tool("approved_only", { params: { q: { unit: "cfs", quality: "A" } } });
    const s = session();
    expect(s.call(t, { q: 5 }).violations[0]!.message).toMatch(
      /^this tool requires A record, and the value supplied carries no quality flag/,
    );
    expect(s.call(t, { q: { value: 5, unit: "cfs", quality: "P" } }).violations[0]!.message).toMatch(
      /^this tool requires A record, and the value supplied \(5 cfs\) is provisional; send a record of approved grade or better/,
    );
    expect(s.call(t, { q: { value: 5, unit: "cfs", quality: "R" } }).ok).toBe(true);
  });
  it("refuses unexpected and missing arguments with invalid_arguments and no field", () => {
    const v = session().call(runoff, { discharge: 1, rainfall: 3 });
    expect(v.violations).toEqual([
      {
        code: "invalid_arguments",
        param: null,
        message:
          "runoff_depth does not accept these arguments (got an unexpected argument 'rainfall', missing a required argument 'area'); it takes discharge, area",
        repair:
          "[invalid_arguments] runoff_depth does not accept these arguments (got an unexpected argument 'rainfall', missing a required argument 'area'); it takes discharge, area",
      },
    ]);
  });
  it("lets an optional parameter be left out", () => {
    const t = tool("opt", { params: { a: { unit: "m", required: false } } });
    expect(session().call(t, {}).ok).toBe(true);
  });
  it("refuses a naive timestamp and converts a zoned one into the declared zone", () => {
    const t = tool("at", { params: { at: { tz: "America/Chicago" } } });
    const s = session();
    expect(s.call(t, { at: "2026-08-14T14:30:00Z" }).args.at).toEqual({
      value: "2026-08-14T09:30:00-05:00",
      tz: "America/Chicago",
    });
    expect(codes(s.call(t, { at: "2026-08-14T09:30:00" }))).toEqual(["timezone_error"]);
  });
});

describe("carry-over (checklist 1)", () => {
  const after1250 = () => {
    const s = session();
    s.returned(readDischarge, 1250);
    return s;
  };
  it.each([
    [
      "a bare 1250",
      1250,
      'received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return returned 1250 cfs and no conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}',
    ],
    [
      "1250 labelled m**3/s",
      { value: 1250, unit: "m**3/s" },
      "received 1250 labelled m**3/s, which this tool reads as 1250 m^3/s",
    ],
    ["the string 1250 m3/s", "1250 m3/s", "received '1250 m3/s', which this tool reads as 1250 m^3/s"],
    ["1250 labelled cms", { value: 1250, unit: "cms" }, "received 1250 labelled cms"],
  ])("refuses %s after read_discharge returned 1250 cfs", (_, value, message) => {
    const v = after1250().call(runoff, { discharge: value, area: 29000 });
    expect(v.ok).toBe(false);
    expect(v.violations[0]!.code).toBe("unconverted_carry_over");
    expect(v.violations[0]!.message.startsWith(message)).toBe(true);
  });
  it("passes a correctly converted 35.4 and {1250, cfs}", () => {
    const s = after1250();
    expect(s.call(runoff, { discharge: 35.4, area: 29000 }).ok).toBe(true);
    expect(s.call(runoff, { discharge: { value: 1250, unit: "cfs" }, area: 29000 }).ok).toBe(true);
  });
  it("passes a reuse that needs no conversion: same unit, alias, zero", () => {
    const s = session();
    s.returned(tool("flow_si", { params: {}, returns: { unit: "m**3/s" } }), 35.4);
    expect(s.call(runoff, { discharge: { value: 35.4, unit: "cms" }, area: 1 }).ok).toBe(true);
    const z = session();
    z.returned(readDischarge, 0);
    expect(z.call(runoff, { discharge: 0, area: 1 }).ok).toBe(true);
  });
  it("catches a dropped datum (reason datum), checked before unit, even into metres", () => {
    const s = session();
    s.returned(readStage, 12.4);
    const v = s.call(freeboard, { stage: 12.4 });
    expect(v.violations[0]!.message).toBe(
      'received the bare number 12.4, which this parameter reads as 12.4 ft on NAVD88, but read_stage.return returned it on GAGE:DROP. These are measured from different references, so the magnitude cannot be reused; convert it to NAVD88 first, or resend it as {"value": 12.4, "unit": "ft", "datum": "GAGE:DROP"}',
    );
    expect(codes(s.call(freeboardM, { stage: 12.4 }))).toEqual(["unconverted_carry_over"]);
    expect(codes(s.call(freeboard, { stage: { value: 12.4, unit: "ft", datum: "NAVD88" } }))).toEqual([
      "unconverted_carry_over",
    ]);
    expect(codes(s.call(freeboard, { stage: { value: 12.4, unit: "ft", datum: "GAGE:DROP" } }))).toEqual([
      "datum_mismatch",
    ]);
    expect(s.call(plainStage, { stage: 12.4 }).ok).toBe(true);
  });
  it("never matches a series output, nor within a tolerance wider than 1e-9", () => {
    const s = session();
    s.returned(tool("series", { params: {}, returns: { unit: "cfs" } }), [1250, 1300]);
    expect(s.call(runoff, { discharge: 1250, area: 1 }).ok).toBe(true);
    const r = after1250();
    expect(r.call(runoff, { discharge: 1250.1, area: 1 }).ok).toBe(true);
  });
});

describe("sourced inputs (checklist 9)", () => {
  const withArea = (context = "") => {
    const s = session("enforce", context);
    s.returned(tool("read_drainage_area", { params: {}, returns: { unit: "km**2" } }), 29000);
    return s;
  };
  it("accepts an output within 0.5 percent, converted, and one-step sums", () => {
    const s = withArea();
    expect(s.call(areaTool, { area: 29100 }).ok).toBe(true);
    expect(s.call(areaTool, { area: "11196.9 mi**2" }).ok).toBe(true);
    expect(s.call(areaTool, { area: 58000 }).ok).toBe(true);
    expect(s.call(areaTool, { area: 0 }).ok).toBe(true);
  });
  it("refuses 29200 (0.69 percent off) with unsourced_input and the repair text", () => {
    const v = withArea().call(areaTool, { area: 29200 });
    expect(v.violations[0]!.code).toBe("unsourced_input");
    expect(v.violations[0]!.message).toMatch(
      /^received 29200 km\^2, which no tool returned and the question did not supply/,
    );
  });
  it("accepts a number of the question compared unit-blind in the declared unit", () => {
    const s = session("enforce", "basin of 11,197 square miles");
    expect(s.call(areaTool, { area: 11197 }).ok).toBe(true);
    expect(codes(s.call(areaTool, { area: "11197 mi**2" }))).toEqual(["unsourced_input"]);
    expect(session("enforce", "runoff over the 29,000 km2 basin?").call(areaTool, { area: 29000 }).ok).toBe(true);
    // The question's numbers are read as the answer audit reads them, scientific notation included.
    expect(session("enforce", "a basin of 2.9×10^4 km2").call(areaTool, { area: 29000 }).ok).toBe(true);
  });
});

describe("warn mode", () => {
  it("lets the face value through and records what would have been blocked", () => {
    const s = session("warn");
    s.returned(readDischarge, 1250);
    const v = s.call(runoff, { discharge: 1250, area: 29000 });
    expect(v.ok).toBe(true);
    expect(v.wouldBlock).toBe(true);
    expect(v.args.discharge).toEqual({ value: 1250, unit: "m^3/s" });
    expect(v.crossings[0]!.outcome).toBe("warned");
    expect(v.crossings[0]!.violation).toBe("unconverted_carry_over");
  });
});

describe("results", () => {
  it("labels a bare numeric result with the declared return unit", () => {
    expect(session().returned(readDischarge, 1250).result).toEqual({ value: 1250, unit: "cfs" });
  });
  it("labels each declared key of a mapping and passes the rest", () => {
    const t = tool("stage_and_flow", { params: {}, returns: { stage: { unit: "ft" }, flow: { unit: "cfs" } } });
    const r = session().returned(t, { stage: 7.73, flow: 234000, station: "07374000" });
    expect(r.result).toEqual({
      stage: { value: 7.73, unit: "ft" },
      flow: { value: 234000, unit: "cfs" },
      station: "07374000",
    });
  });
  it("refuses a result of the wrong dimension with param return", () => {
    const r = session().returned(readDischarge, { value: 3, unit: "ft" });
    expect(r.ok).toBe(false);
    expect(r.violations[0]).toMatchObject({ code: "dimensionality_error", param: "return" });
  });
});

describe("declarations and arguments beyond the spec's examples (review)", () => {
  it("checks a parameter declared in a reciprocal unit: 0.5 day^-1 passes, 1 s^-1 converts", () => {
    const decay = tool("decay", { params: { k: { unit: "day^-1" } } });
    const s = session();
    expect(s.call(decay, { k: 0.5 })).toMatchObject({ ok: true, args: { k: { value: 0.5, unit: "day^-1" } } });
    const v = s.call(decay, { k: { value: 1, unit: "s^-1" } });
    expect(v.ok).toBe(true);
    expect((v.args.k as { value: number }).value).toBeCloseTo(86400, 9);
  });
  it("refuses an argument named like an Object method (toString, constructor) as invalid_arguments", () => {
    const v = session().call(plainStage, { stage: 1, toString: 3 });
    expect(v.violations).toEqual([
      {
        code: "invalid_arguments",
        param: null,
        message: "plain_stage does not accept these arguments (got an unexpected argument 'toString'); it takes stage",
        repair:
          "[invalid_arguments] plain_stage does not accept these arguments (got an unexpected argument 'toString'); it takes stage",
      },
    ]);
    expect(codes(session().call(plainStage, { stage: 1, constructor: 3 }))).toEqual(["invalid_arguments"]);
  });
  it("passes an undeclared result key named like an Object method through a mapping unchanged", () => {
    const t = tool("stage_and_flow", { params: {}, returns: { stage: { unit: "ft" } } });
    const r = session().returned(t, { stage: 7.73, constructor: 5, toString: "x" });
    expect(r.ok).toBe(true);
    expect(r.result).toEqual({ stage: { value: 7.73, unit: "ft" }, constructor: 5, toString: "x" });
  });
});

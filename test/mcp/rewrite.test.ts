// The proxy's pure pieces: what each side is told about a tool, how a result is read, what the upstream receives.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { parseAnnotations } from "../../src/mcp/annotations.js";
import { DeclarationDrift, forwardedArgs, labelledResult, readResult } from "../../src/mcp/results.js";
import { advertisedTool, ledgerDeclaration } from "../../src/mcp/rewrite.js";
import type { RawTool } from "../../src/mcp/upstream.js";

const ANN = parseAnnotations(
  [
    "[tools.runoff_depth]",
    'returns = "mm/day"',
    "[tools.runoff_depth.params]",
    'discharge = { unit = "m**3/s", description = "Observed discharge." }',
    'station = { description = "USGS site number." }',
    'rainfall = { unit = "mm", required = true }',
    "[tools.read_stage]",
    'returns = { unit = "ft", datum = "NAVD88" }',
  ].join("\n"),
  "toml",
);
const RUNOFF: RawTool = {
  name: "runoff_depth",
  description: "Runoff depth.",
  inputSchema: {
    type: "object",
    properties: {
      discharge: { type: "number", description: "Flow rate." },
      station: { type: "string" },
      area: { type: "number" },
    },
    required: ["discharge", "area"],
  },
  annotations: { readOnlyHint: true },
};
const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const single = ANN.get("read_stage")!.compiled.returns!;

describe("advertised tools", () => {
  it("replaces annotated properties, keeps the server's description in front, an opaque one's type, and the rest of the tool", () => {
    const out = advertisedTool(RUNOFF, ANN.get("runoff_depth"));
    const props = (out.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.discharge).toMatchObject({ description: "Flow rate. Observed discharge.", "x-unit": "m^3/s" });
    expect(props.discharge).not.toHaveProperty("type");
    expect(props.station).toEqual({ type: "string", description: "USGS site number." });
    expect(props.area).toEqual({ type: "number" });
    expect(props.rainfall).toMatchObject({ "x-unit": "mm" });
    expect(props.rainfall).not.toHaveProperty("description");
    expect((out.inputSchema as { required: string[] }).required).toEqual(["discharge", "area"]);
    expect(out.description).toBe("Runoff depth. Returns a value in mm/day.");
    expect(out.annotations).toEqual({ readOnlyHint: true });
    expect((RUNOFF.inputSchema as { properties: Record<string, unknown> }).properties.discharge).toEqual({
      type: "number",
      description: "Flow rate.",
    });
  });

  it("states the datum with the return unit, and does not repeat a note already there", () => {
    const tool: RawTool = {
      name: "read_stage",
      description: "Stage. Returns a value in ft on NAVD88.",
      inputSchema: { type: "object" },
    };
    const out = advertisedTool(tool, ANN.get("read_stage"));
    expect(out.description).toBe("Stage. Returns a value in ft on NAVD88.");
    expect(out.outputSchema).toMatchObject({ "x-unit": "ft", "x-datum": "NAVD88", required: ["value", "unit"] });
    expect(out.inputSchema).toEqual({ type: "object", properties: {} });
  });

  it("returns an unannotated tool as the very same object", () => {
    expect(advertisedTool(RUNOFF, undefined)).toBe(RUNOFF);
  });
});

describe("ledger declarations", () => {
  it("lists every upstream parameter, required as the upstream requires it unless the annotation says so", () => {
    expect(ledgerDeclaration(ANN.get("runoff_depth")!, RUNOFF)).toEqual({
      description: "Runoff depth.",
      params: {
        discharge: { unit: "m**3/s", description: "Observed discharge.", required: true },
        station: { description: "USGS site number.", required: false },
        area: {},
        rainfall: { unit: "mm", required: true },
      },
      returns: "mm/day",
    });
  });

  it("declares a tool the upstream does not list from its annotation alone", () => {
    expect(ledgerDeclaration(ANN.get("read_stage")!, undefined)).toEqual({
      params: {},
      returns: { unit: "ft", datum: "NAVD88" },
    });
  });
});

describe("reading results", () => {
  it("reads a JSON number, a plain number, a quantity string and a series from the first text block", () => {
    expect(readResult(text("1250"), single)).toEqual({ value: 1250, extra: {} });
    expect(readResult(text(" 1.25e3\n"), single)).toEqual({ value: 1250, extra: {} });
    expect(readResult(text("12.4 ft"), single)).toEqual({ value: "12.4 ft", extra: {} });
    expect(readResult(text("[1, null, 2]"), single)).toEqual({ value: [1, null, 2], extra: {} });
    expect(readResult(text("nan"), single)).toEqual({ value: "nan", extra: {} });
  });

  it("keeps the unit an upstream object states, and sets its other keys aside", () => {
    expect(readResult(text('{"value": 3, "unit": "m^3/s", "station": "X"}'), single)).toEqual({
      value: { value: 3, unit: "m^3/s" },
      extra: { station: "X" },
    });
  });

  it("labels an upstream's qualifier flags with the value, and sets aside a `flags` that is not a list of names", () => {
    expect(readResult(text('{"value": 3, "unit": "m", "flags": ["ice"]}'), single)).toEqual({
      value: { value: 3, unit: "m", flags: ["ice"] },
      extra: {},
    });
    expect(readResult(text('{"value": 3, "unit": "m", "flags": 5}'), single)).toEqual({
      value: { value: 3, unit: "m" },
      extra: { flags: 5 },
    });
  });

  it("reads structuredContent when there is no text block", () => {
    expect(readResult({ content: [], structuredContent: { value: 2, unit: "m" } }, single)).toEqual({
      value: { value: 2, unit: "m" },
      extra: {},
    });
  });

  it("answers the labelled value as structuredContent and one JSON text block, keeping _meta", () => {
    const r = labelledResult(
      { content: [text("3").content[0]!], _meta: { trace: "t1" } },
      { value: 105.94, unit: "cfs" },
      { station: "X" },
    );
    expect(r).toEqual({
      _meta: { trace: "t1" },
      content: [{ type: "text", text: '{"value":105.94,"unit":"cfs","station":"X"}' }],
      structuredContent: { value: 105.94, unit: "cfs", station: "X" },
    });
  });
});

describe("forwarded arguments", () => {
  const tool = ANN.get("runoff_depth")!.compiled;

  it("sends bare magnitudes in the declared unit and everything else as sent", () => {
    const checked = { discharge: { value: 35.39605824, unit: "m^3/s" }, station: "07374000" };
    expect(forwardedArgs({ discharge: "1250 cfs", station: "07374000", area: 29000 }, checked, tool)).toEqual({
      discharge: 35.39605824,
      station: "07374000",
      area: 29000,
    });
  });

  it("refuses to forward a magnitude the ledger checked in another unit than the annotation's", () => {
    expect(() => forwardedArgs({ discharge: 1250 }, { discharge: { value: 1250, unit: "cfs" } }, tool)).toThrow(
      DeclarationDrift,
    );
    expect(() => forwardedArgs({ discharge: 1250 }, { discharge: { value: 1250, unit: "cfs" } }, tool)).toThrow(
      "the ledger checked discharge as cfs, but the annotation declares m^3/s",
    );
  });
});

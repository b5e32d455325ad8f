// Re-advertised physical properties carry their UCUM code as OGC 23-058r2 writes it, beside x-unit.
import { describe, expect, it } from "vitest";
import { parseAnnotations } from "../../src/mcp/annotations.js";
import { advertisedTool } from "../../src/mcp/rewrite.js";
import type { RawTool } from "../../src/mcp/upstream.js";

const ANN = parseAnnotations(
  [
    "[tools.read_discharge]",
    'returns = "cfs"',
    "[tools.read_discharge.params]",
    'turbidity = { unit = "NTU", required = false }',
    'stage = { unit = "ft", datum = "NAVD88" }',
    "[tools.read_levels]",
    'returns = { stage = "ft", temperature = "degC" }',
  ].join("\n"),
  "toml",
);
const tool = (name: string): RawTool => ({ name, description: "", inputSchema: { type: "object" } });
type Props = Record<string, Record<string, unknown>>;

describe("x-ogc-unit on re-advertised schemas", () => {
  it("puts the UCUM code beside x-unit on parameters and on a single result", () => {
    const out = advertisedTool(tool("read_discharge"), ANN.get("read_discharge"));
    const props = (out.inputSchema as { properties: Props }).properties;
    expect(props.stage).toMatchObject({ "x-unit": "ft", "x-ogc-unit": "[ft_i]", "x-ogc-unitLang": "UCUM" });
    expect(out.outputSchema).toMatchObject({ "x-unit": "cfs", "x-ogc-unit": "[ft_i]3/s", "x-ogc-unitLang": "UCUM" });
  });

  it("gives a unit with no UCUM form no code at all", () => {
    const out = advertisedTool(tool("read_discharge"), ANN.get("read_discharge"));
    const turbidity = (out.inputSchema as { properties: Props }).properties.turbidity;
    expect(turbidity).toMatchObject({ "x-unit": "NTU" });
    expect(turbidity).not.toHaveProperty("x-ogc-unit");
    expect(turbidity).not.toHaveProperty("x-ogc-unitLang");
  });

  it("codes each key of a mapped result", () => {
    const out = advertisedTool(tool("read_levels"), ANN.get("read_levels"));
    const keys = (out.outputSchema as { properties: Props }).properties;
    expect(keys.stage).toMatchObject({ "x-ogc-unit": "[ft_i]" });
    expect(keys.temperature).toMatchObject({ "x-ogc-unit": "Cel", "x-ogc-unitLang": "UCUM" });
  });
});

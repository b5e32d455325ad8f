// Tool definitions for MCP, OpenAI and Anthropic, each physical property carrying x-unit (with its UCUM code as
// x-ogc-unit), x-datum, x-crs and x-tz.
import { GRADES } from "../quantity/quality.js";
import { ucumCode } from "../quantity/ucum.js";
import type { Declaration, ToolDeclaration } from "./declaration.js";

// A series' missing reading: spelled as `anyOf` one-type branches, not the `type` array `["number", "null"]` (the same
// meaning), which the MCP Inspector's portability check warns on: some clients map tools onto a one-`type` dialect.
const NUMBER_OR_NULL = { anyOf: [{ type: "number" }, { type: "null" }] };

/** A provider format. */
export type Flavour = "mcp" | "openai" | "anthropic";

/** The provider formats, for validation and messages. */
export const FLAVOURS: readonly Flavour[] = ["mcp", "openai", "anthropic"];

type Json = Record<string, unknown>;

/** The JSON Schema of one parameter: every accepted input shape, with the physical metadata as x- keys. */
export function paramSchema(d: Declaration): Json {
  if (d.kind === "opaque") return d.description ? { description: d.description } : {};
  if (d.kind === "temporal") {
    return {
      type: "string",
      format: "date-time",
      description: `${d.description} ISO 8601 with an explicit UTC offset, interpreted in ${d.tz}.`.trim(),
      "x-tz": d.tz,
    };
  }
  const unit = d.unit as string;
  const desc = [
    d.description,
    d.datum ? `Referenced to ${d.datum}.` : "",
    d.qualityText ? `Requires ${d.qualityText} record or better.` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const magnitude = { anyOf: [{ type: "number" }, { type: "array", items: NUMBER_OR_NULL }] };
  const object: Json = {
    type: "object",
    properties: {
      value: magnitude,
      unit: { type: "string", description: `defaults to ${unit}` },
      datum: d.datum ? { type: "string", description: `defaults to ${d.datum}` } : { type: "string" },
      crs: d.crs ? { type: "string", description: `defaults to ${d.crs}` } : { type: "string" },
      quality: { type: "string", enum: [...GRADES] },
      source: { type: "string", description: "where this value was retrieved from" },
    },
    required: d.requireExplicitUnit ? ["value", "unit"] : ["value"],
    additionalProperties: false,
  };
  const variants: Json[] = [];
  if (!d.requireExplicitUnit) {
    variants.push({ type: "number", description: `magnitude in ${unit}` });
    variants.push({
      type: "array",
      items: NUMBER_OR_NULL,
      description: `series of magnitudes in ${unit}`,
    });
  }
  variants.push(object, { type: "string", description: `quantity with unit, e.g. "1.5 ${unit}"` });
  const out: Json = { description: desc, "x-unit": unit, ...ogcUnit(unit), anyOf: variants };
  if (d.datum) out["x-datum"] = d.datum;
  if (d.crs) out["x-crs"] = d.crs;
  if (d.qualityText) out["x-quality"] = d.quality;
  return out;
}

/** `x-ogc-unit` (UCUM) and `x-ogc-unitLang` as OGC 23-058r2 writes them, or nothing for a unit with no UCUM form. */
function ogcUnit(unit: string): Json {
  const code = ucumCode(unit);
  return code === undefined ? {} : { "x-ogc-unit": code, "x-ogc-unitLang": "UCUM" };
}

/** The JSON Schema of a result (MCP `outputSchema`). */
export function resultSchema(d: Declaration): Json {
  if (d.kind === "temporal")
    return {
      type: "object",
      properties: { value: { type: "string", format: "date-time" } },
      required: ["value"],
      "x-tz": d.tz,
    };
  if (d.kind === "opaque") return { type: "object", description: d.description };
  const out: Json = {
    type: "object",
    description: d.description,
    properties: {
      value: { anyOf: [{ type: "number" }, { type: "array", items: NUMBER_OR_NULL }] },
      unit: { type: "string" },
      datum: { type: "string" },
      crs: { type: "string" },
      quality: { type: "string", enum: [...GRADES] },
      source: { type: "string" },
    },
    required: ["value", "unit"],
    "x-unit": d.unit,
    ...ogcUnit(d.unit as string),
  };
  if (d.datum) out["x-datum"] = d.datum;
  if (d.crs) out["x-crs"] = d.crs;
  if (d.qualityText) out["x-quality"] = d.quality;
  return out;
}

/** The input schema of a whole tool. */
export function inputSchema(tool: ToolDeclaration): Json {
  const properties: Json = {};
  for (const [p, d] of Object.entries(tool.params)) properties[p] = paramSchema(d);
  const required = Object.entries(tool.params)
    .filter(([, d]) => d.required)
    .map(([p]) => p);
  return { type: "object", properties, required, additionalProperties: false };
}

/** The tool definition in a provider's format. */
export function toolDefinition(tool: ToolDeclaration, flavour: Flavour): Json {
  const description = describeTool(tool);
  const parameters = inputSchema(tool);
  switch (flavour) {
    case "mcp": {
      const out: Json = { name: tool.name, description, inputSchema: parameters };
      if (tool.returns?.kind === "single") out.outputSchema = resultSchema(tool.returns.decl);
      return out;
    }
    case "openai":
      return { type: "function", function: { name: tool.name, description, parameters } };
    case "anthropic":
      return { name: tool.name, description, input_schema: parameters };
  }
}

/** The tool's description, with the return unit stated in words so a model reading prose sees it too. */
export function describeTool(tool: ToolDeclaration): string {
  const r = tool.returns?.kind === "single" ? tool.returns.decl : null;
  if (!r?.unit) return tool.description;
  const note = `Returns a value in ${r.unit}${r.datum ? ` on ${r.datum}` : ""}.`;
  return tool.description.includes(note) ? tool.description : `${tool.description} ${note}`.trim();
}

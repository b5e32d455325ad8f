// What the proxy tells each side about a tool: the agent sees units in the schema, the ledger gets a full declaration.
import type { Declaration, DeclarationInput, ToolDeclaration, ToolDeclarationInput } from "../guard/declaration.js";
import { describeTool, paramSchema, resultSchema } from "../guard/schema.js";
import type { ToolAnnotation } from "./annotations.js";
import type { RawTool } from "./upstream.js";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The declaration a result is labelled with, or null when the tool's results pass through as they are. */
export function labelling(tool: ToolDeclaration): ToolDeclaration["returns"] {
  const r = tool.returns;
  if (!r) return null;
  // An opaque return ({description} alone) states nothing to label, so it promises no structured output.
  if (r.kind === "single" && r.decl.kind === "opaque") return null;
  return r;
}

/**
 * The tool as the proxy advertises it: unannotated tools exactly as the upstream listed them; annotated
 * ones with each annotated property replaced by its declaration's schema (the server's own description
 * kept in front), an `outputSchema` when results are labelled, and the return unit stated in the description.
 */
export function advertisedTool(tool: RawTool, annotation: ToolAnnotation | undefined): RawTool {
  if (!annotation) return tool;
  const out = structuredClone(tool);
  const decl = annotation.compiled;
  const description = describeReturns(decl, tool.description ?? "");
  if (description) out.description = description;
  const input: Json = isObject(out.inputSchema) ? out.inputSchema : { type: "object" };
  const properties: Json = isObject(input.properties) ? input.properties : {};
  for (const [param, d] of Object.entries(decl.params)) {
    const server = properties[param];
    properties[param] = propertySchema(d, isObject(server) ? server : {});
  }
  input.properties = properties;
  out.inputSchema = input;
  const returns = labelling(decl);
  if (returns)
    out.outputSchema =
      returns.kind === "single" ? withoutEmptyDescription(resultSchema(returns.decl)) : mappingSchema(returns.keys);
  return out;
}

function propertySchema(d: Declaration, server: Json): Json {
  const serverDescription = typeof server.description === "string" ? server.description : "";
  // An opaque declaration states no physical meaning, so the server's own schema (its type) stays.
  const schema = d.kind === "opaque" ? { ...server, description: d.description } : paramSchema(d);
  const own = typeof schema.description === "string" ? schema.description : "";
  const description = own.includes(serverDescription) ? own : `${serverDescription} ${own}`.trim();
  return withoutEmptyDescription({ ...schema, description });
}

function mappingSchema(keys: Record<string, Declaration>): Json {
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(keys).map(([k, d]) => [k, withoutEmptyDescription(resultSchema(d))])),
  };
}

function withoutEmptyDescription(schema: Json): Json {
  if (schema.description !== "") return schema;
  const { description: _empty, ...rest } = schema;
  return rest;
}

/** The tool description with the return unit stated in words: " Returns a value in cfs." unless already there. */
function describeReturns(decl: ToolDeclaration, description: string): string {
  const returns = decl.returns;
  if (returns?.kind !== "mapping") return describeTool({ ...decl, description });
  const parts = Object.entries(returns.keys)
    .filter(([, d]) => d.unit)
    .map(([k, d]) => `${k} in ${d.unit}${d.datum ? ` on ${d.datum}` : ""}`);
  if (!parts.length) return description;
  const note = `Returns ${parts.join(", ")}.`;
  return description.includes(note) ? description : `${description} ${note}`.trim();
}

/**
 * The declaration the ledger checks calls against: every parameter the upstream lists (an unannotated one
 * as `{}`, passed through unchecked) plus the annotated ones. A parameter is required when the upstream's
 * schema requires it, unless the annotation says otherwise.
 */
export function ledgerDeclaration(annotation: ToolAnnotation, tool: RawTool | undefined): ToolDeclarationInput {
  const schema = isObject(tool?.inputSchema) ? tool.inputSchema : {};
  const upstreamProps = isObject(schema.properties) ? Object.keys(schema.properties) : [];
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [],
  );
  const params: Record<string, DeclarationInput> = {};
  for (const p of upstreamProps) params[p] = required.has(p) ? {} : { required: false };
  for (const [p, d] of Object.entries(annotation.input.params)) {
    const decl: DeclarationInput = typeof d === "string" ? { unit: d } : { ...d };
    // Without the upstream's schema the annotation alone decides, and a declaration is required by default.
    if (decl.required === undefined && tool) decl.required = required.has(p);
    params[p] = decl;
  }
  const out: ToolDeclarationInput = { params };
  if (typeof tool?.description === "string" && tool.description) out.description = tool.description.slice(0, 8000);
  if (annotation.input.returns !== undefined) out.returns = annotation.input.returns;
  return out;
}

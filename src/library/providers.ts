// Provider tool-call shapes: reading a call from OpenAI, the Responses API, Anthropic or MCP, and answering in the same shape.
import { z } from "zod";
import { type Flavour, FLAVOURS } from "../guard/schema.js";

/** A tool call's format, detected from its shape. */
export type ToolCallFormat = "openai" | "openai_responses" | "anthropic" | "mcp" | "mcp_jsonrpc";

/** A tool call read from any provider: its id (null for bare MCP params), the tool name and the arguments (a JSON string when the provider sends one). */
export type ToolCall = { format: ToolCallFormat; id: string | number | null; name: string; arguments: unknown };

/** The outcome of running a tool, as `invoke` answers it. */
export type ToolOutcome = ToolSuccess | ToolError;

/** A successful run: the result serialised (quantities as `{value, unit, ...}`). */
export type ToolSuccess = { isError: false; result: unknown };

/** A refused or failed run: the repair text a model reads, the violation code and the parameter (or null). */
export type ToolError = {
  isError: true;
  content: [{ type: "text"; text: string }];
  code: string | null;
  field: string | null;
};

/** A flavour outside mcp, openai and anthropic. */
export class FlavourError extends Error {
  readonly code = "unknown_flavour";
  constructor(flavour: unknown) {
    super(`unknown flavour ${quote(flavour)}; expected one of (${FLAVOURS.map((f) => `'${f}'`).join(", ")})`);
    this.name = "FlavourError";
  }
}

/** A value that is none of the provider tool-call shapes. */
export class ToolCallShapeError extends Error {
  readonly code = "unknown_tool_call";
  constructor() {
    super(
      'cannot read this tool call: expected an OpenAI tool call {id, type: "function", function: {name, arguments}}, a Responses API item ' +
        '{type: "function_call", call_id, name, arguments}, an Anthropic block {type: "tool_use", id, name, input}, ' +
        "or MCP tools/call params {name, arguments} (alone or in a JSON-RPC request)",
    );
    this.name = "ToolCallShapeError";
  }
}

/** Checks a flavour name, answering it typed. */
export function checkFlavour(flavour: unknown): Flavour {
  if (typeof flavour === "string" && (FLAVOURS as readonly string[]).includes(flavour)) return flavour as Flavour;
  throw new FlavourError(flavour);
}

function quote(v: unknown): string {
  return typeof v === "string" ? `'${v}'` : (JSON.stringify(v) ?? String(v));
}

const Args = z.union([z.string(), z.record(z.string(), z.unknown())]);
const McpParams = z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() });

// Tried in order; each shape has a discriminating key, and bare MCP params (no `type`) come last.
const SHAPES: readonly { format: ToolCallFormat; read: (v: unknown) => Omit<ToolCall, "format"> | null }[] = [
  {
    format: "mcp_jsonrpc",
    read: parsed(
      z.object({
        jsonrpc: z.literal("2.0"),
        id: z.union([z.string(), z.number()]),
        method: z.literal("tools/call"),
        params: McpParams,
      }),
      (c) => ({ id: c.id, name: c.params.name, arguments: c.params.arguments ?? {} }),
    ),
  },
  {
    format: "openai",
    read: parsed(
      z.object({
        id: z.string(),
        type: z.literal("function"),
        function: z.object({ name: z.string(), arguments: Args }),
      }),
      (c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }),
    ),
  },
  {
    format: "openai_responses",
    read: parsed(
      z.object({ type: z.literal("function_call"), call_id: z.string(), name: z.string(), arguments: Args }),
      (c) => ({ id: c.call_id, name: c.name, arguments: c.arguments }),
    ),
  },
  {
    format: "anthropic",
    read: parsed(
      z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
      (c) => ({ id: c.id, name: c.name, arguments: c.input ?? {} }),
    ),
  },
  {
    format: "mcp",
    read: (v) =>
      typeof v === "object" && v !== null && !("type" in v) && !("method" in v)
        ? parsed(McpParams, (c) => ({ id: null, name: c.name, arguments: c.arguments ?? {} }))(v)
        : null,
  },
];

function parsed<S extends z.ZodType>(
  schema: S,
  pick: (c: z.infer<S>) => Omit<ToolCall, "format">,
): (v: unknown) => Omit<ToolCall, "format"> | null {
  return (v) => {
    const r = schema.safeParse(v);
    return r.success ? pick(r.data) : null;
  };
}

/** Reads a tool call of any supported provider, detecting the format by its shape; throws ToolCallShapeError otherwise. */
export function readToolCall(call: unknown): ToolCall {
  for (const s of SHAPES) {
    const c = s.read(call);
    if (c) return { format: s.format, ...c };
  }
  throw new ToolCallShapeError();
}

/** The text a model reads: the repair text of an error, or the result as JSON. */
export function outcomeText(o: ToolOutcome): string {
  return o.isError ? o.content[0].text : JSON.stringify(o.result ?? null);
}

/** The MCP CallToolResult of an outcome: a text block always, `structuredContent` when the result is an object. */
function mcpResult(o: ToolOutcome): Record<string, unknown> {
  const content = [{ type: "text", text: outcomeText(o) }];
  const structured = !o.isError && typeof o.result === "object" && o.result !== null && !Array.isArray(o.result);
  return structured ? { content, structuredContent: o.result, isError: false } : { content, isError: o.isError };
}

const WRAP: Record<ToolCallFormat, (id: ToolCall["id"], o: ToolOutcome) => Record<string, unknown>> = {
  openai: (id, o) => ({ role: "tool", tool_call_id: id, content: outcomeText(o) }),
  openai_responses: (id, o) => ({ type: "function_call_output", call_id: id, output: outcomeText(o) }),
  anthropic: (id, o) => ({
    type: "tool_result",
    tool_use_id: id,
    content: [{ type: "text", text: outcomeText(o) }],
    is_error: o.isError,
  }),
  mcp: (_id, o) => mcpResult(o),
  mcp_jsonrpc: (id, o) => ({ jsonrpc: "2.0", id, result: mcpResult(o) }),
};

/** Wraps an outcome in the result message of the call's own provider. */
export function toolResultMessage(
  call: Pick<ToolCall, "format" | "id">,
  outcome: ToolOutcome,
): Record<string, unknown> {
  return WRAP[call.format](call.id, outcome);
}

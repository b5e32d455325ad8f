// Span names and attributes: the GenAI semantic conventions for tool execution, plus the ledger's own. The names are
// written out rather than imported, as the OpenTelemetry project advises for conventions still marked incubating.
import type { EvaluationRecord, ToolCallRecord } from "./telemetry.js";

/** An attribute value OpenTelemetry accepts. */
export type AttributeValue = string | number | boolean | string[];

/**
 * The execute_tool span of a guarded call.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/#execute-tool-span
 */
export function toolCallSpan(r: ToolCallRecord): { name: string; attributes: Record<string, AttributeValue> } {
  const attributes: Record<string, AttributeValue> = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": r.tool,
    "gen_ai.tool.call.id": r.callId,
    "agent_ledger.session.id": r.sessionId,
    "agent_ledger.outcome": r.outcome,
    "agent_ledger.violation.codes": [...r.violationCodes],
  };
  // The conventions' error.type: a low-cardinality class of the failure; a refusal's first violation code is one, and
  // any other tool error is `tool_error`, as the MCP conventions name an isError result.
  if (r.outcome === "refused") attributes["error.type"] = r.violationCodes[0] ?? "refused";
  else if (r.toolError) attributes["error.type"] = "tool_error";
  // The MCP semantic conventions' request attributes, when the call came through the proxy.
  if (r.mcp) {
    attributes["mcp.method.name"] = r.mcp.method;
    if (r.mcp.protocolVersion) attributes["mcp.protocol.version"] = r.mcp.protocolVersion;
    if (r.mcp.sessionId) attributes["mcp.session.id"] = r.mcp.sessionId;
    if (r.mcp.requestId !== undefined) attributes["jsonrpc.request.id"] = String(r.mcp.requestId);
  }
  return { name: `execute_tool ${r.tool}`, attributes };
}

/** The span of one evaluation through the release gates. */
export function evaluationSpan(r: EvaluationRecord): { name: string; attributes: Record<string, AttributeValue> } {
  return {
    name: r.task ? `evaluate ${r.task}` : "evaluate",
    attributes: {
      "agent_ledger.evaluation.id": r.evaluationId,
      "agent_ledger.evaluation.status": r.status,
      "agent_ledger.evaluation.blocked_by": [...r.blockedBy],
    },
  };
}

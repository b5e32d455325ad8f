// The execute_tool span's attributes under the MCP semantic conventions: the request's method, revision, session and
// JSON-RPC id, and error.type `tool_error` for a result the agent reads as a tool error.
import { describe, expect, it } from "vitest";
import { toolCallSpan } from "../../src/telemetry/attributes.js";
import type { ToolCallRecord } from "../../src/telemetry/telemetry.js";

const base: ToolCallRecord = {
  tool: "read_discharge",
  callId: "c1",
  sessionId: "s1",
  outcome: "ok",
  violationCodes: [],
  startMs: 0,
  endMs: 1,
};

describe("execute_tool span attributes of a proxied call", () => {
  it("carries mcp.method.name, mcp.protocol.version, mcp.session.id and jsonrpc.request.id as the request had them", () => {
    const { attributes } = toolCallSpan({
      ...base,
      mcp: { method: "tools/call", protocolVersion: "2026-07-28", sessionId: "abc", requestId: 7 },
    });
    expect([
      attributes["mcp.method.name"],
      attributes["mcp.protocol.version"],
      attributes["mcp.session.id"],
      attributes["jsonrpc.request.id"],
    ]).toEqual(["tools/call", "2026-07-28", "abc", "7"]);
  });

  it("leaves mcp.session.id out when the request had no session (2026-07-28, stdio)", () => {
    const { attributes } = toolCallSpan({
      ...base,
      mcp: { method: "tools/call", protocolVersion: "2026-07-28", requestId: "r" },
    });
    expect("mcp.session.id" in attributes).toBe(false);
    expect(attributes["jsonrpc.request.id"]).toBe("r");
  });

  it("sets error.type to tool_error for an isError result, and to the violation code for a refusal", () => {
    expect(toolCallSpan({ ...base, toolError: true }).attributes["error.type"]).toBe("tool_error");
    expect(toolCallSpan({ ...base }).attributes["error.type"]).toBeUndefined();
    const refused = toolCallSpan({
      ...base,
      outcome: "refused",
      violationCodes: ["unconverted_carry_over"],
      toolError: true,
    });
    expect(refused.attributes["error.type"]).toBe("unconverted_carry_over");
  });
});

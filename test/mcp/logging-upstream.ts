// A stdio upstream that appends each tools/call it receives to the file CALL_LOG names, one JSON line each, before it
// answers: a test reads the file to see exactly which calls reached the upstream and with what arguments. Its tools
// take a discharge: `flow` answers it, `flow_error` answers a tool error, `flow_crash` exits mid-call, `flow_hang`
// never answers. Run as: CALL_LOG=FILE node --import tsx test/mcp/logging-upstream.ts
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const log = process.env.CALL_LOG;
if (!log) throw new Error("set CALL_LOG to the file the calls are written to");
const server = new McpServer({ name: "logging-upstream", version: "1.0.0" });
const inputSchema = { discharge: z.number().describe("Flow rate.") };

const tools: Record<string, (discharge: number) => Promise<CallToolResult>> = {
  flow: async (discharge) => ({ content: [{ type: "text", text: String(discharge) }] }),
  flow_error: async () => ({ content: [{ type: "text", text: "gauge offline" }], isError: true }),
  flow_crash: async () => process.exit(7),
  flow_hang: () => new Promise<CallToolResult>(() => undefined),
};
for (const [name, answer] of Object.entries(tools)) {
  server.registerTool(name, { description: `${name}: a discharge.`, inputSchema }, async ({ discharge }) => {
    appendFileSync(log, `${JSON.stringify({ tool: name, discharge })}\n`);
    return answer(discharge);
  });
}
await server.connect(new StdioServerTransport());

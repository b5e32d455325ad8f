// A real Streamable HTTP MCP server for the gateway's pinning and rate-limit tests: it lists exactly the tool
// definitions it is given (raw JSON schemas, so a test can change one field at a time) and counts the calls it gets.
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A tool as listed: name, description, input schema. */
export type ListedTool = {
  name: string;
  description: string;
  inputSchema: { type: "object" } & Record<string, unknown>;
};

/** A running upstream: its URL, the calls it answered (tool names, in order), and stop. */
export type PinUpstream = { url: string; calls: string[]; stop(): Promise<void> };

/** Starts a stateless upstream on 127.0.0.1 listing `tools`; every call answers "1250". */
export async function startPinUpstream(tools: ListedTool[]): Promise<PinUpstream> {
  const calls: string[] = [];
  const http: HttpServer = createServer(async (req, res) => {
    const server = new Server({ name: "pin-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (r) => {
      calls.push(r.params.name);
      return { content: [{ type: "text", text: "1250" }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    stop: () =>
      new Promise<void>((done) => {
        http.close(() => done());
        http.closeAllConnections();
      }),
  };
}

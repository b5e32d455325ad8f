// A real Streamable HTTP MCP server for tests, written with the SDK: the demo's water tools, plus `stop_server`,
// which drops every connection and stops listening while its own call is in flight (an upstream going away mid-call).
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { registerDemoTools } from "../../demo/tools.js";

/** A running test upstream. */
export type HttpUpstream = {
  url: string;
  port: number;
  /** The headers of every HTTP request received, in order. */
  requests: IncomingHttpHeaders[];
  /** How many MCP sessions were initialised. */
  sessions(): number;
  /** Stops at once: every open connection is destroyed. */
  stop(): Promise<void>;
};

/** Options: a header every request must carry (else 401), and a port to reuse (a restart). */
export type HttpUpstreamOptions = { requireHeader?: [string, string]; port?: number };

/** Starts the upstream on 127.0.0.1 (a free port unless one is given). */
export async function startHttpUpstream(options: HttpUpstreamOptions = {}): Promise<HttpUpstream> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const requests: IncomingHttpHeaders[] = [];
  let initialised = 0;
  let http: Server;
  const stop = () =>
    new Promise<void>((done) => {
      http.close(() => done());
      http.closeAllConnections();
    });
  const mcpServer = () => {
    const server = new McpServer({ name: "test-http-water", version: "1.0.0" });
    registerDemoTools(server);
    server.registerTool("stop_server", { description: "Stops the whole server while this call runs." }, async () => {
      await stop();
      return { content: [{ type: "text", text: "never delivered" }] };
    });
    return server;
  };
  http = createServer(async (req, res) => {
    requests.push(req.headers);
    if (options.requireHeader) {
      const [name, value] = options.requireHeader;
      if (req.headers[name.toLowerCase()] !== value) return void res.writeHead(401).end("missing or wrong credentials");
    }
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? transports.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (id !== undefined) return void res.writeHead(404).end("unknown session");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        initialised += 1;
        transports.set(sid, transport);
      },
    });
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/mcp`, port, requests, sessions: () => initialised, stop };
}

// An ordinary MCP server of the kind most agent tools are today: it states its units only in prose and
// answers bare numbers. Nothing here knows about agent-ledger; demo/water.toml tells the proxy what the numbers mean.
// Run: node --import tsx demo/server.ts               (stdio; logs go to stderr)
//      node --import tsx demo/server.ts --http 3001   (Streamable HTTP at http://127.0.0.1:3001/mcp)
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { registerDemoTools } from "./tools.js";

function demoServer(): McpServer {
  const server = new McpServer({ name: "demo-water", version: "1.0.0" });
  registerDemoTools(server);
  server.registerTool(
    "crash",
    { description: "Exits the server process at once, as a crashing server would (for trying the proxy's recovery)." },
    async () => {
      process.stderr.write("demo-water: crashing on request\n");
      process.exit(3);
    },
  );
  return server;
}

const httpFlag = process.argv.indexOf("--http");
if (httpFlag === -1) {
  await demoServer().connect(new StdioServerTransport());
  process.stderr.write("demo-water: serving on stdio\n");
} else {
  // One transport per MCP session, as in the SDK's own Streamable HTTP example.
  const port = Number(process.argv[httpFlag + 1] ?? 3001);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (id !== undefined) return void res.writeHead(404).end("unknown session");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await demoServer().connect(transport);
    await transport.handleRequest(req, res);
  })
    .once("error", (e: NodeJS.ErrnoException) => {
      // A taken port is an everyday mistake (a demo server still running): one line, not a stack.
      const why = e.code === "EADDRINUSE" ? "the port is already in use (is another demo server running?)" : e.message;
      process.stderr.write(`demo-water: cannot listen on 127.0.0.1:${port}: ${why}; pass another port: --http PORT\n`);
      process.exit(1);
    })
    .listen(port, "127.0.0.1", () => process.stderr.write(`demo-water: serving on http://127.0.0.1:${port}/mcp\n`));
}

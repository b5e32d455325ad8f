// The service's own MCP endpoint: the ledger's tools over Streamable HTTP at /mcp, behind the same bearer token and
// team scoping as /v1. It keeps no MCP sessions (the SDK's stateless mode): every POST is answered on its own, for the
// team of the bearer token it carries, so any instance behind a load balancer can answer any request, and a token
// reaches only its own team's rows whatever it sends.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { jsonRpcError } from "../../mcp/http-sessions.js";
import { type LedgerAuth, ledgerMcpServer } from "../../mcp/service/tools.js";
import type { AppDeps, LedgerApp } from "../env.js";

// Servers kept between requests: making one costs more than answering most requests.
const IDLE_SERVERS = 16;

/** Registers ALL /mcp; bearer auth is applied by the app factory. POST carries every message; GET and DELETE are 405. */
export function registerMcpEndpoint(app: LedgerApp, deps: AppDeps): void {
  const idle: McpServer[] = [];
  app.all("/mcp", async (c) => {
    if (c.req.method !== "POST")
      return jsonRpcError(
        405,
        -32000,
        `${c.req.method} is not served on /mcp: this endpoint keeps no sessions, so there is no stream to open or end; ` +
          "POST each JSON-RPC message",
        { allow: "POST" },
      );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = idle.pop() ?? ledgerMcpServer(deps);
    await server.connect(transport);
    try {
      // The team reaches the tools as the request's authInfo (the token itself stays here). The answer is one JSON body,
      // complete when it is returned, so the server can close at once and serve the next request.
      const auth: LedgerAuth = { teamId: c.get("teamId") };
      return await transport.handleRequest(c.req.raw, {
        authInfo: { token: "", clientId: c.get("tokenId"), scopes: [], extra: auth },
      });
    } finally {
      await server.close();
      if (idle.length < IDLE_SERVERS) idle.push(server);
    }
  });
}

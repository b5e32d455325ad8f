// The service's own MCP endpoint: the ledger's tools over Streamable HTTP at /mcp, behind the same bearer token and
// team scoping as /v1. It keeps no MCP sessions (the SDK's stateless mode): every POST is answered on its own, for the
// team of the bearer token it carries, so any instance behind a load balancer can answer any request, and a token
// reaches only its own team's rows whatever it sends.
import {
  createMcpHandler,
  isLegacyRequest,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { jsonRpcError } from "../../mcp/http-sessions.js";
import { type LedgerAuth, ledgerMcpServer } from "../mcp/tools.js";
import type { AppDeps, LedgerApp } from "../env.js";

// Servers kept between 2025-11-25 requests: making one costs more than answering most requests.
const IDLE_SERVERS = 16;

/**
 * Registers ALL /mcp; bearer auth is applied by the app factory. POST carries every message; GET and DELETE are 405.
 * The SDK's handler serves MCP 2026-07-28 (each request with its `_meta` envelope, server/discover, the Mcp-Method and
 * Mcp-Name headers checked against the body); a 2025-11-25 request (the SDK's isLegacyRequest says which) is served
 * as before, statelessly, with one JSON body. Both revisions see the same seven tools.
 */
export function registerMcpEndpoint(app: LedgerApp, deps: AppDeps): void {
  const handler = createMcpHandler(() => ledgerMcpServer(deps), { legacy: "reject" });
  const idle: McpServer[] = [];
  const legacy = async (req: Request, authInfo: Parameters<typeof handler.fetch>[1]) => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = idle.pop() ?? ledgerMcpServer(deps);
    await server.connect(transport);
    try {
      // The answer is one JSON body, complete when it is returned, so the server can close at once and serve the next.
      return await transport.handleRequest(req, authInfo);
    } finally {
      await server.close();
      if (idle.length < IDLE_SERVERS) idle.push(server);
    }
  };
  app.all("/mcp", async (c) => {
    if (c.req.method !== "POST")
      return jsonRpcError(
        405,
        -32000,
        `${c.req.method} is not served on /mcp: this endpoint keeps no sessions, so there is no stream to open or end; ` +
          "POST each JSON-RPC message",
        { allow: "POST" },
      );
    // The team reaches the tools as the request's authInfo (the token itself stays here).
    const auth: LedgerAuth = { teamId: c.get("teamId") };
    const options = { authInfo: { token: "", clientId: c.get("tokenId"), scopes: [], extra: auth } };
    return (await isLegacyRequest(c.req.raw)) ? legacy(c.req.raw, options) : handler.fetch(c.req.raw, options);
  });
}

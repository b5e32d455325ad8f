// The service's own MCP endpoint: the ledger's tools over Streamable HTTP at /mcp, behind the same bearer token and
// team scoping as /v1. A session belongs to the token that opened it; any other token is answered as for no session.
import { jsonRpcError, McpHttpSessions } from "../../mcp/http-sessions.js";
import { ledgerMcpServer } from "../../mcp/service/tools.js";
import type { AppDeps, LedgerApp } from "../env.js";

/** Registers ALL /mcp (POST, GET, DELETE); bearer auth is applied by the app factory. */
export function registerMcpEndpoint(app: LedgerApp, deps: AppDeps): McpHttpSessions<string> {
  const sessions = new McpHttpSessions<string>({
    connect: async (transport, teamId) => {
      const server = ledgerMcpServer({ deps, teamId });
      await server.connect(transport);
      return server;
    },
  });
  app.all("/mcp", (c) => {
    if (!["POST", "GET", "DELETE"].includes(c.req.method))
      return jsonRpcError(405, -32000, `${c.req.method} is not an MCP method: use POST, GET or DELETE on /mcp`);
    return sessions.handle(c.req.raw, c.get("tokenId"), c.get("teamId"));
  });
  return sessions;
}

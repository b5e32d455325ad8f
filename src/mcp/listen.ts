// `agent-ledger mcp --listen HOST:PORT`: the guarded tools served at http://HOST:PORT/mcp over Streamable HTTP, each
// MCP session its own connection to the proxy, so its own ledger session (and its own carry-over history).
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { jsonRpcError, McpHttpSessions } from "./http-sessions.js";
import type { GuardedProxy } from "./proxy.js";

/** Where to listen. */
export type ListenAddress = { host: string; port: number };

/** A running HTTP front. */
export type ListeningProxy = { url: string; sessions: McpHttpSessions; close(): Promise<void> };

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** "127.0.0.1:8788" or "[::1]:8788" as host and port; null when it is neither. */
export function parseListen(text: string): ListenAddress | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(text);
  if (!m) return null;
  const port = Number(m[3]);
  if (port > 65535) return null;
  return { host: m[1] ?? m[2]!, port };
}

/**
 * A browser page may not drive the guarded tools: a request carrying an Origin other than this front's own host (or
 * a loopback name) is refused, the DNS-rebinding check the MCP transport specification asks servers to make.
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#security-warning
 */
function originAllowed(origin: string | undefined, host: string): boolean {
  if (origin === undefined) return true;
  try {
    const h = new URL(origin).hostname;
    return LOCAL_HOSTS.has(h) || h === host || `[${h}]` === host;
  } catch {
    return false;
  }
}

const tooLarge = (limit: number) => jsonRpcError(413, -32000, `the request body is over the limit of ${limit} bytes`);

/**
 * A POST's JSON body, read at most `limit` bytes far, or the error answer. A body with a Content-Length is read with
 * `text()`, which @hono/node-server serves straight from the socket without building a web Request and its streams
 * (a third of a forwarded call's CPU in the proxy); a chunked one is read from the stream, counting.
 */
async function readJsonBody(req: Request, limit: number): Promise<{ value: unknown } | Response> {
  const length = req.headers.get("content-length");
  let text: string;
  if (length !== null && !req.headers.has("transfer-encoding")) {
    if (Number(length) > limit) return tooLarge(limit);
    text = await req.text();
  } else {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = req.body?.getReader();
    for (;;) {
      const next = await reader?.read();
      if (!next || next.done) break;
      size += next.value.byteLength;
      if (size > limit) {
        await reader!.cancel();
        return tooLarge(limit);
      }
      chunks.push(next.value);
    }
    text = Buffer.concat(chunks).toString("utf8");
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the request body is not JSON");
  }
}

/** Serves `proxy` at http://host:port/mcp until closed. */
export function listenProxy(
  proxy: GuardedProxy,
  address: ListenAddress,
  options: { log?: (line: string) => void; bodyLimit?: number } = {},
): Promise<ListeningProxy> {
  const sessions = new McpHttpSessions({
    connect: (transport) => proxy.connect(transport, { labels: () => ({ mcp_session: transport.sessionId ?? "" }) }),
    log: options.log,
    jsonResponse: true,
  });
  const app = new Hono();
  const limit = options.bodyLimit ?? 4 * 1024 * 1024;
  app.all("/mcp", async (c) => {
    if (!originAllowed(c.req.header("origin"), address.host))
      return jsonRpcError(403, -32000, `requests from the web origin ${c.req.header("origin")} are not accepted`);
    if (c.req.method !== "POST") return sessions.handle(c.req.raw, "", undefined);
    const body = await readJsonBody(c.req.raw, limit);
    return body instanceof Response ? body : sessions.handle(c.req.raw, "", undefined, body.value);
  });
  app.onError((err) => {
    options.log?.(`MCP request failed: ${err.stack ?? err.message}`);
    return jsonRpcError(500, -32603, "internal error in the proxy's MCP endpoint");
  });
  app.notFound(() => jsonRpcError(404, -32000, "the MCP endpoint of this proxy is /mcp"));
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined;
    const onError = (e: Error) => reject(new Error(`cannot listen on ${address.host}:${address.port}: ${e.message}`));
    server = serve({ fetch: app.fetch, hostname: address.host, port: address.port }, (info) => {
      server!.off("error", onError);
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}/mcp`,
        sessions,
        close: async () => {
          await sessions.close();
          await new Promise<void>((done) => {
            server!.close(() => done());
            if ("closeAllConnections" in server!) server!.closeAllConnections();
          });
        },
      });
    });
    server.once("error", onError);
  });
}

// MCP sessions over Streamable HTTP, in the shape of the SDK's own server example: one web-standard transport per
// Mcp-Session-Id, created by an initialize request, closed on DELETE or after an idle hour, or when the endpoint is
// full and a new client needs the room of one left unused for minutes (most clients never send DELETE). The proxy's
// --listen front keeps them (each is one agent's ledger session); the service's own /mcp keeps none.
import { randomUUID } from "node:crypto";
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

/** What a new session is connected to; `close` releases it when the session ends. */
export type SessionServer = { close(): Promise<void> };

/** How sessions are made and bounded. */
export type McpHttpSessionsOptions = {
  /** Connects a fresh MCP server to a new session's transport. */
  connect: (transport: WebStandardStreamableHTTPServerTransport) => Promise<SessionServer>;
  /** At most this many open sessions (default 1000). */
  maxSessions?: number;
  /** A session unused for this long is closed (default one hour). */
  idleMs?: number;
  /**
   * When the endpoint is full, an initialize closes the session unused the longest if it has been unused at least this
   * long (default five minutes), else it answers 503.
   */
  evictIdleMs?: number;
  log?: (line: string) => void;
  /** Answer each request with one JSON body instead of an SSE stream (for servers that never stream progress). */
  jsonResponse?: boolean;
};

type Entry = { transport: WebStandardStreamableHTTPServerTransport; server: SessionServer; lastUsed: number };

/** A JSON-RPC error answered over HTTP, as the SDK's own transport answers it; `headers` go with it. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The open MCP sessions of one endpoint. */
export class McpHttpSessions {
  private readonly sessions = new Map<string, Entry>();
  private readonly maxSessions: number;
  private readonly idleMs: number;
  private readonly evictIdleMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: McpHttpSessionsOptions) {
    this.maxSessions = options.maxSessions ?? 1000;
    this.idleMs = options.idleMs ?? 3_600_000;
    this.evictIdleMs = options.evictIdleMs ?? 300_000;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  /** How many sessions are open. */
  get size(): number {
    return this.sessions.size;
  }

  /**
   * Answers one HTTP request to the MCP endpoint (POST, GET or DELETE). `parsedBody` is a POST's body when the caller
   * has already read and parsed it (the transport then does not read the request again).
   */
  async handle(req: Request, parsedBody?: unknown): Promise<Response> {
    const id = req.headers.get("mcp-session-id");
    if (id !== null) {
      const entry = this.sessions.get(id);
      if (!entry) return jsonRpcError(404, -32001, "Session not found");
      entry.lastUsed = Date.now();
      // Kept in order of use, so the first is the one unused the longest.
      this.sessions.delete(id);
      this.sessions.set(id, entry);
      return entry.transport.handleRequest(req, parsedBody === undefined ? undefined : { parsedBody });
    }
    if (req.method !== "POST")
      return jsonRpcError(400, -32000, "Bad Request: send an initialize request first, or an Mcp-Session-Id header");
    let body: unknown = parsedBody;
    if (body === undefined) {
      try {
        body = JSON.parse(await req.text());
      } catch {
        return jsonRpcError(400, -32700, "Parse error: the request body is not JSON");
      }
    }
    if (!isInitializeRequest(body))
      return jsonRpcError(400, -32000, "Bad Request: no Mcp-Session-Id header, and the request is not initialize");
    if (this.sessions.size >= this.maxSessions && !this.evictOne())
      return jsonRpcError(
        503,
        -32000,
        `too many open MCP sessions (${this.maxSessions}), each used in the last ` +
          `${Math.round(this.evictIdleMs / 1000)} s; close one with DELETE /mcp`,
      );
    return this.open(req, body);
  }

  /**
   * Closes the session unused the longest when it has been unused for evictIdleMs: its client, if it comes back, is
   * answered 404 and starts a new session, as the MCP specification asks. False when every session is in recent use.
   */
  private evictOne(): boolean {
    const first = this.sessions.entries().next();
    if (first.done) return false;
    const [sid, entry] = first.value;
    const idle = Date.now() - entry.lastUsed;
    if (idle < this.evictIdleMs) return false;
    this.sessions.delete(sid);
    this.options.log?.(
      `closing MCP session ${sid}, unused for ${Math.round(idle / 1000)} s, to make room for a new one ` +
        `(${this.maxSessions} open)`,
    );
    void entry.server.close().catch(() => undefined);
    return true;
  }

  private async open(req: Request, body: unknown): Promise<Response> {
    let entry: Entry | null = null;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: this.options.jsonResponse ?? false,
      onsessioninitialized: (sid) => {
        if (entry) this.sessions.set(sid, entry);
      },
    });
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && this.sessions.get(sid)?.transport === transport) this.sessions.delete(sid);
    };
    const server = await this.options.connect(transport);
    entry = { transport, server, lastUsed: Date.now() };
    const res = await transport.handleRequest(req, { parsedBody: body });
    if (!transport.sessionId) await server.close().catch(() => undefined);
    return res;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [sid, entry] of this.sessions) {
      if (entry.lastUsed >= cutoff) continue;
      this.sessions.delete(sid);
      this.options.log?.(`closing MCP session ${sid}: unused for ${Math.round(this.idleMs / 60_000)} min`);
      void entry.server.close().catch(() => undefined);
    }
  }

  /** Closes every session. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const entries = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(entries.map((e) => e.server.close()));
  }
}

// The MCP sessions of the proxy's --listen front, with real SDK transports and servers: what happens when the front is
// full, since most clients never end their sessions with DELETE.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { McpHttpSessions, type McpHttpSessionsOptions } from "../../src/mcp/http-sessions.js";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const open: McpHttpSessions[] = [];

function front(options: Omit<McpHttpSessionsOptions, "connect">): McpHttpSessions {
  const sessions = new McpHttpSessions({
    ...options,
    jsonResponse: true,
    connect: async (transport) => {
      const server = new McpServer({ name: "sessions-test", version: "1.0.0" });
      await server.connect(transport);
      return server;
    },
  });
  open.push(sessions);
  return sessions;
}

const post = (body: unknown, extra: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { ...HEADERS, ...extra },
    body: JSON.stringify(body),
  });

async function initialize(sessions: McpHttpSessions, name: string): Promise<{ status: number; sid: string | null }> {
  const res = await sessions.handle(
    post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name, version: "1" } },
    }),
  );
  return { status: res.status, sid: res.headers.get("mcp-session-id") };
}

async function ping(sessions: McpHttpSessions, sid: string): Promise<number> {
  const res = await sessions.handle(
    post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" }),
  );
  await res.text();
  return res.status;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

describe("the --listen front's sessions when it is full", () => {
  it("closes the session unused the longest to open a new one, and answers that session's client 404", async () => {
    const log: string[] = [];
    const sessions = front({ maxSessions: 2, evictIdleMs: 0, log: (line) => log.push(line) });
    const a = (await initialize(sessions, "a")).sid!;
    const b = (await initialize(sessions, "b")).sid!;
    expect(await ping(sessions, a)).toBe(200); // a is now the one used last; b the one unused the longest
    const c = await initialize(sessions, "c");
    expect(c.status).toBe(200);
    expect(sessions.size).toBe(2);
    expect(await ping(sessions, b)).toBe(404);
    expect(await ping(sessions, a)).toBe(200);
    expect(await ping(sessions, c.sid!)).toBe(200);
    expect(log).toEqual([`closing MCP session ${b}, unused for 0 s, to make room for a new one (2 open)`]);
  });

  it("answers 503 to a new client while every session was used in the last evictIdleMs, and keeps them all", async () => {
    const sessions = front({ maxSessions: 2, evictIdleMs: 3_600_000 });
    const a = (await initialize(sessions, "a")).sid!;
    const b = (await initialize(sessions, "b")).sid!;
    const res = await sessions.handle(
      post({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "too many open MCP sessions (2), each used in the last 3600 s; close one with DELETE /mcp",
      },
      id: null,
    });
    expect([await ping(sessions, a), await ping(sessions, b)]).toEqual([200, 200]);
  });
});

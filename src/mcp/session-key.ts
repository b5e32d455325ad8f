// Which ledger session a proxied call belongs to. A session is what carry-over is checked within, so its key must
// name one agent's run: MCP 2026-07-28 has no Mcp-Session-Id, and a stateless front sees each request on its own.

/** The `_meta` key an agent sets to name its run (a string it picks once per run). */
export const SESSION_META_KEY = "dev.agent-ledger/session";

/** Where a session key came from: the label `mcp.session_key` of the ledger session. */
export type SessionKeyKind = "meta" | "trace" | "mcp-session-id" | "stdio" | "none";

/** A session key: `key` is unique across kinds (two agents never share one), null for `none`. */
export type SessionKey = { kind: SessionKeyKind; key: string | null };

// W3C Trace Context: version-traceid-parentid-flags; an all-zero trace id is invalid.
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a W3C traceparent, or null when it is not one. */
export function traceIdOf(traceparent: unknown): string | null {
  if (typeof traceparent !== "string") return null;
  const m = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (!m || /^0+$/.test(m[1]!)) return null;
  return m[1]!;
}

// An agent's own key is at most this long (it becomes part of a label, which holds 256 characters).
const MAX_META_KEY = 200;

/**
 * The session key of one request, in the order the API fixes: `_meta["dev.agent-ledger/session"]`, the trace id of
 * `_meta.traceparent`, the 2025-11-25 Mcp-Session-Id, the stdio connection; none of them is a session of its own.
 */
export function sessionKeyOf(
  meta: Record<string, unknown> | undefined,
  connection: { mcpSessionId?: string; stdio?: string },
): SessionKey {
  const own = meta?.[SESSION_META_KEY];
  if (typeof own === "string" && own.length > 0 && own.length <= MAX_META_KEY)
    return { kind: "meta", key: `meta:${own}` };
  const trace = traceIdOf(meta?.traceparent);
  if (trace !== null) return { kind: "trace", key: `trace:${trace}` };
  if (connection.mcpSessionId) return { kind: "mcp-session-id", key: `mcp-session-id:${connection.mcpSessionId}` };
  if (connection.stdio) return { kind: "stdio", key: `stdio:${connection.stdio}` };
  return { kind: "none", key: null };
}

// One MCP 2026-07-28 request over raw HTTP, as the revision asks: the standard headers given, the envelope in `_meta`.
// Tests use it where the SDK's client would hide what is under test (a header left out or naming something else).

/** One JSON-RPC message of an answer: the response, or a request or notification streamed before it. */
export type RawMessage = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** What one request was answered: the HTTP status, the message answering it, and every message of the answer. */
export type RawAnswer = { status: number; body: RawMessage; messages: RawMessage[] };

let nextId = 1;

/** Sends `method` to `url` with exactly `headers` (beside content type and accept), its envelope naming `revision`. */
export async function rawRequest(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
  revision: string,
  meta: Record<string, unknown> = {},
): Promise<RawAnswer> {
  const id = nextId++;
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": revision,
          "io.modelcontextprotocol/clientInfo": { name: "raw-agent", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, sampling: {} },
          ...meta,
        },
      },
    }),
  });
  const text = await res.text();
  const messages: RawMessage[] = (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!))
    : [JSON.parse(text)];
  return { status: res.status, body: messages.find((m) => m.id === id) ?? messages.at(-1) ?? {}, messages };
}

/** The standard headers of a 2026-07-28 request: its revision, its method, and the name it carries (if any). */
export function standardHeaders(
  revision: string,
  method: string,
  params: Record<string, unknown>,
): Record<string, string> {
  const name: Record<string, string> = typeof params.name === "string" ? { "mcp-name": params.name } : {};
  return { "mcp-protocol-version": revision, "mcp-method": method, ...name };
}

// The checks a 2026-07-28 request must pass at the HTTP edge before it is served, after the SDK's classifier has
// routed it: a revision this front serves, and the standard request headers of SEP-2243 present and agreeing with the
// body (MCP-Protocol-Version, Mcp-Method, and Mcp-Name for the methods that name a tool, prompt, resource or task).
// The SDK's createMcpHandler applies the same rungs, in this order, but does not export them; the proxy's front routes
// each request itself (to a child, a relayed exchange or the guarded proxy), so it applies them here, with the SDK's
// codes, statuses and shapes.
import { UnsupportedProtocolVersionError } from "@modelcontextprotocol/server";

/** A request refused at the edge: the HTTP status and the JSON-RPC error to answer it with. */
export type EdgeRefusal = { httpStatus: number; code: number; message: string; data?: unknown };

/** The request's standard headers, as sent (absent when not sent). */
export type StandardHeaders = { protocolVersion?: string; method?: string; name?: string };

/** A 2026-07-28 message as the classifier routed it. */
export type ModernMessage = { kind: "request" | "notification"; method: string; params?: unknown; revision?: string };

/** The JSON-RPC code of a header that is missing or disagrees with the body (SEP-2243's HeaderMismatch). */
const HEADER_MISMATCH = -32020;

/** The stateless revision, served one request at a time. */
export const MODERN_REVISION = "2026-07-28";

/** The revisions of the stateless protocol this front serves. */
const MODERN_REVISIONS = [MODERN_REVISION];

/** The body field each method's Mcp-Name header mirrors (SEP-2243; the tasks rows from SEP-2663's HTTP binding). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const BASE64_PREFIX = "=?base64?";
const BASE64_SUFFIX = "?=";
const BASE64_CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value without the optional whitespace HTTP allows around it (RFC 9110: spaces and tabs). */
const trimmed = (v: string): string => v.replace(/^[ \t]+|[ \t]+$/g, "");

/** A header value as the client meant it: a `=?base64?...?=` value decoded as UTF-8; undefined when it does not decode. */
export function decodedHeader(value: string): string | undefined {
  if (!(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX))) return value;
  const b64 = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!BASE64_CANONICAL.test(b64)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(b64, "base64"));
  } catch {
    return undefined;
  }
}

/** The HeaderMismatch refusal, in the SDK's shape: what the header said and what the body says. */
export function headerMismatch(header: string, body: string): EdgeRefusal {
  return {
    httpStatus: 400,
    code: HEADER_MISMATCH,
    message: `Bad Request: the request headers and body disagree: ${body}`,
    data: { mismatch: { header, body } },
  };
}

/**
 * The refusal of a request whose envelope names a revision of the stateless era (2026-07-28 or later) that this front
 * does not serve (-32022, with the revisions it does), or null. An earlier or malformed claim is not of that era.
 */
export function unsupportedRevision(revision: string | undefined): EdgeRefusal | null {
  if (revision !== undefined && (revision < MODERN_REVISION || MODERN_REVISIONS.includes(revision))) return null;
  const e = new UnsupportedProtocolVersionError({ supported: MODERN_REVISIONS, requested: revision ?? "unknown" });
  return { httpStatus: 400, code: e.code, message: e.message, data: e.data };
}

/** Why a routed 2026-07-28 message may not be served, or null when it may. */
export function edgeRefusal(headers: StandardHeaders, message: ModernMessage): EdgeRefusal | null {
  const revision = message.revision;
  const unsupported = unsupportedRevision(revision);
  if (unsupported !== null) return unsupported;
  // Notifications carry no standard headers to check (the table of SEP-2243 reads "all requests").
  if (message.kind !== "request") return null;
  const { method } = message;
  if (headers.protocolVersion === undefined)
    return headerMismatch(
      "(missing)",
      `the body envelope names protocol version ${revision} but the required MCP-Protocol-Version header is absent`,
    );
  if (headers.method === undefined)
    return headerMismatch("(missing)", `the body names method ${method} but the required Mcp-Method header is absent`);
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  if (field === undefined) return null;
  const params = message.params;
  const raw = typeof params === "object" && params !== null ? (params as Record<string, unknown>)[field] : undefined;
  const body = typeof raw === "string" ? raw : undefined;
  if (headers.name === undefined)
    return body === undefined
      ? null
      : headerMismatch(
          "(missing)",
          `the body carries params.${field}="${body}" but the required Mcp-Name header is absent`,
        );
  const sent = trimmed(headers.name);
  const decoded = decodedHeader(sent);
  if (decoded === undefined)
    return headerMismatch(sent, "the Mcp-Name header carries an invalid Base64 sentinel value");
  if (body !== undefined && decoded !== body)
    return headerMismatch(
      sent,
      `the body carries params.${field}="${body}" but the Mcp-Name header names "${decoded}"`,
    );
  return null;
}

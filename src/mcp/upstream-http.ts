// The link to an upstream MCP server over Streamable HTTP, through the SDK's own client transport. It adds only the
// words for failures: which URL, refused or unreachable, which HTTP status, and a dropped stream ending the link
// (the SDK would otherwise leave a call whose response stream broke waiting for its timeout).
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  errorText,
  UpstreamExited,
  UpstreamUnavailable,
  type UpstreamLink,
  type UpstreamUrl,
} from "./upstream-link.js";
import { nodeHttpFetch } from "./node-fetch.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { VERSION } from "../version.js";

type WithCode = { code?: unknown; message?: unknown; errors?: unknown };

/** "connect ECONNREFUSED 127.0.0.1:9": what a failed fetch really met (undici hides it in `cause`). */
export function describeFetchFailure(e: unknown): string {
  let cause: unknown = e instanceof TypeError && e.cause !== undefined ? e.cause : e;
  // A host with several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError whose message is empty.
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[cause.errors.length - 1];
  const c = cause as WithCode;
  const message = typeof c?.message === "string" && c.message !== "" ? c.message : String(cause);
  const code = typeof c?.code === "string" ? c.code : null;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** An HTTP status the upstream answered, with the start of its body. */
function describeHttpError(e: StreamableHTTPError): string {
  const body = e.message
    .replace(/^Streamable HTTP error: /, "")
    .replace(/^Error POSTing to endpoint: /, "")
    .trim();
  const shown = body.length > 200 ? `${body.slice(0, 200)}...` : body;
  if (e.code === undefined || e.code < 0) return `answered something that is not MCP (${shown})`;
  return shown ? `answered HTTP ${e.code} (${shown})` : `answered HTTP ${e.code}`;
}

// Errors of a connection that was never made: the request did not reach the upstream at all.
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT"]);

function neverConnected(e: unknown): boolean {
  let cause: unknown = e instanceof TypeError ? e.cause : e;
  if (cause instanceof AggregateError) cause = cause.errors[0];
  const code = (cause as WithCode | undefined)?.code;
  return typeof code === "string" && NOT_CONNECTED.has(code);
}

const isFetchFailure = (e: unknown): boolean =>
  e instanceof TypeError && (e.message === "fetch failed" || e.cause !== undefined);

/** A failed fetch or an HTTP status: the SDK both logs it and rejects the request with it, so it is reported once, there. */
export function reachesTheCaller(e: unknown): boolean {
  return isFetchFailure(e) || e instanceof StreamableHTTPError;
}

/** True when the upstream answered 404 to a request that carried a session id: the session expired (MCP spec). */
export function isExpiredSession(e: unknown, hadSession: boolean): boolean {
  return hadSession && e instanceof StreamableHTTPError && e.code === 404;
}

/** A link over one Streamable HTTP session with the upstream at `target.url`. */
export function httpLink(target: UpstreamUrl, log: (line: string) => void): UpstreamLink & { hadSession(): boolean } {
  const fetchImpl = nodeHttpFetch({ bufferPostAnswers: true });
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    requestInit: { headers: { ...target.headers } },
    fetch: fetchImpl,
    // A stream the upstream dropped ends this link; the next call opens a new session instead of retrying in the dark.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  let lost: string | null = null;
  transport.onerror = (e) => {
    if (lost !== null || !/^SSE stream disconnected/.test(e.message)) return;
    lost = `the upstream server at ${target.url} dropped the connection`;
    log(`upstream: ${lost} (${e.message})`);
    void transport.close();
  };
  transport.onclose = () => {
    lost ??= "the connection to the upstream server was closed";
    fetchImpl.close();
  };
  const where = `the upstream server at ${target.url}`;
  const failure = (e: unknown): string | null => {
    if (isFetchFailure(e)) return `cannot reach ${where} (${describeFetchFailure(e)})`;
    if (e instanceof StreamableHTTPError) return `${where} ${describeHttpError(e)}`;
    return null;
  };
  const dropped = (what: string) =>
    new UpstreamExited(`${where} dropped the connection while running ${what}; the call was not completed`);
  return {
    transport,
    lost: () => lost,
    hadSession: () => transport.sessionId !== undefined,
    // A pooled socket the upstream closed a moment ago fails the initialize before it is sent; a fresh one tells the truth.
    startRetryable: (cause) => isFetchFailure(cause) && !neverConnected(cause),
    startFailure: (cause) => failure(cause) ?? `cannot connect to ${where}: ${errorText(cause)}`,
    requestFailure: (what, e) => {
      if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed && lost !== null) return dropped(what);
      // The request was sent but its answer never began: the same drop, seen before the response headers.
      if (isFetchFailure(e) && !neverConnected(e)) {
        log(`upstream: ${where} dropped the connection while running ${what} (${describeFetchFailure(e)})`);
        lost ??= `the upstream server at ${target.url} dropped the connection`;
        void transport.close();
        return dropped(what);
      }
      const why = failure(e);
      return why === null ? null : new UpstreamUnavailable(why, { cause: e });
    },
    get replacing() {
      return `${lost ?? "the upstream session ended"}; connecting to ${target.url} again with a new session`;
    },
  };
}

/**
 * True when the upstream at `target` serves MCP 2026-07-28: the SDK's client negotiates (server/discover, else the
 * 2025 initialize) and the era it settles on says. A legacy session it opened is ended again.
 */
export async function servesModern(target: UpstreamUrl, timeoutMs = 10_000): Promise<boolean> {
  const transport = new V2HttpTransport(new URL(target.url), { requestInit: { headers: { ...target.headers } } });
  const client = new V2Client(
    { name: "agent-ledger-mcp", version: VERSION },
    { versionNegotiation: { mode: "auto", probe: { timeoutMs } } },
  );
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const modern = client.getProtocolEra() === "modern";
    if (!modern) await transport.terminateSession().catch(() => undefined);
    return modern;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

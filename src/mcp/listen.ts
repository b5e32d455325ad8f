// `agent-ledger mcp --listen HOST:PORT`: the guarded tools served at http://HOST:PORT/mcp over Streamable HTTP, each
// MCP session its own connection to the proxy, so its own ledger session (and its own carry-over history).
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { classifyInboundRequest, isJsonContentType, PerRequestHTTPServerTransport } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import { jsonRpcError, McpHttpSessions } from "./http-sessions.js";
import { Pipe, type PipeTransport } from "./pipe.js";
import { nodeHttpFetch } from "./node-fetch.js";
import { relayFetch } from "./relay-fetch.js";
import type { GatewayProxy } from "./gateway-proxy.js";
import { GuardedProxy } from "./proxy.js";
import { ChildPool, stdioServesModern } from "./stdio-children.js";
import { paramHeaderRefusal, paramHeaders } from "./param-headers.js";
import { edgeRefusal } from "./standard-headers.js";
import { servesModern } from "./upstream-http.js";
import { describeTarget, errorText, type UpstreamTarget } from "./upstream-link.js";
import { ChildStdioTransport } from "./upstream-transport.js";

/** Where to listen. */
export type ListenAddress = { host: string; port: number };

/** A running HTTP front. */
export type ListeningProxy = { url: string; sessions: McpHttpSessions; close(): Promise<void> };

/** The front was asked to listen beyond this machine without a token. */
export class OpenFrontError extends Error {
  readonly code = "listen_without_token";
  constructor(message: string) {
    super(message);
    this.name = "OpenFrontError";
  }
}

/** "127.0.0.1:8788" or "[::1]:8788" as host and port; null when it is neither. */
export function parseListen(text: string): ListenAddress | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(text);
  if (!m) return null;
  const port = Number(m[3]);
  if (port > 65535) return null;
  return { host: m[1] ?? m[2]!, port };
}

/** True for an address only this machine can reach: localhost, 127.0.0.0/8 and ::1 (an IPv4-mapped 127.x too). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || h === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(h);
  return false;
}

/** "127.0.0.1:8788", "[::]:8788": an address as --listen takes it. */
const shown = (a: ListenAddress) => `${a.host.includes(":") ? `[${a.host}]` : a.host}:${a.port}`;

/**
 * Why the front may not listen at `address` as asked, or null when it may: anyone who can reach the port can call the
 * upstream's tools with the credentials the proxy holds, so an address beyond this machine needs a token.
 */
export function openFrontProblem(address: ListenAddress, token: string | undefined): string | null {
  if (token !== undefined || isLoopback(address.host)) return null;
  return (
    `--listen ${shown(address)} would serve the guarded tools, and the upstream's credentials with them, to anyone who ` +
    "can reach this machine: set AGENT_LEDGER_LISTEN_TOKEN (or --listen-token) to a secret of 16 or more characters, " +
    'which every client then sends as "Authorization: Bearer <token>", or listen on 127.0.0.1'
  );
}

const REALM = 'Bearer realm="agent-ledger mcp"';

/** A 401 in the front's JSON-RPC error shape, with the WWW-Authenticate challenge RFC 6750 asks for. */
const unauthorized = (message: string, challenge: string) =>
  jsonRpcError(401, -32000, message, { "www-authenticate": challenge });

/**
 * The 401 for a request whose Authorization header is not "Bearer <token>", or null when it is. The digests are
 * compared in constant time, so neither the token's characters nor its length show in how long a refusal takes.
 */
function bearerRefusal(header: string | undefined, expected: Buffer): Response | null {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  if (!m)
    return unauthorized(
      'this proxy needs "Authorization: Bearer <token>" with the token it was started with (AGENT_LEDGER_LISTEN_TOKEN or --listen-token)',
      REALM,
    );
  const given = createHash("sha256").update(m[1]!).digest();
  if (timingSafeEqual(given, expected)) return null;
  return unauthorized("the bearer token is not the one this proxy was started with", `${REALM}, error="invalid_token"`);
}

/**
 * A browser page may not drive the guarded tools: a request carrying an Origin other than this front's own host (or
 * a loopback name) is refused, the DNS-rebinding check the MCP transport specification asks servers to make.
 * @see https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#security-warning
 */
function originAllowed(origin: string | undefined, host: string): boolean {
  if (origin === undefined) return true;
  try {
    // URL writes an IPv6 hostname in brackets; --listen's host has none.
    const h = new URL(origin).hostname.replace(/^\[(.*)\]$/, "$1");
    return isLoopback(h) || h === host.toLowerCase();
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

/** The SDK's answer to a request its validation ladder refused (a mismatched Mcp-Method header, a bad envelope). */
function rejection(r: { httpStatus: number; code: number; message: string; data?: unknown }, body: unknown): Response {
  const id = typeof body === "object" && body !== null && "id" in body ? (body as { id: unknown }).id : null;
  const error =
    r.data === undefined ? { code: r.code, message: r.message } : { code: r.code, message: r.message, data: r.data };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error }), {
    status: r.httpStatus,
    headers: { "content-type": "application/json" },
  });
}

/**
 * Relays one front unit (a 2025-11-25 session or one 2026-07-28 request) to the upstream over a link of its own: an
 * HTTP session, a child of its own, or a child leased from the pool.
 */
async function openPipe(
  proxy: GuardedProxy,
  target: UpstreamTarget,
  front: PipeTransport,
  connection: { mcpSessionId?: () => string | undefined },
  log: (line: string) => void,
  link: PipeTransport | { fetch?: typeof fetch } = {},
): Promise<Pipe> {
  // A session's link reads each answer over node:http and hands it on as JSON when its first message is the response
  // (most calls: the SDK's stream parsing skipped), as the stream it is otherwise (see node-fetch.ts).
  const own =
    "url" in target && !("start" in link) && link.fetch === undefined
      ? nodeHttpFetch({ bufferPostAnswers: true, streamEarly: true })
      : null;
  const upstream =
    "start" in link
      ? link
      : "url" in target
        ? (new StreamableHTTPClientTransport(new URL(target.url), {
            requestInit: { headers: { ...target.headers } },
            fetch: link.fetch ?? own ?? undefined,
          }) as PipeTransport)
        : (new ChildStdioTransport(target) as PipeTransport);
  const where =
    "url" in target ? `the upstream server at ${target.url}` : `the upstream server '${describeTarget(target)}'`;
  const pipe = new Pipe(front, upstream, proxy.interceptor(connection), {
    log,
    describe: (e) => `${where} could not be reached: ${errorText(e)}`,
    onClose: () => own?.close(),
    paramHeaders: (tool, args) => paramHeaders(proxy.upstream.headerScan(tool), args),
  });
  try {
    await pipe.start();
  } catch (e) {
    await pipe.close();
    throw e;
  }
  return pipe;
}

/**
 * Serves `proxy` at http://host:port/mcp until closed. With a `token`, every request must carry it as a bearer token;
 * without one, only a loopback address is served (OpenFrontError otherwise).
 */
export async function listenProxy(
  proxy: GuardedProxy | GatewayProxy,
  address: ListenAddress,
  options: {
    log?: (line: string) => void;
    bodyLimit?: number;
    token?: string;
    /** A command upstream: at most this many children per revision (default 16). */
    maxChildren?: number;
    /** A command upstream: a child (and its 2025-11-25 session) unused this long is stopped (default ten minutes). */
    childIdleMs?: number;
  } = {},
): Promise<ListeningProxy> {
  const problem = openFrontProblem(address, options.token);
  if (problem !== null) throw new OpenFrontError(problem);
  const expected = options.token === undefined ? null : createHash("sha256").update(options.token).digest();
  // Each 2025-11-25 session of an HTTP upstream is relayed over a session of its own; 2026-07-28 requests are relayed
  // when the upstream serves that revision, else answered by the proxy over its own connection (as with a command).
  // A gateway of several upstreams answers everything over its own connections.
  const single = proxy instanceof GuardedProxy ? proxy : null;
  const target = single?.upstream.target;
  const relayed = target !== undefined && "url" in target ? target : null;
  // A command runs once per agent (see stdio-children.ts): a child per 2025-11-25 session, a pooled child leased per
  // 2026-07-28 request when the command serves that revision.
  const command = target !== undefined && !("url" in target) ? target : null;
  const piped = relayed ?? command;
  const maxChildren = options.maxChildren ?? 16;
  const childIdleMs = options.childIdleMs ?? 600_000;
  const modernRelay =
    relayed !== null ? await servesModern(relayed) : command !== null && (await stdioServesModern(command));
  const log = options.log ?? (() => undefined);
  const pool =
    command !== null && modernRelay ? new ChildPool(command, { max: maxChildren, idleMs: childIdleMs, log }) : null;
  const sessions = new McpHttpSessions({
    connect: (transport) => {
      const mcpSessionId = () => transport.sessionId;
      if (piped === null)
        return proxy.connect(transport, { labels: () => ({ mcp_session: transport.sessionId ?? "" }), mcpSessionId });
      return openPipe(single!, piped, transport as PipeTransport, { mcpSessionId }, log);
    },
    log: options.log,
    // A relayed session streams what the upstream sends during a request (progress, logging, its requests); so does a
    // gateway's (its upstreams' sampling, elicitation, roots and log messages reach the agent in the request's stream).
    jsonResponse: piped === null && single !== null,
    ...(command !== null ? { maxSessions: maxChildren, idleMs: childIdleMs } : {}),
  });
  const app = new Hono();
  const limit = options.bodyLimit ?? 4 * 1024 * 1024;
  app.all("/mcp", async (c) => {
    if (expected !== null) {
      const refused = bearerRefusal(c.req.header("authorization"), expected);
      if (refused) return refused;
    }
    if (!originAllowed(c.req.header("origin"), address.host))
      return jsonRpcError(403, -32000, `requests from the web origin ${c.req.header("origin")} are not accepted`);
    if (c.req.method !== "POST") return sessions.handle(c.req.raw);
    // As the SDK's own handler does before either revision's path (its 2026-07-28 transport does not check it).
    if (!isJsonContentType(c.req.header("content-type") ?? null))
      return jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    const body = await readJsonBody(c.req.raw, limit);
    if (body instanceof Response) return body;
    // A request of an open 2025-11-25 session (its Mcp-Session-Id, a revision no later than 2025-11-25) is legacy
    // whatever its body holds: the classifier's schema checks are skipped on the path most calls take.
    const revision = c.req.header("mcp-protocol-version");
    if (c.req.header("mcp-session-id") !== undefined && (revision === undefined || revision <= "2025-11-25"))
      return sessions.handle(c.req.raw, body.value);
    const route = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: c.req.header("mcp-protocol-version"),
      mcpMethodHeader: c.req.header("mcp-method"),
      mcpNameHeader: c.req.header("mcp-name"),
      body: body.value,
    });
    if (route.kind === "legacy") return sessions.handle(c.req.raw, body.value);
    if (route.kind === "reject") return rejection(route, body.value);
    const refused = edgeRefusal(
      {
        protocolVersion: c.req.header("mcp-protocol-version"),
        method: c.req.header("mcp-method"),
        name: c.req.header("mcp-name"),
      },
      {
        kind: route.messageKind,
        method: route.message.method,
        params: route.message.params,
        revision: route.classification.revision,
      },
    );
    if (refused !== null) return rejection(refused, body.value);
    // A tool's x-mcp-header arguments (SEP-2243): the agent's Mcp-Param-* headers must say what its arguments say.
    const call = route.message.method === "tools/call" ? route.message.params : undefined;
    if (call !== undefined && typeof call.name === "string") {
      const param = paramHeaderRefusal(proxy.headerScan(call.name), call.arguments, (h) => c.req.header(h));
      if (param !== null) return rejection(param, body.value);
    }
    // MCP 2026-07-28: each request on its own, through its own exchange with the upstream.
    const transport = new PerRequestHTTPServerTransport({ classification: route.classification });
    if (pool !== null) {
      const params = (route.message as { params?: { requestState?: unknown } }).params;
      const lease = await pool.lease(single!.upstreamRequestState(params?.requestState));
      await openPipe(single!, command!, transport as PipeTransport, {}, log, lease);
      return transport.handleMessage(route.message, { request: c.req.raw });
    }
    if (relayed === null || !modernRelay) {
      await proxy.connect(transport, { modern: true });
      return transport.handleMessage(route.message, { request: c.req.raw });
    }
    // An HTTP error of the upstream (an unsupported version, a removed method) reaches the agent as it came.
    const exchange = relayFetch();
    const pipe = await openPipe(single!, relayed, transport as PipeTransport, {}, log, { fetch: exchange.fetch });
    const answer = await Promise.race([
      transport.handleMessage(route.message, { request: c.req.raw }),
      exchange.failure,
    ]);
    if (answer !== (await Promise.race([exchange.failure, Promise.resolve(null)]))) return answer;
    void pipe.close();
    return answer;
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
          await pool?.close();
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

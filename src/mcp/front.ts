// The agent-facing side of one proxy connection, at the JSON-RPC message level over any SDK server transport
// (stdio, Streamable HTTP, in-memory). It does what the SDK's Server did for the proxy (initialize with version
// negotiation, ping, "Method not found", cancellation, error replies) without its schema parsing of every request and
// result: the proxy's tools/list and tools/call handlers answer plain results, relayed from the upstream as they came.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { type CacheScope, PROTOCOL_VERSION_META_KEY, SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import { MODERN_REVISION, unsupportedRevision } from "./standard-headers.js";
import type { RpcError } from "./upstream-raw.js";

/** A handler's answer: a result to send, or a JSON-RPC error (an upstream's, handed on unchanged). */
export type Reply = { result: unknown; error?: undefined } | { result?: undefined; error: RpcError };

/** The request as a handler sees it: its params and what the transport knew (HTTP headers). */
export type FrontRequest = {
  id: string | number;
  params: Record<string, unknown>;
  extra: MessageExtraInfo | undefined;
};

/** What one connection serves. */
export type FrontOptions = {
  serverInfo: { name: string; version: string };
  instructions?: string;
  /** Called on notifications/initialized (a new agent session begins). */
  onInitialized?: () => void;
  /** Hears the agent's other notifications (roots list_changed); dropped without it. */
  onNotification?: (method: string, params: Record<string, unknown>) => void;
  onClose?: () => void;
  /**
   * MCP 2026-07-28: one request, no initialize; server/discover is answered, results carry `resultType` and the
   * server's identity in `_meta`, as that revision asks.
   */
  modern?: boolean;
  /** The capabilities announced (the upstream's, relayed; tools only by default). */
  capabilities?: Record<string, unknown>;
  /** Answers any method without a handler (the upstream, relayed); without it, "Method not found". */
  fallback?: (method: string, params: Record<string, unknown>) => Promise<Reply>;
  /** The methods served besides initialize and ping; any other method goes to `fallback`. */
  handlers: Readonly<Record<string, (req: FrontRequest) => Promise<Reply>>>;
};

type Id = string | number;

type Incoming = { id?: Id; method?: string; params?: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// MCP 2026-07-28 (SEP-2549): these results are cacheable and must say for how long and for whom. A result that says
// nothing valid gets the SDK's defaults (not cached, private), which is also right for a proxy whose lists may change.
const CACHEABLE = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "server/discover",
]);
const DEFAULT_TTL_MS = 0;
const DEFAULT_CACHE_SCOPE: CacheScope = "private";

/** A 2026-07-28 result as that revision asks: `resultType`, cache fields where cacheable, the server in `_meta`. */
function modernResult(
  method: string,
  result: Record<string, unknown>,
  serverInfo: FrontOptions["serverInfo"],
): Record<string, unknown> {
  const meta = isObject(result._meta) ? result._meta : {};
  const out: Record<string, unknown> = {
    resultType: "complete",
    ...result,
    _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo },
  };
  if (out.resultType === "complete" && CACHEABLE.has(method)) {
    const ttl = out.ttlMs;
    if (!(typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl >= 0)) out.ttlMs = DEFAULT_TTL_MS;
    if (out.cacheScope !== "public" && out.cacheScope !== "private") out.cacheScope = DEFAULT_CACHE_SCOPE;
  }
  return out;
}

/** The reply to a handler that threw, formatted as the SDK's Protocol formats it. */
function errorReply(e: unknown): Reply {
  const err = e as { code?: unknown; message?: unknown; data?: unknown };
  const code = typeof err?.code === "number" && Number.isSafeInteger(err.code) ? err.code : ErrorCode.InternalError;
  const message = typeof err?.message === "string" ? err.message : "Internal error";
  // An McpError's message carries "MCP error <code>: " in front; the wire message is the part after it.
  const wire = e instanceof McpError ? message.replace(/^MCP error -?\d+: /, "") : message;
  return { error: err?.data === undefined ? { code, message: wire } : { code, message: wire, data: err.data } };
}

/** One agent connection over `transport`, served until the transport closes. */
export class FrontConnection {
  private clientName: string | undefined;
  private negotiated: string | undefined;
  // Requests being answered, so a notifications/cancelled for one suppresses its reply (as the SDK's Server does).
  private readonly inFlight = new Set<Id>();
  private readonly cancelled = new Set<Id>();
  // Requests sent to the agent (a gateway relaying an upstream's sampling, elicitation, roots), by id.
  private readonly asked = new Map<Id, (r: Reply) => void>();
  private nextAsk = 0;
  private closedNow = false;

  constructor(
    private readonly transport: Transport,
    private readonly options: FrontOptions,
  ) {}

  /** The revision a request is served in: the one its `_meta` names (2026-07-28), else the one initialize settled on. */
  protocolVersionOf(params: Record<string, unknown>): string | undefined {
    const named = isObject(params._meta) ? params._meta[PROTOCOL_VERSION_META_KEY] : undefined;
    return typeof named === "string" ? named : this.negotiated;
  }

  /** The client's name from its last initialize request. */
  get clientVersionName(): string | undefined {
    return this.clientName;
  }

  /** Starts reading the transport. */
  async start(): Promise<void> {
    this.transport.onmessage = (message, extra) => this.receive(message, extra);
    this.transport.onclose = () => {
      this.closedNow = true;
      const waiting = [...this.asked.values()];
      this.asked.clear();
      for (const answer of waiting)
        answer({ error: { code: ErrorCode.ConnectionClosed, message: "the agent's connection closed" } });
      this.options.onClose?.();
    };
    await this.transport.start();
  }

  /**
   * Sends the agent a request (an upstream's sampling, elicitation or roots request, relayed) and answers its result
   * or error; `relatedRequestId` is the agent's request it belongs to, so an HTTP front streams it in that answer.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    relatedRequestId?: Id,
    signal?: AbortSignal,
  ): Promise<Reply> {
    if (this.closedNow)
      return Promise.resolve({ error: { code: ErrorCode.ConnectionClosed, message: "the agent's connection closed" } });
    // A 2026-07-28 exchange has no channel back to the agent (that revision asks through input_required results).
    if (this.options.modern)
      return Promise.resolve({
        error: {
          code: ErrorCode.MethodNotFound,
          message: `the agent speaks MCP ${MODERN_REVISION}, which takes no ${method} request from a server`,
        },
      });
    const id = `agent-ledger-${++this.nextAsk}`;
    return new Promise<Reply>((resolve) => {
      this.asked.set(id, resolve);
      // The upstream gave up on its request: the agent is told, and its late answer has no one waiting.
      signal?.addEventListener("abort", () => {
        if (!this.asked.delete(id)) return;
        this.notify("notifications/cancelled", { requestId: id, reason: "the upstream server cancelled it" });
        resolve({ error: { code: ErrorCode.RequestTimeout, message: "cancelled by the upstream server" } });
      });
      const message = { jsonrpc: "2.0", id, method, params } as JSONRPCMessage;
      this.transport.send(message, { relatedRequestId }).catch((e: unknown) => {
        if (!this.asked.delete(id)) return;
        resolve({ error: { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) } });
      });
    });
  }

  /** Sends the agent a notification (list_changed, resources/updated, a log message), in `relatedRequestId`'s answer when given. */
  notify(method: string, params: Record<string, unknown>, relatedRequestId?: Id): void {
    if (this.closedNow) return;
    const message = { jsonrpc: "2.0", method, params } as JSONRPCMessage;
    this.transport.send(message, { relatedRequestId }).catch(() => undefined);
  }

  /** Closes the transport (and so the connection). */
  close(): Promise<void> {
    return this.transport.close();
  }

  private receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const m = message as Incoming & { result?: unknown; error?: unknown };
    if (m.method === undefined) {
      // The agent's answer to a request relayed to it (any other response has no one waiting and is dropped).
      const waiting = m.id === undefined ? undefined : this.asked.get(m.id);
      if (waiting === undefined) return;
      this.asked.delete(m.id!);
      waiting(m.error !== undefined ? { error: m.error as RpcError } : { result: m.result });
      return;
    }
    if (m.id === undefined) {
      this.notified(m.method, m.params);
      return;
    }
    const id = m.id;
    const params = isObject(m.params) ? m.params : {};
    // A request naming a later stateless revision than ours is told the one we serve, so its client can retry with it.
    const claimed = isObject(params._meta) ? params._meta[PROTOCOL_VERSION_META_KEY] : undefined;
    const unsupported = typeof claimed === "string" ? unsupportedRevision(claimed) : null;
    if (unsupported !== null) {
      const { code, message, data } = unsupported;
      this.reply(id, { error: { code, message, data } });
      return;
    }
    // A 2026-07-28 request names its revision in `_meta`; on stdio both revisions share one connection.
    const modernMethod = this.options.modern === true || claimed === MODERN_REVISION ? m.method : null;
    const answer = this.answer(id, m.method, params, extra);
    if (!(answer instanceof Promise)) {
      this.reply(id, answer, modernMethod);
      return;
    }
    this.inFlight.add(id);
    answer.then(
      (r) => this.replyOnce(id, r, modernMethod),
      (e: unknown) => this.replyOnce(id, errorReply(e), modernMethod),
    );
  }

  private answer(
    id: Id,
    method: string,
    params: Record<string, unknown>,
    extra: MessageExtraInfo | undefined,
  ): Reply | Promise<Reply> {
    if (method === "initialize" && !this.options.modern) return this.initialize(params);
    if (method === "server/discover") return this.discover();
    if (method === "ping") return { result: {} };
    const handler = Object.hasOwn(this.options.handlers, method) ? this.options.handlers[method] : undefined;
    if (handler === undefined) {
      if (this.options.fallback) return this.options.fallback(method, params);
      return { error: { code: ErrorCode.MethodNotFound, message: "Method not found" } };
    }
    return handler({ id, params, extra });
  }

  private notified(method: string, params: unknown): void {
    if (method === "notifications/initialized") this.options.onInitialized?.();
    else if (method === "notifications/cancelled" && isObject(params)) {
      const id = params.requestId as Id | undefined;
      if (id !== undefined && this.inFlight.has(id)) this.cancelled.add(id);
    }
    // Any other notification (progress, roots changed) goes to onNotification, or is dropped, as the Server did.
    else this.options.onNotification?.(method, isObject(params) ? params : {});
  }

  private initialize(params: Record<string, unknown>): Reply {
    const requested = params.protocolVersion;
    if (typeof requested !== "string")
      return { error: { code: ErrorCode.InvalidParams, message: "initialize needs params.protocolVersion, a string" } };
    const info = params.clientInfo;
    this.clientName = isObject(info) && typeof info.name === "string" ? info.name : undefined;
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    this.negotiated = protocolVersion;
    const result: Record<string, unknown> = {
      protocolVersion,
      capabilities: this.options.capabilities ?? { tools: {} },
      serverInfo: this.options.serverInfo,
    };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return { result };
  }

  private discover(): Reply {
    const result: Record<string, unknown> = {
      supportedVersions: [MODERN_REVISION],
      capabilities: this.options.capabilities ?? { tools: {} },
      serverInfo: this.options.serverInfo,
    };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return { result };
  }

  private replyOnce(id: Id, r: Reply, modernMethod: string | null): void {
    this.inFlight.delete(id);
    if (this.cancelled.delete(id)) return;
    this.reply(id, r, modernMethod);
  }

  /** Sends a reply; `modernMethod` names a request served in 2026-07-28, whose result that revision shapes. */
  private reply(id: Id, r: Reply, modernMethod: string | null = null): void {
    if (modernMethod !== null && r.error === undefined && isObject(r.result))
      r = { result: modernResult(modernMethod, r.result, this.options.serverInfo) };
    const message = (
      r.error === undefined ? { jsonrpc: "2.0", id, result: r.result } : { jsonrpc: "2.0", id, error: r.error }
    ) as JSONRPCMessage;
    this.transport.send(message, { relatedRequestId: id }).catch(() => undefined);
  }
}

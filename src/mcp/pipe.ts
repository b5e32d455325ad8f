// One agent's traffic relayed to the upstream message by message, between two of the SDK's own transports: a 2025-11-25
// session (or one 2026-07-28 request) on the front, its own link to the upstream behind. Everything passes as it came
// (capabilities, resources, prompts, completion, logging, progress, cancellation, server-to-client requests and their
// answers, input_required results, caching hints), except the two methods the proxy exists for: `tools/list` and
// `tools/call`, which the proxy answers through `relay`, sending on through the same link.

import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";

/** A JSON-RPC message as the pipe sees it (any of request, notification, response). */
export type Message = {
  jsonrpc: "2.0";
  id?: string | number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
};

/** The SDK transport shape both sides share (server transports on the front, client transports behind). */
export type PipeTransport = {
  start(): Promise<void>;
  send(
    message: never,
    options?: { relatedRequestId?: string | number; headers?: Record<string, string> },
  ): Promise<void>;
  close(): Promise<void>;
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
};

/** The upstream's answer to one request: its result or its JSON-RPC error, as it came. */
export type PipeAnswer =
  | { result: unknown; error?: undefined }
  | { result?: undefined; error: { code: number; message: string; data?: unknown } };

/** What the front knew about a request (its HTTP request, for headers). */
export type PipeRequestInfo = {
  id: string | number;
  method: string;
  params: Record<string, unknown>;
  request?: Request;
};

/**
 * Answers a request the proxy changes, or null to let it pass. `send` forwards params (changed or not) upstream under
 * the request's own id and resolves with the upstream's answer; messages the upstream sends meanwhile keep flowing.
 */
export type PipeInterceptor = (
  req: PipeRequestInfo,
  send: (params: Record<string, unknown>, timeoutMs?: number) => Promise<PipeAnswer>,
) => Promise<PipeAnswer> | null;

/** The upstream did not answer a request in time; it was told the request is cancelled. */
export class PipeTimeout extends Error {
  readonly code = "upstream_timeout";
  constructor(message: string) {
    super(message);
    this.name = "PipeTimeout";
  }
}

type Id = string | number;
type Waiting = { resolve(a: PipeAnswer): void; reject(e: Error): void };

// How long a closing pipe waits for the answers the interceptor is still making before it closes the front.
const CLOSING_ANSWER_MS = 2000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The upstream link could not carry a message (it failed or closed). */
export class PipeBroken extends Error {
  readonly code = "upstream_link_broken";
  constructor(message: string) {
    super(message);
    this.name = "PipeBroken";
  }
}

/** One front unit relayed to one upstream link until either side closes. */
export class Pipe {
  // Agent requests being answered, oldest first, with their progress tokens: where upstream messages belong.
  private readonly inFlight = new Map<Id, { progressToken?: unknown }>();
  private readonly waiting = new Map<Id, Waiting>();
  private readonly abandoned = new Set<Id>();
  // Answers the interceptor is still making: a closing pipe sends them before it closes the front.
  private readonly answering = new Set<Promise<void>>();
  private readonly intercepted = new Set<Id>();
  private closed = false;
  private upstreamGone = false;

  constructor(
    private readonly front: PipeTransport,
    private readonly upstream: PipeTransport,
    private readonly intercept: PipeInterceptor,
    private readonly options: {
      log?: (line: string) => void;
      onClose?: () => void;
      describe?: (e: unknown) => string;
      /** The Mcp-Param-* headers a 2026-07-28 tools/call with these arguments carries upstream (SEP-2243). */
      paramHeaders?: (tool: string, args: unknown) => Record<string, string>;
    } = {},
  ) {}

  /** Starts both transports; the upstream first, so no agent message arrives before it can be sent on. */
  async start(): Promise<void> {
    this.upstream.onmessage = ((m: Message) => this.fromUpstream(m)) as never;
    this.upstream.onclose = () => this.close();
    this.upstream.onerror = (e) => this.options.log?.(`upstream: ${e.message}`);
    this.front.onmessage = ((m: Message, extra?: { request?: Request }) => this.fromFront(m, extra?.request)) as never;
    // Whoever made the front transport (the session table) hears of its close too.
    const frontClosed = this.front.onclose;
    this.front.onclose = () => {
      frontClosed?.();
      void this.close();
    };
    await this.upstream.start();
    await this.front.start();
  }

  /** Closes both sides once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const broken = new PipeBroken("the link to the upstream server closed");
    for (const w of this.waiting.values()) w.reject(broken);
    this.waiting.clear();
    // The agent hears how each of its requests ended (a child that crashed mid-call) before its stream closes: an
    // intercepted one as the interceptor answers it, a relayed one as an error.
    for (const id of [...this.inFlight.keys()]) {
      if (this.intercepted.has(id)) continue;
      this.answerFront(id, { error: { code: -32603, message: broken.message } });
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((done) => {
      timer = setTimeout(done, CLOSING_ANSWER_MS);
    });
    await Promise.race([Promise.allSettled([...this.answering]), late]);
    clearTimeout(timer);
    // An agent session that ends ends its upstream session too (most upstreams keep one until an idle timeout).
    const link = this.upstream as { terminateSession?: () => Promise<void> };
    if (!this.upstreamGone) await link.terminateSession?.().catch(() => undefined);
    await Promise.allSettled([this.upstream.close(), this.front.close()]);
    this.options.onClose?.();
  }

  private fromFront(m: Message, request: Request | undefined): void {
    if (m.method !== undefined && m.id !== undefined) {
      const params = isObject(m.params) ? m.params : {};
      const meta = isObject(params._meta) ? params._meta : undefined;
      this.inFlight.set(m.id, { progressToken: meta?.progressToken });
      const id = m.id;
      const answer = this.intercept({ id, method: m.method, params, request }, (p, ms) =>
        this.ask(id, m.method!, p, ms),
      );
      if (answer === null) {
        this.toUpstream(m);
        return;
      }
      this.intercepted.add(id);
      const answered = answer
        .then(
          (a) => this.answerFront(id, a),
          (e: unknown) =>
            this.answerFront(id, { error: { code: -32603, message: this.options.describe?.(e) ?? String(e) } }),
        )
        .finally(() => {
          this.intercepted.delete(id);
          this.answering.delete(answered);
        });
      this.answering.add(answered);
      return;
    }
    // Notifications (initialized, cancelled, progress, roots changed) and the agent's answers to upstream requests.
    this.toUpstream(m);
  }

  private toUpstream(m: Message): void {
    // Over HTTP the agent learns its session id from the answer's headers, before the initialize result comes; what it
    // sends meanwhile waits here, since the upstream's own session id only comes with that result.
    if (this.held !== null) return void this.held.push(m);
    if (m.method === "initialize") {
      this.initializeId = m.id;
      this.held = [];
    }
    this.upstream.send(m as never, this.sendOptions(m)).catch((e: unknown) => {
      if (m.method === "initialize") this.releaseHeld();
      // The upstream no longer knows this session (it restarted): the agent's session ends too, so its next request is
      // answered 404 and it starts a new one, which opens a new upstream session (MCP 2025-11-25 session rules).
      const gone = (e as { status?: unknown } | null)?.status === 404 && this.initializeId !== undefined;
      if (gone) {
        this.upstreamGone = true;
        setImmediate(() => void this.close());
      }
      if (m.id === undefined || m.method === undefined) return;
      const w = this.waiting.get(m.id);
      if (w) {
        this.waiting.delete(m.id);
        w.reject(
          gone
            ? new PipeBroken("the upstream server ended its session")
            : e instanceof Error
              ? e
              : new Error(String(e)),
        );
        return;
      }
      const why = this.options.describe?.(e) ?? (e instanceof Error ? e.message : String(e));
      this.answerFront(m.id, { error: { code: -32603, message: why } });
    });
  }

  /** A 2026-07-28 tools/call carries the headers its tool's x-mcp-header declarations ask for, as the SDK Client adds. */
  private sendOptions(m: Message): { headers: Record<string, string> } | undefined {
    if (m.method !== "tools/call" || this.options.paramHeaders === undefined || !isObject(m.params)) return undefined;
    const { name, arguments: args, _meta } = m.params;
    if (typeof name !== "string" || !isObject(_meta) || _meta[PROTOCOL_VERSION_META_KEY] === undefined)
      return undefined;
    const headers = this.options.paramHeaders(name, args);
    return Object.keys(headers).length > 0 ? { headers } : undefined;
  }

  private initializeId: Id | undefined;
  // Messages of the agent sent after its initialize and before the upstream answered it, in order; null when none wait.
  private held: Message[] | null = null;

  /** Sends on what waited for the upstream's answer to initialize (its session id, its protocol version). */
  private releaseHeld(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const m of held) this.toUpstream(m);
  }

  private ask(id: Id, method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<PipeAnswer> {
    if (this.closed) return Promise.reject(new PipeBroken("the link to the upstream server closed"));
    return new Promise<PipeAnswer>((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              if (!this.waiting.delete(id)) return;
              this.abandoned.add(id);
              this.toUpstream({
                jsonrpc: "2.0",
                method: "notifications/cancelled",
                params: { requestId: id, reason: "timed out" },
              });
              reject(new PipeTimeout(`no answer to ${method} in ${timeoutMs} ms`));
            }, timeoutMs);
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          clearTimeout(timer);
          f(v);
        };
      this.waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
      this.toUpstream({ jsonrpc: "2.0", id, method, params });
    });
  }

  private fromUpstream(m: Message): void {
    if (m.method === undefined && m.id !== undefined) {
      // The 2025 handshake passes through; the negotiated version then goes in the upstream requests' header, as the
      // SDK's Client would set it.
      if (m.id === this.initializeId) {
        if (isObject(m.result) && typeof m.result.protocolVersion === "string")
          this.upstream.setProtocolVersion?.(m.result.protocolVersion);
        this.releaseHeld();
      }
      const w = this.waiting.get(m.id);
      if (w) {
        this.waiting.delete(m.id);
        w.resolve(m.error !== undefined ? { error: m.error as never } : { result: m.result });
        return;
      }
      // The late answer of a request the proxy already answered (a timeout) is not the agent's any more.
      if (this.abandoned.delete(m.id)) return;
      this.inFlight.delete(m.id);
      void this.front.send(m as never, { relatedRequestId: m.id }).catch(() => undefined);
      return;
    }
    void this.front.send(m as never, { relatedRequestId: this.relatedTo(m) }).catch(() => undefined);
  }

  /** The agent request an upstream message belongs to: by progress token, else the latest in flight (none: unrelated). */
  private relatedTo(m: Message): Id | undefined {
    const params = isObject(m.params) ? m.params : {};
    if (m.method === "notifications/progress") {
      for (const [id, r] of this.inFlight)
        if (r.progressToken !== undefined && r.progressToken === params.progressToken) return id;
    }
    // Server-wide news goes on the agent's standing stream, not into the answer of whatever request is open.
    if (m.method === "notifications/resources/updated" || m.method?.endsWith("/list_changed")) return undefined;
    let last: Id | undefined;
    for (const id of this.inFlight.keys()) last = id;
    return last;
  }

  private answerFront(id: Id, a: PipeAnswer): void {
    this.inFlight.delete(id);
    const message =
      a.error === undefined ? { jsonrpc: "2.0", id, result: a.result } : { jsonrpc: "2.0", id, error: a.error };
    void this.front.send(message as never, { relatedRequestId: id }).catch(() => undefined);
  }
}

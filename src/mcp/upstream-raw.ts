// Requests the proxy relays to the upstream as plain JSON-RPC messages over the SDK client transport the SDK's Client
// already opened (initialize and tools/list stay the Client's). A relayed call costs one message each way and no
// schema parsing of its answer: the upstream's result or error is handed on as it came. Ids of relayed requests come
// from their own range, far above the Client's counter, so the two never answer each other's requests.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC error object, as the upstream answered it. */
export type RpcError = { code: number; message: string; data?: unknown };

/** The upstream's answer to one relayed request: its result, or its JSON-RPC error. */
export type RawAnswer = { result: unknown; error?: undefined } | { result?: undefined; error: RpcError };

type Pending = { resolve(answer: RawAnswer): void; reject(e: Error): void; timer: NodeJS.Timeout };

// The SDK Client numbers its own requests from 0; relayed ones start here.
const FIRST_ID = 1_000_000_000;

// The SDK's own default request timeout (DEFAULT_REQUEST_TIMEOUT_MSEC).
const DEFAULT_TIMEOUT_MS = 60_000;

type Incoming = { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

/**
 * Who answers what the upstream sends besides answers (a gateway): its requests (sampling, elicitation, roots) and its
 * notifications (list_changed, resources/updated, logging). Without one, the SDK Client hears them, as before.
 */
export type UpstreamPeer = {
  /** The client capabilities announced to the upstream at initialize (sampling, elicitation, roots). */
  readonly capabilities: Record<string, unknown>;
  /**
   * Answers one request of the upstream (its result or JSON-RPC error goes back as it came); `signal` aborts when the
   * upstream cancels the request (notifications/cancelled), after which no answer is sent.
   */
  request(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<RawAnswer>;
  /** Hears one notification of the upstream. */
  notify(method: string, params: Record<string, unknown>): void;
};

const paramsOf = (m: Incoming): Record<string, unknown> =>
  typeof m.params === "object" && m.params !== null && !Array.isArray(m.params)
    ? (m.params as Record<string, unknown>)
    : {};

/** The relayed requests of one upstream connection, installed after the Client connected over `transport`. */
export class RawChannel {
  private nextId = FIRST_ID;
  private readonly pending = new Map<number, Pending>();
  // The upstream's requests the peer is answering, by the upstream's id, so its cancellation reaches the peer.
  private readonly answering = new Map<unknown, AbortController>();

  constructor(
    private readonly transport: Transport,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
    private readonly peer?: UpstreamPeer,
  ) {
    const inner = transport.onmessage;
    // A response to a relayed request is taken here; every other message goes on to the SDK Client as before (a peer
    // takes the upstream's requests other than ping, and hears its notifications too).
    transport.onmessage = (message, extra) => {
      const m = message as Incoming;
      if (m.method === undefined && typeof m.id === "number" && m.id >= FIRST_ID && this.settle(m)) return;
      if (this.peer && typeof m.method === "string") {
        if (m.id !== undefined && m.method !== "ping") return this.answerPeer(m.id, m.method, paramsOf(m));
        if (m.id === undefined && m.method === "notifications/cancelled")
          this.answering.get(paramsOf(m).requestId)?.abort();
        else if (m.id === undefined) this.peer.notify(m.method, paramsOf(m));
      }
      inner?.(message, extra);
    };
    const innerClose = transport.onclose;
    transport.onclose = () => {
      this.failAll(new McpError(ErrorCode.ConnectionClosed, "Connection closed"));
      innerClose?.();
    };
  }

  /** How many relayed requests wait for an answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends one request and answers the upstream's response. Rejects as the SDK Client would: McpError
   * RequestTimeout after the timeout (the upstream is told the request is cancelled), McpError ConnectionClosed when
   * the transport closes first, or the transport's own error when the message cannot be sent.
   */
  request(method: string, params: Record<string, unknown>): Promise<RawAnswer> {
    const id = this.nextId++;
    return new Promise<RawAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        void this.transport
          .send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "timed out" } })
          .catch(() => undefined);
        reject(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: this.timeoutMs }));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.transport.send({ jsonrpc: "2.0", id, method, params }).catch((e: unknown) => {
        const p = this.pending.get(id);
        if (!p) return;
        this.pending.delete(id);
        clearTimeout(p.timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      });
    });
  }

  /** Hands an upstream request to the peer and sends its answer back under the request's id. */
  private answerPeer(id: unknown, method: string, params: Record<string, unknown>): void {
    const abort = new AbortController();
    this.answering.set(id, abort);
    const reply = (a: RawAnswer) => {
      this.answering.delete(id);
      // A cancelled request is not answered (MCP cancellation: the receiver sends no response).
      if (abort.signal.aborted) return;
      void this.transport
        .send(
          (a.error === undefined
            ? { jsonrpc: "2.0", id, result: a.result }
            : { jsonrpc: "2.0", id, error: a.error }) as JSONRPCMessage,
        )
        .catch(() => undefined);
    };
    this.peer!.request(method, params, abort.signal).then(reply, (e: unknown) =>
      reply({ error: { code: ErrorCode.InternalError, message: e instanceof Error ? e.message : String(e) } }),
    );
  }

  /** Sends one notification (the agent's roots list_changed, relayed). */
  notify(method: string, params: Record<string, unknown>): Promise<void> {
    return this.transport.send({ jsonrpc: "2.0", method, params } as JSONRPCMessage);
  }

  private settle(m: Incoming): boolean {
    const id = m.id as number;
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (m.error !== undefined) p.resolve({ error: m.error as RpcError });
    else p.resolve({ result: m.result });
    return true;
  }

  private failAll(e: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) {
      clearTimeout(p.timer);
      p.reject(e);
    }
  }
}

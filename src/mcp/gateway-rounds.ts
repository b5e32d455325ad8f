// A 2026-07-28 agent takes no request from a server: what an upstream asks during its call (sampling, elicitation,
// roots) is answered to the agent as an `input_required` result, and the agent's retry carries the answers. A gateway's
// upstreams speak 2025-11-25 over one shared connection, so their tools/call stays in flight across the agent's rounds:
// a HeldCall keeps it, takes the upstream's requests while the agent is away, and answers each round with what waits.
// Its `requestState` names it; for a guarded tool, GuardedProxy wraps that in its own signed state (see rounds.ts), so
// the call is recorded once, at its first round.
import { randomBytes } from "node:crypto";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { FrontConnection, Reply } from "./front.js";
import type { GatewayAgents, InFlight } from "./gateway-agents.js";
import type { GatewayRound } from "./proxy.js";
import { toolErrorReply } from "./results.js";

const PREFIX = "agent-ledger.gateway.";

type Waiting = { method: string; params: Record<string, unknown>; answer(r: Reply): void };

// The input key of an upstream request, by its method ("elicitation-1", "sampling-2", "roots-3").
const KINDS: Record<string, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** One upstream tools/call of a 2026-07-28 agent, held across its input_required rounds. */
export class HeldCall {
  readonly requestState = `${PREFIX}${randomBytes(16).toString("base64url")}`;
  private readonly waiting = new Map<string, Waiting>();
  private outcome: { reply: Reply } | { error: unknown } | null = null;
  private wake: (() => void) | null = null;
  private nextKey = 0;
  private timer: NodeJS.Timeout | undefined;

  /**
   * `timeoutMs` bounds how long the agent may take to come back with its answers (the upstream's requests are then
   * answered an error and the call forgotten); `onEnd` runs once, when the call is answered or given up.
   */
  constructor(private readonly options: { timeoutMs: number; onEnd: () => void }) {}

  /** Starts holding the upstream's call. */
  start(call: Promise<Reply>): void {
    call.then(
      (reply) => this.settle({ reply }),
      (error: unknown) => this.settle({ error }),
    );
  }

  /** An upstream request during the call: it waits for the agent's answer in a later round. */
  ask(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Reply> {
    if (this.outcome !== null)
      return Promise.resolve({ error: { code: ErrorCode.InternalError, message: "the agent's call has ended" } });
    const key = `${KINDS[method] ?? "input"}-${++this.nextKey}`;
    return new Promise<Reply>((answer) => {
      this.waiting.set(key, { method, params, answer });
      // Asked while the agent is away (no round waiting): it has as long to come back as after a round.
      if (this.wake === null) this.arm();
      // The upstream gave up on its request: it is not asked of the agent any more, and a late answer is dropped.
      signal?.addEventListener("abort", () => {
        if (this.waiting.delete(key))
          answer({ error: { code: ErrorCode.RequestTimeout, message: "cancelled by the upstream server" } });
      });
      this.poke();
    });
  }

  /**
   * The answer of one round: the agent's `inputResponses` go to the requests they answer, then the call's own answer
   * when it ends, else an input_required result with every request still waiting.
   */
  async round(inputResponses?: unknown): Promise<Reply> {
    clearTimeout(this.timer);
    if (typeof inputResponses === "object" && inputResponses !== null)
      for (const [key, value] of Object.entries(inputResponses)) {
        const w = this.waiting.get(key);
        if (!w) continue;
        this.waiting.delete(key);
        w.answer({ result: value });
      }
    for (;;) {
      const outcome = this.outcome;
      if (outcome !== null) {
        if ("error" in outcome) throw outcome.error;
        return outcome.reply;
      }
      if (this.waiting.size > 0) {
        this.arm();
        return { result: this.inputRequired() };
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.abandon(), this.options.timeoutMs);
    this.timer.unref();
  }

  private inputRequired(): Record<string, unknown> {
    const inputRequests: Record<string, unknown> = {};
    for (const [key, w] of this.waiting)
      inputRequests[key] =
        Object.keys(w.params).length > 0 ? { method: w.method, params: w.params } : { method: w.method };
    return { resultType: "input_required", inputRequests, requestState: this.requestState };
  }

  private settle(outcome: { reply: Reply } | { error: unknown }): void {
    this.outcome = outcome;
    clearTimeout(this.timer);
    this.options.onEnd();
    this.poke();
  }

  /** The agent did not come back in time: the upstream's requests are answered an error, so its call can end. */
  private abandon(): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    const message = `the agent did not answer within ${this.options.timeoutMs / 1000} s`;
    for (const w of all) w.answer({ error: { code: ErrorCode.RequestTimeout, message } });
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/** The held calls of a gateway, by their requestState. */
export class HeldCalls {
  private readonly calls = new Map<string, HeldCall>();

  constructor(private readonly timeoutMs: number) {}

  /** A new held call; it is forgotten when it ends. */
  open(onEnd: () => void = () => undefined): HeldCall {
    const held: HeldCall = new HeldCall({
      timeoutMs: this.timeoutMs,
      onEnd: () => {
        // Its last round still reads the outcome; a later retry with this state is a new call.
        setTimeout(() => this.calls.delete(held.requestState), this.timeoutMs).unref();
        onEnd();
      },
    });
    this.calls.set(held.requestState, held);
    return held;
  }

  /** The held call a later round's requestState names, if it is still held. */
  get(requestState: unknown): HeldCall | undefined {
    return typeof requestState === "string" ? this.calls.get(requestState) : undefined;
  }
}

/** What one agent tools/call routed to an upstream's tool needs to be sent there. */
export type RoutedCall = {
  upstream: string;
  /** Sends the call upstream, `meta` as its `_meta` (GuardedProxy.forward of the upstream's member). */
  forward(args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Reply>;
  agents: GatewayAgents;
  held: HeldCalls;
  front: FrontConnection;
  id: string | number;
  params: Record<string, unknown>;
  /** The agent speaks 2026-07-28: the upstream's requests become input_required rounds. */
  modern: boolean;
};

// Keys of the 2026-07-28 envelope, which a 2025-11-25 upstream connection does not carry.
const ENVELOPE = "io.modelcontextprotocol/";

/** The agent's `_meta` as sent upstream: without the envelope, its progress token replaced by the gateway's. */
function upstreamMeta(meta: unknown, token: string | undefined): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (typeof meta === "object" && meta !== null)
    for (const [k, v] of Object.entries(meta)) if (k !== "progressToken" && !k.startsWith(ENVELOPE)) out[k] = v;
  if (token !== undefined) out.progressToken = token;
  return Object.keys(out).length > 0 ? out : undefined;
}

const progressTokenOf = (params: Record<string, unknown>): string | number | undefined => {
  const t = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof t === "string" || typeof t === "number" ? t : undefined;
};

type Link = { inFlight: InFlight; progress: ReturnType<GatewayAgents["progressToken"]> | null };
const links = new WeakMap<HeldCall, Link>();

/**
 * The GatewayRound of one agent tools/call, and `run`, which sends it within the agent's request: the upstream hears
 * the agent's `_meta` with a progress token of the gateway's (its progress reaches this agent's request only), and
 * its requests go to this agent, as requests (2025-11-25) or as input_required rounds of a held call (2026-07-28).
 */
export function routedRound(c: RoutedCall): { round: GatewayRound; run(work: () => Promise<Reply>): Promise<Reply> } {
  const token = progressTokenOf(c.params);
  if (!c.modern) {
    const inFlight: InFlight = { front: c.front, id: c.id };
    const progress = token === undefined ? null : c.agents.progressToken(inFlight, token);
    const send = (forwarded: Record<string, unknown>) =>
      c.forward(forwarded, upstreamMeta(c.params._meta, progress?.token));
    return {
      round: { send },
      run: async (work) => {
        const leave = c.agents.enter(c.upstream, inFlight);
        try {
          return await work();
        } finally {
          leave();
          progress?.release();
        }
      },
    };
  }
  const send = (forwarded: Record<string, unknown>, extra?: { requestState?: unknown }): Promise<Reply> => {
    const state = extra?.requestState ?? c.params.requestState;
    const again = c.held.get(state);
    const link = again ? links.get(again) : undefined;
    // Sending the call again would run the tool a second time, unrecorded for a guarded one.
    if (!link && typeof state === "string" && state.startsWith(PREFIX))
      return Promise.resolve(
        toolErrorReply(
          "the gateway no longer holds the call this requestState continues (it ended, the agent took longer than " +
            "the gateway's --timeout, or the gateway restarted): send the call again without requestState",
        ),
      );
    if (again && link) {
      // A later round: what the upstream sends from now on belongs to this request of the agent's.
      link.inFlight.front = c.front;
      link.inFlight.id = c.id;
      if (link.progress && token !== undefined) link.progress.agentToken = token;
      return again.round(c.params.inputResponses);
    }
    let done: () => void = () => undefined;
    const held = c.held.open(() => done());
    const inFlight: InFlight = { front: c.front, id: c.id, held };
    const progress = token === undefined ? null : c.agents.progressToken(inFlight, token);
    links.set(held, { inFlight, progress });
    const leave = c.agents.enter(c.upstream, inFlight);
    done = () => {
      leave();
      progress?.release();
    };
    held.start(c.forward(forwarded, upstreamMeta(c.params._meta, progress?.token)));
    return held.round();
  };
  return { round: { requestState: c.params.requestState, send }, run: (work) => work() };
}

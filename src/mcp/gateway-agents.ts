// The agents connected to a gateway, and what its upstreams send them. The gateway holds one connection per upstream
// for all its agents, so an upstream's own request (sampling, elicitation, roots) names no agent: it goes to the agent
// whose request to that upstream is in flight (the latest, when several are), else to the last agent that asked that
// upstream anything, else to the agent connected last. Resource updates go to the agents subscribed to the URI; log
// messages to the agent whose request is in flight, else to every agent.
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { FrontConnection, Reply } from "./front.js";

type Id = string | number;
/**
 * An agent's request in flight to an upstream. A 2026-07-28 agent's call is `held` (gateway-rounds.ts): the upstream's
 * requests go to it, and its `front` and `id` follow the agent's latest round.
 */
export type InFlight = {
  front: FrontConnection;
  id: Id;
  held?: { ask(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Reply> };
};
type Asking = InFlight;

/** The fronts of one gateway, with what each has in flight and subscribed to. */
export class GatewayAgents {
  private readonly fronts = new Set<FrontConnection>();
  private readonly inFlight = new Map<string, Asking[]>();
  private readonly lastAsker = new Map<string, FrontConnection>();
  private readonly subscriptions = new Map<FrontConnection, Set<string>>();
  private readonly progress = new Map<string, { asking: InFlight; agentToken: string | number }>();
  private nextProgress = 0;

  /** Every connected front. */
  get all(): FrontConnection[] {
    return [...this.fronts];
  }

  /** A front connected. */
  add(front: FrontConnection): void {
    this.fronts.add(front);
  }

  /** A front closed: answers the URIs it alone was subscribed to, so the gateway can unsubscribe upstream. */
  remove(front: FrontConnection): string[] {
    this.fronts.delete(front);
    for (const [upstream, f] of this.lastAsker) if (f === front) this.lastAsker.delete(upstream);
    const uris = [...(this.subscriptions.get(front) ?? [])];
    this.subscriptions.delete(front);
    return uris.filter((uri) => !this.subscribed(uri));
  }

  /** Runs `work`, front's request `id` to `upstream`: meanwhile that upstream's own requests go to this front. */
  async during<T>(upstream: string, front: FrontConnection, id: Id, work: () => Promise<T>): Promise<T> {
    const leave = this.enter(upstream, { front, id });
    try {
      return await work();
    } finally {
      leave();
    }
  }

  /** `asking` is in flight to `upstream` until the answered function is called. */
  enter(upstream: string, asking: InFlight): () => void {
    const list = this.inFlight.get(upstream) ?? [];
    list.push(asking);
    this.inFlight.set(upstream, list);
    this.lastAsker.set(upstream, asking.front);
    return () => {
      const at = list.indexOf(asking);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /**
   * The token sent upstream for an agent's progress token: the upstream's notifications/progress with it reach
   * `asking` (its front and request at the time) under the agent's own token, until `release`. Agents choose their
   * tokens, so two may choose the same one; the upstream only ever sees the gateway's.
   */
  progressToken(
    asking: InFlight,
    token: string | number,
  ): { token: string; agentToken: string | number; release(): void } {
    const mine = `agent-ledger-progress-${++this.nextProgress}`;
    const entry = { asking, agentToken: token, token: mine, release: () => this.progress.delete(mine) };
    this.progress.set(mine, entry);
    return entry;
  }

  /** Sends an upstream's notifications/progress to the agent whose call it belongs to; dropped when none. */
  progressed(params: Record<string, unknown>): void {
    const entry = typeof params.progressToken === "string" ? this.progress.get(params.progressToken) : undefined;
    if (!entry) return;
    const { front, id } = entry.asking;
    front.notify("notifications/progress", { ...params, progressToken: entry.agentToken }, id);
  }

  /** The agent an upstream's request goes to, with the request of its that it belongs to (none when idle). */
  private target(upstream: string): Asking | { front: FrontConnection; id?: undefined } | null {
    const latest = this.inFlight.get(upstream)?.at(-1);
    if (latest && (latest.held !== undefined || this.fronts.has(latest.front))) return latest;
    const last = this.lastAsker.get(upstream) ?? [...this.fronts].at(-1);
    return last ? { front: last } : null;
  }

  /** Relays an upstream's request (sampling, elicitation, roots) to its agent and answers the agent's reply. */
  ask(upstream: string, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Reply> {
    const to = this.target(upstream);
    if (to === null)
      return Promise.resolve({
        error: {
          code: ErrorCode.InternalError,
          message: `no agent is connected to the gateway to answer ${method} of upstream '${upstream}'`,
        },
      });
    if ("held" in to && to.held) return to.held.ask(method, params, signal);
    return to.front.request(method, params, to.id, signal);
  }

  /** Sends a log message of `upstream` to the agent whose request is in flight, else to every agent. */
  log(upstream: string, params: Record<string, unknown>): void {
    const latest = this.inFlight.get(upstream)?.at(-1);
    if (latest && this.fronts.has(latest.front)) latest.front.notify("notifications/message", params, latest.id);
    else for (const f of this.fronts) f.notify("notifications/message", params);
  }

  /** Sends a notification to every agent. */
  broadcast(method: string, params: Record<string, unknown> = {}): void {
    for (const f of this.fronts) f.notify(method, params);
  }

  /** Records that `front` subscribed to `uri`. */
  subscribe(front: FrontConnection, uri: string): void {
    const set = this.subscriptions.get(front) ?? new Set<string>();
    set.add(uri);
    this.subscriptions.set(front, set);
  }

  /** Forgets `front`'s subscription to `uri`; true when no other agent is subscribed to it. */
  unsubscribe(front: FrontConnection, uri: string): boolean {
    this.subscriptions.get(front)?.delete(uri);
    return !this.subscribed(uri);
  }

  /** Sends notifications/resources/updated to the agents subscribed to its URI. */
  updated(params: Record<string, unknown>): void {
    for (const [front, uris] of this.subscriptions)
      if (typeof params.uri === "string" && uris.has(params.uri))
        front.notify("notifications/resources/updated", params);
  }

  private subscribed(uri: string): boolean {
    for (const uris of this.subscriptions.values()) if (uris.has(uri)) return true;
    return false;
  }
}

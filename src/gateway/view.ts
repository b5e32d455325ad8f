// The gateway's view of its upstreams at one moment, composed from the pure parts: what tools/list advertises (only
// served tools: not excluded, not blocked by a pin) and what one tools/call does (forward, with the digest of the
// definition in force, or refuse with a tool error and a stable code). The proxy builds a view after each listing
// and asks it about each call; it holds no I/O.
import {
  buildCatalogue,
  type Catalogue,
  type Named,
  routeTool,
  routingError,
  type UpstreamListing,
} from "./catalogue.js";
import type { GatewayConfig } from "./config.js";
import { advertisedName } from "./names.js";
import { definitionOf, type PinCheck, toolDigest } from "./pins.js";
import { RateLimiter, type UpstreamLimits } from "./rate-limit.js";

/** One upstream as last seen: whether it answered, its lists, and the pin check of its tools (null with pin = off). */
export type UpstreamSnapshot = Pick<UpstreamListing, "up" | "tools" | "prompts" | "resources" | "templates"> & {
  name: string;
  check: PinCheck | null;
};

/** Why a call is not forwarded: a stable code (stored with the refusal) and the tool-error text for the agent. */
export type CallRefusal = {
  kind: "refuse";
  code: "tool_unknown" | "tool_excluded" | "upstream_down" | "tool_blocked" | "rate_limited";
  message: string;
  upstream: string | null;
  retryAfterS?: number;
};

/** A call to forward: the upstream, its own tool name, and the digest of the definition it is checked against. */
export type CallForward = { kind: "forward"; upstream: string; tool: string; digest: string };

const ROUTING_CODES = { unknown: "tool_unknown", excluded: "tool_excluded", down: "upstream_down" } as const;

/** The gateway at one moment: its catalogue and its answer to each call. */
export class GatewayView {
  readonly catalogue: Catalogue;
  private readonly blocked = new Map<string, { upstream: string; message: string }>();
  private readonly digests = new Map<string, string>();

  constructor(
    private readonly config: GatewayConfig,
    snapshots: readonly UpstreamSnapshot[],
    private readonly limiter: RateLimiter,
  ) {
    const byName = new Map(snapshots.map((s) => [s.name, s]));
    const listings: UpstreamListing[] = config.upstreams.map((u) => {
      const s = byName.get(u.name);
      if (!s)
        return {
          name: u.name,
          include: u.include,
          exclude: u.exclude,
          up: false,
          tools: [],
          prompts: [],
          resources: [],
          templates: [],
        };
      const served = s.check ? new Set(s.check.served) : null;
      for (const b of s.check?.blocked ?? [])
        this.blocked.set(this.advertised(u.name, b.tool), { upstream: u.name, message: b.message });
      for (const t of s.tools) {
        const digest = s.check?.digests[t.name] ?? toolDigest(definitionOf(t as Named));
        this.digests.set(`${u.name}\u0000${t.name}`, digest);
      }
      const tools = served ? s.tools.filter((t) => served.has(t.name)) : s.tools;
      return { ...s, include: u.include, exclude: u.exclude, tools };
    });
    this.catalogue = buildCatalogue(listings, config.prefixNames);
  }

  private advertised(upstream: string, tool: string): string {
    return this.config.prefixNames ? (advertisedName(upstream, tool) ?? `${upstream}__${tool}`) : tool;
  }

  /**
   * What a tools/call of an advertised name does at `nowMs`: forward (counted against the rate limits) or refuse.
   * Checked in order: known and served, not blocked by its pin, within its rate limits.
   */
  decideCall(name: string, nowMs: number): CallForward | CallRefusal {
    const blocked = this.blocked.get(name);
    if (blocked) return { kind: "refuse", code: "tool_blocked", message: blocked.message, upstream: blocked.upstream };
    const routing = routeTool(this.catalogue, name);
    if (routing.kind !== "route")
      return {
        kind: "refuse",
        code: ROUTING_CODES[routing.kind],
        message: routingError(routing, name)!,
        upstream: "upstream" in routing ? routing.upstream : null,
      };
    const rate = this.limiter.take(routing.upstream, routing.tool, nowMs);
    if (!rate.ok)
      return {
        kind: "refuse",
        code: "rate_limited",
        message: rate.message,
        upstream: routing.upstream,
        retryAfterS: rate.retryAfterS,
      };
    const digest = this.digests.get(`${routing.upstream}\u0000${routing.tool}`)!;
    return { kind: "forward", upstream: routing.upstream, tool: routing.tool, digest };
  }
}

/** The rate limits of a gateway's upstreams, as RateLimiter takes them. */
export function gatewayLimits(config: GatewayConfig): UpstreamLimits[] {
  return config.upstreams.map((u) => ({ upstream: u.name, rate: u.rate, toolRates: u.toolRates }));
}

/** A limiter for a gateway: one per process, kept across views so a new listing does not reset the counts. */
export function gatewayLimiter(config: GatewayConfig): RateLimiter {
  return new RateLimiter(gatewayLimits(config));
}

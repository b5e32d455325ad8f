// Per-upstream and per-tool rate limits of the gateway: a sliding-window log per limit, so "60/min" means at most 60
// calls in any 60 seconds, never 120 across a window edge. Pure: the caller passes the time, so tests set it exactly.
import type { Rate } from "./rate.js";

/** The limits of one upstream: its own (over all its tools) and per tool, by the upstream's tool name. */
export type UpstreamLimits = { upstream: string; rate: Rate | null; toolRates: Readonly<Record<string, Rate>> };

/** A call over a limit: which limit, how long until one more call fits, and the tool-error text saying so. */
export type RateRefusal = {
  ok: false;
  scope: "upstream" | "tool";
  rate: Rate;
  /** Milliseconds until the oldest counted call leaves the window. */
  retryAfterMs: number;
  /** The same, in whole seconds rounded up (what the message says). */
  retryAfterS: number;
  message: string;
};

/** The answer of take(): the call may go (and was counted), or a refusal. */
export type RateDecision = { ok: true } | RateRefusal;

/** The times of the calls counted in one window, oldest first; `head` skips the ones that left it. */
class Window {
  private times: number[] = [];
  private head = 0;
  constructor(readonly rate: Rate) {}

  /** Milliseconds until a call fits at `now` (0 when one fits now). */
  wait(now: number): number {
    while (this.head < this.times.length && this.times[this.head]! <= now - this.rate.windowMs) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    if (this.times.length - this.head < this.rate.count) return 0;
    return this.times[this.head]! + this.rate.windowMs - now;
  }

  add(now: number): void {
    this.times.push(now);
  }
}

/** The gateway's limiter: a call counts against its upstream's limit and its tool's, and only when both let it go. */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly limits: Map<string, UpstreamLimits>;

  constructor(limits: readonly UpstreamLimits[]) {
    this.limits = new Map(limits.map((l) => [l.upstream, l]));
  }

  private window(key: string, rate: Rate): Window {
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = new Window(rate)));
    return w;
  }

  /**
   * Decides a call of `tool` on `upstream` at `nowMs`: allowed (and counted against both limits) or refused with the
   * exact wait. A refused call is not counted, so an agent retrying too early does not push its own wait further.
   */
  take(upstream: string, tool: string, nowMs: number): RateDecision {
    const l = this.limits.get(upstream);
    if (!l) return { ok: true };
    const checks: { scope: "upstream" | "tool"; w: Window }[] = [];
    if (l.rate) checks.push({ scope: "upstream", w: this.window(`u\u0000${upstream}`, l.rate) });
    const toolRate = l.toolRates[tool];
    if (toolRate) checks.push({ scope: "tool", w: this.window(`t\u0000${upstream}\u0000${tool}`, toolRate) });
    let worst: { scope: "upstream" | "tool"; w: Window; wait: number } | null = null;
    for (const c of checks) {
      const wait = c.w.wait(nowMs);
      if (wait > 0 && (worst === null || wait > worst.wait)) worst = { ...c, wait };
    }
    if (worst) return refusal(upstream, tool, worst.scope, worst.w.rate, worst.wait);
    for (const c of checks) c.w.add(nowMs);
    return { ok: true };
  }
}

const UNIT_WORDS: Readonly<Record<number, string>> = { 1000: "second", 60000: "minute", 3600000: "hour" };

function refusal(upstream: string, tool: string, scope: "upstream" | "tool", rate: Rate, waitMs: number): RateRefusal {
  const seconds = Math.ceil(waitMs / 1000);
  const whose = scope === "tool" ? `tool '${tool}' of upstream '${upstream}'` : `upstream '${upstream}'`;
  return {
    ok: false,
    scope,
    rate,
    retryAfterMs: waitMs,
    retryAfterS: seconds,
    message:
      `rate limit reached: ${whose} allows ${rate.count} calls per ${UNIT_WORDS[rate.windowMs]} (${rate.text}); ` +
      `this call was not sent; try again in ${seconds} s`,
  };
}

// Large requests take turns. A largest evaluation or call costs tens of milliseconds of the one event loop, cut into
// pieces; a client that sends the next as soon as one is answered would still keep the loop busy most of each second,
// and every other team's requests would queue behind its pieces. So large requests (bodies of LARGE_BODY characters
// or more) run one at a time, and after each the lane stays closed long enough that, together, they take at most
// `share` of the time: a request that held the lane T ms closes it for T * (1 / share - 1) ms more. The pause is kept
// only while there are others to leave the time to: when no small request came in the last IDLE_MS, the next large one
// goes in at once (a lone bulk import is not slowed for nobody).

import type { MiddlewareHandler } from "hono";
import { DEFAULT_LARGE_SHARE } from "../limits.js";
import { LARGE_BODY } from "./turn.js";

/** How recently a small request must have come for the lane to keep its pause, in milliseconds. */
export const IDLE_MS = 1000;

/** One lane of large requests: at most one in progress, and a pause after each in proportion to what it took. */
export class LargeLane {
  private busy = false;
  private openAt = 0;
  private lastSmall = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly share: number = DEFAULT_LARGE_SHARE,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Waits for this request's turn; answers the function that ends it (call it once, when the answer is made). */
  async enter(): Promise<() => void> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
    const start = this.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const end = this.now();
      this.busy = false;
      this.openAt = end + (end - start) * (1 / this.share - 1);
      this.pump();
    };
  }

  /** Notes that a small request came (one the lane does not hold): the pause after a large one is kept for it. */
  seenSmall(): void {
    this.lastSmall = this.now();
  }

  /**
   * Runs a request whose declared body (Content-Length) is LARGE_BODY bytes or more in the lane's turn: for the MCP
   * endpoint, whose transport reads the body itself (REST bodies are measured by guardJsonBody as they are read).
   */
  middleware(): MiddlewareHandler {
    return async (c, next) => {
      if (Number(c.req.header("content-length") ?? 0) < LARGE_BODY) {
        this.seenSmall();
        return next();
      }
      await this.run(next);
    };
  }

  /** Runs `work` in this lane's turn, ending the turn when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const end = await this.enter();
    try {
      return await work();
    } finally {
      end();
    }
  }

  /** Lets the first waiting request in when the lane is free and its pause is over, or wakes when it will be. */
  private pump(): void {
    if (this.busy || this.timer !== null || this.waiting.length === 0) return;
    const now = this.now();
    const wait = this.openAt - now;
    if (wait > 0 && now - this.lastSmall < IDLE_MS) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, Math.ceil(wait));
      return;
    }
    this.busy = true;
    // Resolved on a later turn: the lane's own bookkeeping never runs a request inside another's piece.
    setImmediate(this.waiting.shift()!);
  }
}

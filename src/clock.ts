// The one source of "now", injected so tests and replays control time.

/** Something that tells the time. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock stopped at `iso` that tests can move forward by hand. */
export function fixedClock(iso: string): Clock & { advance(ms: number): void } {
  let t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`fixedClock needs an ISO 8601 instant, received ${JSON.stringify(iso)}`);
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}

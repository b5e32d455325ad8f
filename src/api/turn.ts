// Letting other requests in between the phases of a large one. A largest evaluation or call costs tens of milliseconds
// of one core; run in one piece, every request that arrives meanwhile waits for all of it. Between phases (reading the
// body, validating, deciding and writing) a large request yields the event loop, so queued requests answer in between.
// Never across a write transaction: each phase that writes opens and closes its own.

/** Bodies at least this long (characters of JSON) yield after they are read and checked: about 100 claims or arguments. */
export const LARGE_BODY = 16 * 1024;

/** Claims or crossings at or above which a route yields before its main work. */
export { LARGE_COUNT } from "../limits.js";

/** Resolves on a later turn of the event loop, after the I/O and timers already waiting have run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

// A long synchronous walk on the event loop broken into slices with a turn of the loop between them, so requests
// that arrive meanwhile are served (issue 26: no request may stall the service). PostgreSQL's verify hashes each page
// of entries so, a slice being about 1 ms of one core.

/** Items handled between two turns of the event loop. */
export const SLICE = 256;

/** Resolves on a later turn of the event loop, after the I/O and timers already waiting have run. */
const laterTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Calls `step` on each item in order, yielding a turn of the event loop after every `slice` items; stops at the first
 * item whose step answers something other than null, and answers that (null when every item passed).
 */
export async function stepInSlices<T, R>(
  items: readonly T[],
  step: (item: T) => R | null,
  slice: number = SLICE,
): Promise<R | null> {
  for (let i = 0; i < items.length; i += 1) {
    if (i > 0 && i % slice === 0) await laterTurn();
    const answer = step(items[i]!);
    if (answer !== null) return answer;
  }
  return null;
}

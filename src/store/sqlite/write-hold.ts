// A pause of a connection's group commits that holds no thread: while it is on, the write batcher (batch.ts) queues
// jobs instead of beginning a transaction, and runs them when it ends. The WAL checkpointer (checkpointer.ts) takes it
// for the few milliseconds its checkpoint needs to reach the log's end, so that the next commit restarts the log.
import type { Database } from "better-sqlite3";

type Hold = { on: boolean; waiting: (() => void)[] };

const holds = new WeakMap<Database, Hold>();

function holdOf(sqlite: Database): Hold {
  let h = holds.get(sqlite);
  if (!h) {
    h = { on: false, waiting: [] };
    holds.set(sqlite, h);
  }
  return h;
}

/** Whether group commits on this connection are held. */
export function writesHeld(sqlite: Database): boolean {
  return holds.get(sqlite)?.on === true;
}

/** Holds group commits on this connection until `releaseWrites`. */
export function holdWrites(sqlite: Database): void {
  holdOf(sqlite).on = true;
}

/** Ends the hold and runs, in order, what waited for it. */
export function releaseWrites(sqlite: Database): void {
  const h = holdOf(sqlite);
  if (!h.on) return;
  h.on = false;
  for (const fn of h.waiting.splice(0)) fn();
}

/** Runs `fn` when the hold ends (now, when there is none). */
export function afterHold(sqlite: Database, fn: () => void): void {
  const h = holdOf(sqlite);
  if (h.on) h.waiting.push(fn);
  else fn();
}

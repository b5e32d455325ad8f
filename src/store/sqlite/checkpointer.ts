// WAL checkpoints off the request thread. A commit that takes the log past `wal_autocheckpoint` copies it back into
// the database file and fsyncs, inside that commit: 4,000 pages took about 100 ms here, a stall of the event loop
// for every team (bench:abuse's largest delay). While `serve` runs, a worker thread with its own connection
// checkpoints instead, whenever the log has grown past CHECKPOINT_BYTES, and the serving connection's own
// autocheckpoint is raised to a backstop that only a stalled worker would reach.
import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { Database } from "better-sqlite3";

/** The log size at which the worker is asked for a checkpoint: 4 MiB. */
export const CHECKPOINT_BYTES = 4 * 1024 * 1024;

/** The serving connection's own autocheckpoint while the worker runs, in pages: 64 MiB, a backstop. */
export const BACKSTOP_PAGES = 16_000;

/** How often the log's size is looked at, in milliseconds. */
const LOOK_MS = 250;

/** A running checkpointer; `stop` ends its thread and gives the connection its autocheckpoint back. */
export type Checkpointer = { stop(): Promise<void>; checkpoints(): number };

/** Starts checkpointing `sqlite`'s file on a worker thread; null for a database with no WAL file (":memory:"). */
export function startCheckpointer(sqlite: Database, restorePages: number): Checkpointer | null {
  if (sqlite.memory || sqlite.pragma("journal_mode", { simple: true }) !== "wal") return null;
  const wal = `${sqlite.name}-wal`;
  const worker = new Worker(new URL("./checkpoint-worker.mjs", import.meta.url), { workerData: { file: sqlite.name } });
  worker.unref();
  let asked = false;
  let done = 0;
  let failed = false;
  worker.on("message", (m: { ok: boolean }) => {
    asked = false;
    if (m.ok) done += 1;
  });
  // A worker that cannot run leaves the connection checkpointing itself, as it did before.
  worker.on("error", () => {
    failed = true;
    sqlite.pragma(`wal_autocheckpoint = ${restorePages}`);
  });
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const timer = setInterval(() => {
    if (asked || failed) return;
    let size = 0;
    try {
      size = statSync(wal).size;
    } catch {
      return; // no log yet
    }
    if (size < CHECKPOINT_BYTES) return;
    asked = true;
    worker.postMessage("checkpoint");
  }, LOOK_MS);
  timer.unref();
  return {
    checkpoints: () => done,
    stop: async () => {
      clearInterval(timer);
      if (sqlite.open && !failed) sqlite.pragma(`wal_autocheckpoint = ${restorePages}`);
      await worker.terminate();
    },
  };
}

// WAL checkpoints off the request thread. A commit that takes the log past `wal_autocheckpoint` copies it back into
// the database file and fsyncs, inside that commit: 4,000 pages took about 100 ms here, a stall of the event loop
// for every team (bench:abuse's largest delay). While `serve` runs, a worker thread with its own connection
// checkpoints instead, whenever the log has grown past CHECKPOINT_BYTES, and the serving connection's own
// autocheckpoint is raised to a backstop that only a stalled worker would reach.
//
// A checkpoint copies the log only up to where it ended when the checkpoint began, and SQLite restarts the log only
// once all of it is copied. Under sustained writes commits always land meanwhile, so the log would grow to the
// backstop (session 19). So once the log holds CLOSE_PAGES, a checkpoint is followed by a second one while the group
// commits are held (write-hold.ts, no thread waits): it copies the tail, and the next commit starts the log again.
import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { Database } from "better-sqlite3";
import { holdWrites, releaseWrites } from "./write-hold.js";

/** The log size at which the worker is asked for a checkpoint: 4 MiB. */
export const CHECKPOINT_BYTES = 4 * 1024 * 1024;

/** The serving connection's own autocheckpoint while the worker runs, in pages: 64 MiB, a backstop. */
export const BACKSTOP_PAGES = 16_000;

/**
 * The log's length, in pages, from which the worker closes it: 32 MiB, half the backstop. Each close holds the group
 * commits for its copy and its fsyncs (about 10 ms here, whatever the tail), so it is done once per this much log.
 */
export const CLOSE_PAGES = BACKSTOP_PAGES / 2;

/** The longest the group commits wait for the checkpoint that closes the log, in milliseconds. */
export const CLOSE_WAIT_MS = 250;

/**
 * Whether a checkpoint that leaves a tail is followed by one that closes the log while the group commits wait. Off
 * only in bench:http:sustained's second server (bench/http/no-close-preload.ts), which measures serve without it.
 */
export const checkpointSettings = { closeLog: true };

/** How often the log's size is looked at, in milliseconds. */
const LOOK_MS = 250;

/** What the worker answers for one checkpoint: SQLite's frame counts of the log and of what is copied, as it began. */
type Answer = { ok: true; log: number; checkpointed: number } | { ok: false; message: string };

/**
 * A running checkpointer: `checkpoints` counts its checkpoints, `closes` the times it held the group commits to close
 * the log; `stop` ends its thread and gives the connection its autocheckpoint back.
 */
export type Checkpointer = { stop(): Promise<void>; checkpoints(): number; closes(): number };

/** Starts checkpointing `sqlite`'s file on a worker thread; null for a database with no WAL file (":memory:"). */
export function startCheckpointer(sqlite: Database, restorePages: number): Checkpointer | null {
  if (sqlite.memory || sqlite.pragma("journal_mode", { simple: true }) !== "wal") return null;
  const wal = `${sqlite.name}-wal`;
  // No inherited execArgv: the worker is plain JavaScript, and a `--import` of TypeScript given to the process
  // (a benchmark's preload, a user's instrumentation) would fail to load in it and stop it before its first turn.
  const worker = new Worker(new URL("./checkpoint-worker.mjs", import.meta.url), {
    workerData: { file: sqlite.name },
    execArgv: [],
  });
  worker.unref();
  let asked = false;
  let closing: NodeJS.Timeout | null = null;
  let done = 0;
  let closes = 0;
  let failed = false;
  let lastSeen = "";
  const release = () => {
    if (closing) clearTimeout(closing);
    closing = null;
    releaseWrites(sqlite);
  };
  const ask = () => {
    asked = true;
    worker.postMessage("checkpoint");
  };
  worker.on("message", (m: Answer) => {
    asked = false;
    if (m.ok) done += 1;
    if (closing) {
      release();
      return;
    }
    // SQLite answers the log's length as the checkpoint began; commits that landed while it copied are a tail it
    // cannot see. A log unchanged since the last answer has none (nothing is writing), so only then is there no hold.
    const seen = m.ok ? `${m.log}/${m.checkpointed}` : "";
    const idle = seen === lastSeen;
    lastSeen = seen;
    // A checkpoint that stopped short of what it saw was held back by a reader's snapshot: a close would stop there too.
    if (!m.ok || idle || m.checkpointed < m.log || m.log < CLOSE_PAGES || failed || !checkpointSettings.closeLog)
      return;
    // Hold the next commits (never longer than CLOSE_WAIT_MS) while the tail is copied.
    holdWrites(sqlite);
    closes += 1;
    closing = setTimeout(release, CLOSE_WAIT_MS);
    closing.unref();
    ask();
  });
  // A worker that cannot run leaves the connection checkpointing itself, as it did before.
  worker.on("error", () => {
    failed = true;
    release();
    sqlite.pragma(`wal_autocheckpoint = ${restorePages}`);
  });
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  // A restarted log is rewritten from the file's start, in a file that keeps its largest size; the limit cuts it
  // back to the length at which the log is closed.
  sqlite.pragma(`journal_size_limit = ${CLOSE_PAGES * (sqlite.pragma("page_size", { simple: true }) as number)}`);
  const timer = setInterval(() => {
    if (asked || failed) return;
    let size = 0;
    try {
      size = statSync(wal).size;
    } catch {
      return; // no log yet
    }
    if (size >= CHECKPOINT_BYTES) ask();
  }, LOOK_MS);
  timer.unref();
  return {
    checkpoints: () => done,
    closes: () => closes,
    stop: async () => {
      clearInterval(timer);
      release();
      if (sqlite.open && !failed) sqlite.pragma(`wal_autocheckpoint = ${restorePages}`);
      await worker.terminate();
    },
  };
}

// bench:guard's price of the chain's pages at COMMIT: what the group commits cost with the chain on and off, split into
// the commits that ran SQLite's autocheckpoint and the rest, and how many WAL frames a call writes. The entries' bytes
// are paid again at COMMIT (each page written to the log) and at the checkpoint that copies the log back, which the
// parts measured by chain-parts.ts do not separate from the rest of the call.
import { statSync } from "node:fs";
import Database, { type Statement } from "better-sqlite3";
import type { LedgerDb } from "../../src/store/sqlite/db.js";

/** A commit slower than this ran the autocheckpoint (an ordinary group commit takes 0.3-1.5 ms here, one that
 * checkpoints 25-35 ms). */
const CHECKPOINT_MS = 5;

/** What the COMMITs of a run cost: all of them, and those that checkpointed. */
export type CommitTimes = { commits: number; us: number; checkpoints: number; checkpointUs: number };

type Run = (this: Statement, ...params: unknown[]) => unknown;

/** Runs `fn` with every COMMIT statement of the process timed, then answers what the COMMITs cost. */
export async function timedCommits(db: LedgerDb, fn: () => Promise<unknown>): Promise<CommitTimes> {
  const proto = Object.getPrototypeOf(db.sqlite.prepare("SELECT 1")) as { run: Run };
  const real = proto.run;
  const out: CommitTimes = { commits: 0, us: 0, checkpoints: 0, checkpointUs: 0 };
  proto.run = function (this: Statement, ...params: unknown[]) {
    if (this.source !== "COMMIT") return real.apply(this, params);
    const t0 = process.hrtime.bigint();
    try {
      return real.apply(this, params);
    } finally {
      const us = Number(process.hrtime.bigint() - t0) / 1e3;
      out.commits += 1;
      out.us += us;
      if (us >= CHECKPOINT_MS * 1e3) {
        out.checkpoints += 1;
        out.checkpointUs += us;
      }
    }
  };
  try {
    await fn();
  } finally {
    proto.run = real;
  }
  return out;
}

/**
 * Runs `fn` with the log emptied first and then held by a reader on a connection of its own, so that no checkpoint
 * (the connection's own or another thread's) can restart it: every frame `fn` writes stays in the log until `read`
 * has looked at it.
 */
export async function withHeldLog<T>(db: LedgerDb, fn: () => Promise<unknown>, read: (wal: string) => T): Promise<T> {
  db.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  const reader = new Database(db.sqlite.name, { readonly: true });
  try {
    reader.prepare("BEGIN").run();
    reader.prepare("SELECT count(*) FROM sqlite_schema").get();
    await fn();
    return read(`${db.sqlite.name}-wal`);
  } finally {
    reader.close();
  }
}

/** WAL frames `fn` writes, counted from the size of the held log. */
export function walFrames(db: LedgerDb, fn: () => Promise<unknown>): Promise<number> {
  const pageSize = db.sqlite.pragma("page_size", { simple: true }) as number;
  // The log: a 32-byte header, then each frame's 24-byte header and its page.
  return withHeldLog(db, fn, (wal) => (statSync(wal).size - 32) / (pageSize + 24));
}

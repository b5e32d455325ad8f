// Opens the SQLite database, applies the drizzle migrations with foreign keys off, then turns them on.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import type { RunResult } from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import * as schema from "./schema.js";
import { bindTokenKey, resolveTokenKey } from "../common/token-key.js";
import { MigrationError } from "../common/errors.js";
import { PAGE_CACHE_KIB } from "./page-cache.js";
import { type Checkpointer, startCheckpointer } from "./checkpointer.js";

export type { Checkpointer } from "./checkpointer.js";

/** The drizzle handle every repository takes: the database or a transaction on it. */
export type Db = BaseSQLiteDatabase<"sync", RunResult, typeof schema>;

/** An open database: drizzle for queries, the raw handle for pragmas and prepared hot paths. */
export type LedgerDb = {
  db: BetterSQLite3Database<typeof schema>;
  sqlite: Database.Database;
  /** The file opened, or ":memory:". */
  file: string;
  /** Migrations this open applied (0 when the schema was already current). */
  applied: number;
  close(): void;
};

/** The migrations folder shipped beside src/, found from this file so any working directory works. */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../migrations", import.meta.url));

const isMemory = (file: string): boolean => file === ":memory:" || file === "";

export { PAGE_CACHE_KIB } from "./page-cache.js";

/**
 * How many WAL pages (4 KiB each) a commit lets the log reach before it checkpoints: 16 MiB, against SQLite's
 * 1,000 pages. Group commits of interleaved sessions rewrite the same index leaves commit after commit, so a longer
 * log copies each leaf back once for more commits: 0.12 pages copied per WAL frame instead of 0.27, and a quarter of
 * the checkpoint fsyncs (bench:guard's library case, docs/DESIGN-NOTES.md).
 */
export const WAL_AUTOCHECKPOINT_PAGES = 4_000;

const background = new WeakMap<Database.Database, Checkpointer>();

/**
 * Checkpoints a file database's WAL on a worker thread until `stop()`, as `serve` does, so no commit copies the log
 * back on the caller's thread (about 100 ms every 16 MiB of log here) and group commits run a sixth to a fifth
 * faster (bench:guard:checkpointer). Null for ":memory:". Asked again before `stop()`, it answers the one running.
 */
export function checkpointInBackground(ledger: Pick<LedgerDb, "sqlite">): Checkpointer | null {
  const running = background.get(ledger.sqlite);
  if (running) return running;
  const started = startCheckpointer(ledger.sqlite, WAL_AUTOCHECKPOINT_PAGES);
  if (!started) return null;
  const cp: Checkpointer = {
    ...started,
    stop: async () => {
      if (background.get(ledger.sqlite) === cp) background.delete(ledger.sqlite);
      await started.stop();
    },
  };
  background.set(ledger.sqlite, cp);
  return cp;
}

/** How an open database commits: `normal` (WAL, fsync at checkpoints) or `full` (fsync at every commit). */
export type OpenOptions = { sync?: "normal" | "full"; tokenKey?: string };

/** Opens (creating when absent) and migrates the database at `file`; ":memory:" gives a private one. */
export function openDb(file: string = ":memory:", options: OpenOptions = {}): LedgerDb {
  if (!isMemory(file)) mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  try {
    sqlite.pragma("busy_timeout = 5000");
    toWal(sqlite); // stays "memory" for :memory:
    sqlite.pragma(options.sync === "full" ? "synchronous = FULL" : "synchronous = NORMAL");
    sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    // A page cache of up to PAGE_CACHE_KIB per connection (grown on demand, so a small file costs little) instead of
    // SQLite's 2 MiB: the interior b-tree pages of a million-crossing file (about 7 MiB) then stay cached, and an index
    // look-up reads only its leaf from the OS (bench:gates, ledger case).
    sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    // drizzle runs all pending migrations in one transaction, where PRAGMA foreign_keys is a no-op:
    // with keys on, a table rebuild (DROP TABLE) would cascade-delete child rows. So off, migrate, check, on.
    sqlite.pragma("foreign_keys = OFF");
    const db = drizzle(sqlite, { schema });
    const before = countMigrations(sqlite);
    migrateWithRetry(db, file);
    const bad = sqlite.pragma("foreign_key_check") as unknown[];
    if (bad.length > 0) {
      throw new MigrationError(`foreign_key_check found ${bad.length} inconsistent row(s) in ${file} after migrating`);
    }
    sqlite.pragma("foreign_keys = ON");
    const applied = countMigrations(sqlite) - before;
    bindTokenKey(db, () => resolveTokenKey(file, options.tokenKey));
    return { db, sqlite, file, applied, close: () => sqlite.close() };
  } catch (e) {
    sqlite.close();
    throw e;
  }
}

const MIGRATE_ATTEMPTS = 5;
const WAL_ATTEMPTS = 50;

/**
 * Switches the file to WAL. Two processes opening one new file at once can both hold a shared lock while one asks for
 * the exclusive lock the switch needs; SQLite then answers SQLITE_BUSY at once rather than wait (waiting could
 * deadlock), so the switch is retried for up to about five seconds.
 */
function toWal(sqlite: Database.Database): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      sqlite.pragma("journal_mode = WAL");
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY" || attempt >= WAL_ATTEMPTS) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

/**
 * Runs the pending migrations. Two processes opening the same new file at once can both read "nothing applied"
 * before either commits; the loser's CREATE TABLE then fails. Its retry, after a short wait, reads the winner's
 * committed migrations and applies nothing.
 */
function migrateWithRetry(db: Parameters<typeof migrate>[0], file: string): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      migrate(db, { migrationsFolder: MIGRATIONS_DIR });
      return;
    } catch (cause) {
      if (attempt >= MIGRATE_ATTEMPTS)
        throw new MigrationError(`could not migrate ${file}: ${(cause as Error).message}`, { cause });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100 * attempt);
    }
  }
}

function countMigrations(sqlite: Database.Database): number {
  const exists = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  if (!exists) return 0;
  return (sqlite.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
}

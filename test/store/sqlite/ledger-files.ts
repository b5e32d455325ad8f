// Ledger files for the WAL checkpointer's tests: each in a directory of its own, removed after the test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LedgerDb, openDb } from "../../../src/store/sqlite/db.js";

const dirs: string[] = [];

/** Opens a new ledger file in a directory of its own (removed by `removeLedgerFiles`). */
export function ledgerFile(): { file: string; db: LedgerDb } {
  const dir = mkdtempSync(join(tmpdir(), "checkpointer-"));
  dirs.push(dir);
  const file = join(dir, "ledger.db");
  return { file, db: openDb(file) };
}

/** Removes every directory `ledgerFile` made so far (for afterEach). */
export function removeLedgerFiles(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** The connection's own autocheckpoint, in pages. */
export const autocheckpoint = (db: LedgerDb): unknown => db.sqlite.pragma("wal_autocheckpoint", { simple: true });

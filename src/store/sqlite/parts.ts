// The synchronous SQLite repositories of one open database, built once per handle and shared by every store over it.
import type { AuditStore } from "./audits.js";
import { auditsFor } from "./audits.js";
import { ClaimStore } from "./claims.js";
import type { LedgerDb } from "./db.js";
import { type Ledger, ledgerFor } from "./ledger.js";
import { RunStore } from "./runs.js";
import { systemClock } from "../../clock.js";

/** Today's repositories over one database: the guarded-call service, claims, runs and audits. */
export type SqliteParts = { db: LedgerDb; ledger: Ledger; claims: ClaimStore; runs: RunStore; audits: AuditStore };

const byDb = new WeakMap<LedgerDb, SqliteParts>();

/**
 * The repositories of `db`, prepared once. One set per handle matters: the datum registry cache is cleared by its own
 * writes and by PRAGMA data_version, which does not move for writes of the same connection through another cache.
 */
export function partsOf(db: LedgerDb): SqliteParts {
  let p = byDb.get(db);
  if (!p) {
    // The same Ledger the in-process library uses on this handle. Every store write passes its own clock; this default
    // clock only serves callers of the Ledger itself.
    const ledger = ledgerFor(db, systemClock);
    p = { db, ledger, claims: new ClaimStore(db.sqlite), runs: new RunStore(db.sqlite), audits: auditsFor(db.sqlite) };
    byDb.set(db, p);
  }
  return p;
}

// The ledger chain of an open store, whichever engine: what `verify`, the ledger routes and the exports read.
import type { ChainVerdict } from "./common/chain-verify.js";
import type { LedgerStore } from "./port.js";
import type { PgStore } from "./pg/store.js";
import type { SqliteStore } from "./sqlite/store.js";

/** A team's head: the latest entry's position, digest and time, and where chaining began. */
export type ChainHeadRow = {
  seq: number;
  digest: string;
  at: string;
  backfilled: number;
  beganAt: string | null;
  baseSeq: number;
  baseDigest: string;
};

/** An entry of a team's chain as an export carries it. */
export type ChainEntryRow = {
  seq: number;
  tbl: string;
  rowId: string;
  rowDigest: string;
  prev: string;
  digest: string;
};

/** The chain operations of one store. */
export interface LedgerChain {
  /** Walks the team's chain (from `since`, an ISO time, when given); answers the first entry that does not hold. */
  verify(teamId: string, options?: { since?: string; archive?: string }): Promise<ChainVerdict>;
  /** The team's head, or null before its first entry. */
  head(teamId: string): Promise<ChainHeadRow | null>;
  /** The teams that have a chain. */
  teams(): Promise<string[]>;
  /** The team's entries naming the given rows (table, id), in chain order. */
  entriesOf(teamId: string, rows: readonly (readonly [string, string])[]): Promise<ChainEntryRow[]>;
  /** The team's entry at position `seq` (none or one). */
  entriesAt(teamId: string, seq: number): Promise<ChainEntryRow[]>;
  /** The team's entries from position `from` to `to`, with their times. */
  segment(teamId: string, from: number, to: number): Promise<(ChainEntryRow & { at: string })[]>;
  /** The positions of a session's own entries: the session, its calls, results, crossings, audits and their items. */
  sessionSeqs(teamId: string, sessionId: string): Promise<number[]>;
  /** The positions of an evaluation's own entries: the run, its keyed claims and its sources. */
  evaluationSeqs(teamId: string, runId: string): Promise<number[]>;
  /** A chained row's canonical columns as stored now, or null. */
  rowOf(teamId: string, table: string, id: string): Promise<unknown[] | null>;
  /** Chains the rows of every team written before chaining began, in id order; answers the entries made. */
  backfill(): Promise<number>;
}

/** The chain of `store`. */
export async function chainOf(store: LedgerStore): Promise<LedgerChain> {
  if (store.engine === "postgres") {
    const { pgChain } = await import("./pg/chain.js");
    return pgChain((store as unknown as PgStore).db);
  }
  const { sqliteLedgerChain } = await import("./sqlite/chain-port.js");
  const sqlite = store as unknown as SqliteStore;
  return sqliteLedgerChain(sqlite.db.sqlite, { offLoop: sqlite.serving });
}

// Walking a team's chain: each stored entry against the row it names and the entry before it. Pure over plain rows,
// so both drivers (and the export check) share one definition of "intact" and one wording of what is not.
import { isChainTable } from "./chain-tables.js";
import { changedColumns, GENESIS, linkDigest, printRow, rowDigestOf } from "./chain.js";

/** An entry as stored in ledger_entries. */
export type StoredEntry = {
  seq: number;
  tbl: string;
  rowId: string;
  rowDigest: string;
  prev: string;
  digest: string;
  fp: string;
};

/** The first entry that does not hold: its table and row id, its position, and what is wrong in plain words. */
export type ChainFault = { table: string; id: string; seq: number; reason: string };

/** A verification's answer (API.md `GET /v1/ledger/verify`). */
export type ChainVerdict =
  | { ok: true; count: number; digest: string }
  | { ok: false; count: number; first_bad: ChainFault };

/** Where a walk starts: the last position and digest before its first entry (0 and GENESIS for a whole chain). */
export type ChainStart = { seq: number; digest: string };

/** Checks entries one by one in seq order; `step` answers the first fault and nothing after it counts. */
export class ChainWalk {
  seq: number;
  digest: string;
  count = 0;

  constructor(start: ChainStart = { seq: 0, digest: GENESIS }) {
    this.seq = start.seq;
    this.digest = start.digest;
  }

  /** Checks `e` against `row` (its canonical columns read now, or null when the row is gone); null when it holds. */
  step(e: StoredEntry, row: readonly unknown[] | null): ChainFault | null {
    const at = { table: e.tbl, id: e.rowId, seq: e.seq };
    if (e.seq !== this.seq + 1)
      return e.seq <= this.seq
        ? { ...at, reason: `entry out of order: position ${e.seq} comes after position ${this.seq}` }
        : { ...at, reason: `missing entry: positions ${this.seq + 1} to ${e.seq - 1} are not in the chain` };
    if (!isChainTable(e.tbl)) return { ...at, reason: `unknown table '${e.tbl}' in the chain` };
    if (row === null)
      return {
        ...at,
        reason: `row deleted: ${e.tbl} ${e.rowId} is no longer in the database (if it was archived, pass --archive FILE)`,
      };
    if (rowDigestOf(e.tbl, row) !== e.rowDigest) {
      const now = printRow(e.tbl, row);
      const cols = changedColumns(e.tbl, e.fp, now.fp);
      return {
        ...at,
        reason: cols.length
          ? `changed column${cols.length > 1 ? "s" : ""} ${cols.join(", ")}: the row differs from the row chained`
          : "changed: the row differs from the row chained",
      };
    }
    if (e.prev !== this.digest)
      return { ...at, reason: "entry out of order: it was chained after a different entry than the one before it" };
    if (linkDigest(e.prev, e.rowDigest) !== e.digest)
      return {
        ...at,
        reason: "forged digest: the entry's digest is not the digest of its row and the entry before it",
      };
    this.seq = e.seq;
    this.digest = e.digest;
    this.count += 1;
    return null;
  }

  /** The fault when the head (seq, digest) does not end where the walk ended: entries removed from the end. */
  end(head: { seq: number; digest: string } | null): ChainFault | null {
    if (head === null) return null;
    if (head.seq !== this.seq || head.digest !== this.digest)
      return {
        table: "ledger_heads",
        id: "",
        seq: head.seq,
        reason:
          head.seq > this.seq
            ? `missing entry: the chain ends at position ${this.seq} but its head is at position ${head.seq}`
            : `the head (position ${head.seq}) does not match the chain's last entry (position ${this.seq})`,
      };
    return null;
  }
}

/** The fault for a row of `table` that is in the database but not in the chain. */
export function unchainedRow(table: string, id: string): ChainFault {
  return { table, id, seq: 0, reason: `not in the chain: ${table} ${id} was written outside the ledger` };
}

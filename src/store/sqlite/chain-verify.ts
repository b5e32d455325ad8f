// Verifying a whole SQLite chain as a streaming join (docs/DESIGN-NOTES.md "Ledger chain"): the team's entries are read
// once in seq order and their links checked (chain-walk.ts); every chained table is read once, each row hashed
// (chain-rows.ts, on two threads for a large team); each row then joins the entry with its digest, table and key. No
// lookup per entry: the answer is the same first failing entry, by position, as a walk that reads each entry's row by
// key.
import type { Database } from "better-sqlite3";
import { CHAIN_ORDER, type ChainTableName } from "../common/chain-tables.js";
import { changedColumns, printRow, rowDigestOf } from "../common/chain.js";
import { type ChainFault, type ChainStart, type ChainVerdict, unchainedRow } from "../common/chain-verify.js";
import {
  CHAIN_NAMES as NAMES,
  claimOf,
  claimUnits,
  NUMERIC_KEY,
  prepared,
  type RowsPart,
  type RowsUnit,
  rowByKeySql,
  rowsUnits,
  teamDigests,
  unitDigests,
} from "./chain-rows.js";
import { entryAt, findDigest, type Walked, walkEntries, wordsOf } from "./chain-walk.js";

/** What the streaming check needs of the chain: the head it must end at, and a row read by key (for the archive). */
export type StreamSource = {
  head: { seq: number; digest: string } | null;
  /** A row moved to the archive, or null (no archive, or not there either). */
  archived: (table: ChainTableName, id: string | number) => unknown[] | null;
};

const INDEX = new Map<string, number>(NAMES.map((n, i) => [n, i]));

/** The fault of an entry whose row reads differently now (or is gone), worded as the walk words it. */
function rowFault(
  e: { tbl: ChainTableName; rowId: string; seq: number; fp: string },
  row: unknown[] | null,
): ChainFault {
  const at = { table: e.tbl, id: e.rowId, seq: e.seq };
  if (row === null)
    return {
      ...at,
      reason: `row deleted: ${e.tbl} ${e.rowId} is no longer in the database (if it was archived, pass --archive FILE)`,
    };
  const cols = changedColumns(e.tbl, e.fp, printRow(e.tbl, row).fp);
  return {
    ...at,
    reason: cols.length
      ? `changed column${cols.length > 1 ? "s" : ""} ${cols.join(", ")}: the row differs from the row chained`
      : "changed: the row differs from the row chained",
  };
}

/** The entries a team needs before its rows are hashed on a worker: below it, starting the thread costs more. */
export const BESIDE_FROM = 50_000;

/**
 * This process's settings of the two-thread verify: the threshold, and (for tests, which check that both threads'
 * rows give the walk's verdict) whether this thread waits for the worker to take every unit before taking any.
 */
export const verifySettings = { besideFrom: BESIDE_FROM, workerFirst: false };

/**
 * What this process's verifies joined how, for tests and benchmarks: units of rows used from a worker, and entries
 * whose row had to be read by key (0 on an intact ledger, where every row joins its entry by digest).
 */
export const joinStats = { workerUnits: 0, byKey: 0 };

/** The rows of a team hashed elsewhere (a worker), with the head as that reader saw it; null when not available. */
export type RowsRead = { head: { seq: number; digest: string } | null; parts: RowsPart[] } | null;

/** How another reader is asked for units of the rows: it takes them from the front of the shared claim. */
export type RowsElsewhere = (units: RowsUnit[], claim: Int32Array) => Promise<RowsRead>;

/**
 * Checks a team's whole chain from `start`: the first entry that does not hold (in the order a walk checks an entry:
 * its position, its table, its row, its link), then the head, then rows of chained tables that no entry names
 * (only when `strays`, i.e. the chain starts at position 1).
 */
export function streamVerify(
  sqlite: Database,
  teamId: string,
  start: ChainStart,
  src: StreamSource,
  strays: boolean,
): ChainVerdict {
  const w = walkEntries(sqlite, teamId, start, src.head?.seq ?? 0);
  return settle(sqlite, teamId, start, src, strays, w, teamDigests(sqlite, teamId, w.n + 1));
}

/**
 * streamVerify with the rows hashed on two threads: `elsewhere` starts another reader of the same file (a worker
 * thread) taking units of the rows from the front of a shared claim while this thread walks the entries, then this
 * thread takes units from the back until none is left. The other reader's units are used only when it saw the same
 * head, i.e. the same committed state of the team; otherwise (or with no answer) they are read here, in this
 * snapshot.
 */
export async function streamVerifyBeside(
  sqlite: Database,
  teamId: string,
  start: ChainStart,
  src: StreamSource,
  strays: boolean,
  elsewhere: RowsElsewhere,
): Promise<ChainVerdict> {
  // The head's count bounds every table's share of the team (it picks each source's read plan).
  const units = rowsUnits(sqlite, (src.head?.seq ?? 0) - start.seq);
  const claim = claimOf(units.length, true);
  const theirs = elsewhere(units, claim).catch(() => null);
  const w = walkEntries(sqlite, teamId, start, src.head?.seq ?? 0);
  if (verifySettings.workerFirst) await theirs;
  const mine = claimUnits(sqlite, teamId, units, claim, true);
  // Every unit is taken now. When the other reader took none (it had not started), its answer is not waited for.
  const taken = claim[0]! & 0xffff;
  const got = taken === 0 ? null : await theirs;
  const same = got !== null && got.head?.seq === src.head?.seq && got.head?.digest === src.head?.digest;
  // Units the other reader took but cannot vouch for (another snapshot, or no answer) are read again here.
  const theirsParts = same ? got.parts : units.slice(0, taken).flatMap((u) => unitDigests(sqlite, teamId, u));
  if (same) joinStats.workerUnits += taken;
  return settle(sqlite, teamId, start, src, strays, w, [...mine, ...theirsParts]);
}

/** Pass 2 and the rest: each row's digest compared with its entry's; unseen rows read by key; the first fault wins. */
function settle(
  sqlite: Database,
  teamId: string,
  start: ChainStart,
  src: StreamSource,
  strays: boolean,
  w: Walked,
  parts: RowsPart[],
): ChainVerdict {
  const { n } = w;
  let rowAt = Number.POSITIVE_INFINITY;
  let rowRead: unknown[] | null = null;
  const seen = new Uint8Array(n + 1);
  // Rows that join no entry: changed (their entry is then not seen, and judged by key below) or not in the chain.
  const loose: (string | number)[][] = NAMES.map(() => []);
  const words = wordsOf(w.digests);
  for (const { ti, rows: t } of parts) {
    const got = wordsOf(t.digests);
    for (let j = 0; j < t.keys.length; j += 1) {
      const i = findDigest(w, words, got, j);
      if (i >= 0 && w.tables[i] === ti && w.keys[i] === t.keys[j]) {
        seen[i] = 1;
        continue;
      }
      if (strays && (t.counts === null || t.counts[j] === 1)) loose[ti]!.push(t.keys[j]!);
    }
  }
  // Entries whose row was not read: moved to the archive, or deleted. Entries naming a row twice: read by key.
  const fetchRow = (ti: number, i: number) => {
    joinStats.byKey += 1;
    const e = entryAt(sqlite, teamId, start.seq + 1 + i);
    return {
      e,
      row: e ? (rowByKey(sqlite, teamId, NAMES[ti]!, e.rowId) ?? src.archived(NAMES[ti]!, keyOf(ti, e.rowId))) : null,
    };
  };
  for (const d of w.dups) {
    if (d.i >= rowAt) continue;
    const { e, row } = fetchRow(d.t, d.i);
    if (e && (row === null || rowDigestOf(NAMES[d.t]!, row) !== e.rowDigest)) {
      rowAt = d.i;
      rowRead = row;
    }
  }
  const { linkAt, linkFault, early, seq, digest } = w;
  // Entries up to the first link fault count, and that entry itself when its row is checked before its link.
  const bound = Math.min(rowAt, linkAt === Number.POSITIVE_INFINITY ? n : early ? linkAt : linkAt + 1);
  for (let i = 0; i < bound; i += 1) {
    if (seen[i] === 1) continue;
    const { e, row } = fetchRow(w.tables[i]!, i);
    if (e && (row === null || rowDigestOf(e.tbl, row) !== e.rowDigest)) {
      rowAt = i;
      rowRead = row;
      break;
    }
  }
  if (rowAt <= linkAt && !(rowAt === linkAt && early) && rowAt !== Number.POSITIVE_INFINITY) {
    const e = entryAt(sqlite, teamId, start.seq + 1 + rowAt)!;
    return { ok: false, count: rowAt, first_bad: rowFault(e, rowRead) };
  }
  if (linkFault) return { ok: false, count: linkAt, first_bad: linkFault };
  const head = src.head;
  if (head !== null && (head.seq !== seq || head.digest !== digest))
    return {
      ok: false,
      count: n,
      first_bad: {
        table: "ledger_heads",
        id: "",
        seq: head.seq,
        reason:
          head.seq > seq
            ? `missing entry: the chain ends at position ${seq} but its head is at position ${head.seq}`
            : `the head (position ${head.seq}) does not match the chain's last entry (position ${seq})`,
      },
    };
  if (strays)
    for (const name of CHAIN_ORDER) {
      const s = strayOf(w, INDEX.get(name)!, loose[INDEX.get(name)!]!);
      if (s !== null) return { ok: false, count: n, first_bad: unchainedRow(name, String(s)) };
    }
  return { ok: true, count: n, digest };
}

/**
 * The least key of a table's rows that joined no entry and that no entry names: a row not in the chain. (A row that
 * an entry names but does not join was changed, and that entry's fault is found before this is asked.)
 */
function strayOf(w: Walked, ti: number, loose: (string | number)[]): string | number | null {
  if (loose.length === 0) return null;
  const named = new Set<string | number>();
  for (let i = 0; i < w.n; i += 1) if (w.tables[i] === ti) named.add(w.keys[i]!);
  let least: string | number | null = null;
  for (const key of loose) if (!named.has(key) && (least === null || key < least)) least = key;
  return least;
}

/** A row id as its table's key is bound: a number for a numeric key (the rowid's own lookup). */
const keyOf = (ti: number, rowId: string): string | number => (NUMERIC_KEY[ti] ? Number(rowId) : rowId);

/** A chained row read by key, or null. */
function rowByKey(sqlite: Database, teamId: string, name: ChainTableName, rowId: string): unknown[] | null {
  const r = prepared(sqlite, rowByKeySql(name)).get(keyOf(INDEX.get(name)!, rowId), teamId) as unknown[] | undefined;
  return r ?? null;
}

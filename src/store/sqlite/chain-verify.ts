// Verifying a whole SQLite chain as a streaming join (docs/DESIGN-NOTES.md "Ledger chain"): the team's entries are read
// once in seq order and their links checked, remembering each entry's row digest by (table, row id); then every
// chained table is read once, each row hashed and compared with the entry that names it. No lookup per entry: the
// answer is the same first failing entry, by position, as a walk that reads each entry's row by key.
import type { Database, Statement } from "better-sqlite3";
import { CHAIN_ORDER, CHAIN_TABLES, type ChainTableName, isChainTable } from "../common/chain-tables.js";
import { changedColumns, hexOf, linkDigest, printRow, rowDigestOf } from "../common/chain.js";
import { type ChainFault, type ChainStart, type ChainVerdict, unchainedRow } from "../common/chain-verify.js";

/** What the streaming check needs of the chain: the head it must end at, and a row read by key (for the archive). */
export type StreamSource = {
  head: { seq: number; digest: string } | null;
  /** A row moved to the archive, or null (no archive, or not there either). */
  archived: (table: ChainTableName, id: string | number) => unknown[] | null;
};

const NAMES = Object.keys(CHAIN_TABLES) as ChainTableName[];
const INDEX = new Map<string, number>(NAMES.map((n, i) => [n, i]));
const NUMERIC = NAMES.map((n) => CHAIN_TABLES[n].columns[0]![1] === "num");

/** Rows of a table that count as chained rows (results: calls that have one), for "not in the chain". */
const COUNTS: Partial<Record<ChainTableName, (r: readonly unknown[]) => boolean>> = {
  results: (r) => r[2] !== null || r[5] !== null,
};

const HEX64 = /^[0-9a-f]{64}$/;

/** A digest column as hex text: a BLOB (since 0022_chain_bytes) in lowercase hex, hex text written before it as is. */
const HEX = (col: string) => `CASE typeof(${col}) WHEN 'blob' THEN lower(hex(${col})) ELSE ${col} END`;

const statements = new WeakMap<Database, Map<string, Statement>>();

/** A statement prepared once per handle, raw (rows as arrays). */
function prepared(sqlite: Database, sql: string): Statement {
  let m = statements.get(sqlite);
  if (!m) {
    m = new Map();
    statements.set(sqlite, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = sqlite.prepare(sql).raw();
    m.set(sql, s);
  }
  return s;
}

/** A fault at an entry. */
const fault = (table: string, id: string, seq: number, reason: string): ChainFault => ({ table, id, seq, reason });

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
  // Pass 1: the entries in seq order, their links checked; each remembered by (table, row id) -> index.
  const keys = NAMES.map(() => new Map<string | number, number>());
  const dups: { t: number; key: string | number; i: number }[] = [];
  let cap = Math.max(1024, (src.head?.seq ?? 0) - start.seq + 1);
  let digests = Buffer.alloc(cap * 32);
  let tables = new Uint8Array(cap);
  let seq = start.seq;
  let digest = start.digest;
  let n = 0;
  // The first link fault: at index `linkAt`; `early` when it is found before the entry's row is checked.
  let linkAt = Number.POSITIVE_INFINITY;
  let linkFault: ChainFault | null = null;
  let early = false;
  // Keyset pages read with all(): about 1.4 times as fast as iterate() here, and memory stays one page. The digests
  // come as hex text, made by SQLite: a BLOB read into JavaScript costs a Buffer each, several times a string.
  const entries = prepared(
    sqlite,
    `SELECT seq, tbl, row_id, ${HEX("row_digest")}, ${HEX("digest")} FROM ledger_entries
      WHERE team_id = ? AND seq > ? ORDER BY seq LIMIT ${PAGE * 2}`,
  );
  let after = start.seq;
  let got = 0;
  do {
    const page = entries.all(teamId, after) as [number, string, string, string, string][];
    got = page.length;
    if (got) after = page[got - 1]![0];
    if (!walkPage(page)) break;
  } while (got === PAGE * 2);
  function walkPage(page: [number, string, string, string, string][]): boolean {
    for (const r of page) {
      const [eSeq, tbl, rowId, rowDigest, eDigest] = r;
      if (eSeq !== seq + 1) {
        linkFault =
          eSeq <= seq
            ? fault(tbl, rowId, eSeq, `entry out of order: position ${eSeq} comes after position ${seq}`)
            : fault(tbl, rowId, eSeq, `missing entry: positions ${seq + 1} to ${eSeq - 1} are not in the chain`);
        early = true;
      } else if (!isChainTable(tbl)) {
        linkFault = fault(tbl, rowId, eSeq, `unknown table '${tbl}' in the chain`);
        early = true;
      } else if (linkDigest(digest, rowDigest) !== eDigest)
        // The stored `prev` is read only here, to tell an entry moved from elsewhere from one whose digest was forged.
        linkFault = fault(
          tbl,
          rowId,
          eSeq,
          hexOf(prevAt(sqlite, teamId, eSeq)) !== digest
            ? "entry out of order: it was chained after a different entry than the one before it"
            : "forged digest: the entry's digest is not the digest of its row and the entry before it",
        );
      if (linkFault && early) {
        linkAt = n;
        return false;
      }
      if (n === cap) {
        cap *= 2;
        const d = Buffer.alloc(cap * 32);
        digests.copy(d);
        digests = d;
        const t = new Uint8Array(cap);
        t.set(tables);
        tables = t;
      }
      const ti = INDEX.get(tbl)!;
      tables[n] = ti;
      // A digest that is not 64 hex digits cannot match a row's: its bytes are left zero and the row compared by text.
      digests.write(rowDigest, n * 32, 32, "hex");
      // Bytes compare only lowercase hex exactly as text does (an upper-case digest decodes alike but is not equal).
      if (!HEX64.test(rowDigest)) dups.push({ t: ti, key: "", i: n });
      const key = NUMERIC[ti] ? Number(rowId) : rowId;
      const m = keys[ti]!;
      if (m.has(key)) dups.push({ t: ti, key, i: n });
      else m.set(key, n);
      if (linkFault) {
        linkAt = n;
        return false;
      }
      seq = eSeq;
      digest = eDigest;
      n += 1;
    }
    return true;
  }
  // Pass 2: each chained table read once; a row's digest compared with its entry's. The first row fault wins.
  let rowAt = Number.POSITIVE_INFINITY;
  let rowRead: unknown[] | null = null;
  const seen = new Uint8Array(Math.min(n + 1, cap));
  const now = Buffer.alloc(32);
  const stray: (string | number | null)[] = NAMES.map(() => null);
  for (let ti = 0; ti < NAMES.length; ti += 1) {
    const m = keys[ti]!;
    if (m.size === 0 && !strays) continue;
    const name = NAMES[ti]!;
    const counts = COUNTS[name];
    for (const r of teamRows(sqlite, teamId, name, m.size)) {
      const i = m.get(r[0] as string | number);
      if (i === undefined) {
        if (strays && (counts === undefined || counts(r))) {
          const s = stray[ti];
          if (s === null || (r[0] as string | number) < s) stray[ti] = r[0] as string | number;
        }
        continue;
      }
      seen[i] = 1;
      if (i >= rowAt) continue;
      // The hex digest written into one reused buffer: cheaper than a digest answered as a new Buffer.
      now.write(rowDigestOf(name, r), 0, 32, "hex");
      if (now.compare(digests, i * 32, i * 32 + 32) !== 0) {
        rowAt = i;
        rowRead = r;
      }
    }
  }
  // Entries whose row was not read: moved to the archive, or deleted. Entries naming a row twice: read by key.
  const fetchRow = (ti: number, i: number) => {
    const e = entryAt(sqlite, teamId, start.seq + 1 + i);
    return {
      e,
      row: e ? (rowByKey(sqlite, teamId, NAMES[ti]!, e.rowId) ?? src.archived(NAMES[ti]!, keyOf(ti, e.rowId))) : null,
    };
  };
  for (const d of dups) {
    if (d.i >= rowAt) continue;
    const { e, row } = fetchRow(d.t, d.i);
    if (e && (row === null || rowDigestOf(NAMES[d.t]!, row) !== e.rowDigest)) {
      rowAt = d.i;
      rowRead = row;
    }
  }
  // Entries up to the first link fault count, and that entry itself when its row is checked before its link.
  const bound = Math.min(rowAt, linkAt === Number.POSITIVE_INFINITY ? n : early ? linkAt : linkAt + 1);
  for (let i = 0; i < bound; i += 1) {
    if (seen[i] === 1) continue;
    const { e, row } = fetchRow(tables[i]!, i);
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
      const s = stray[INDEX.get(name)!];
      if (s !== null && s !== undefined) return { ok: false, count: n, first_bad: unchainedRow(name, String(s)) };
    }
  return { ok: true, count: n, digest };
}

const PAGE = 4096;

/**
 * The team's rows of a chained table (canonical columns). When the team's entries are most of the table, it is read
 * in rowid order in keyset pages, skipping other teams' rows (sequential pages, no index lookups, no sort); when they
 * are a small share of it, through the team's index, so a small team in a large file reads only its own rows.
 */
function* teamRows(sqlite: Database, teamId: string, name: ChainTableName, chained: number): Generator<unknown[]> {
  const spec = CHAIN_TABLES[name];
  const cols = spec.columns.map((c) => c[0]).join(", ");
  const last = prepared(sqlite, `SELECT max(rowid) FROM ${spec.source}`).get() as [number | null];
  if (chained * 4 < (last[0] ?? 0)) {
    yield* prepared(sqlite, `SELECT ${cols} FROM ${spec.source} WHERE team_id = ?`).iterate(teamId) as IterableIterator<
      unknown[]
    >;
    return;
  }
  const page = prepared(
    sqlite,
    `SELECT ${cols}, rowid FROM ${spec.source} NOT INDEXED WHERE team_id = ? AND rowid > ? ORDER BY rowid LIMIT ${PAGE}`,
  );
  let after = -1;
  for (;;) {
    const rows = page.all(teamId, after) as unknown[][];
    for (const r of rows) yield r;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]![spec.columns.length] as number;
  }
}

/** A row id as its table's key is bound: a number for a numeric key (the rowid's own lookup). */
const keyOf = (ti: number, rowId: string): string | number => (NUMERIC[ti] ? Number(rowId) : rowId);

/** The stored `prev` of the entry at a position. */
function prevAt(sqlite: Database, teamId: string, seq: number): unknown {
  return (
    prepared(sqlite, "SELECT prev FROM ledger_entries WHERE team_id = ? AND seq = ?").get(teamId, seq) as
      | [unknown]
      | undefined
  )?.[0];
}

/** The entry at a position, as the fault needs it. */
function entryAt(
  sqlite: Database,
  teamId: string,
  seq: number,
): { tbl: ChainTableName; rowId: string; seq: number; fp: string; rowDigest: string } | null {
  const r = prepared(
    sqlite,
    "SELECT tbl, row_id, fp, row_digest FROM ledger_entries WHERE team_id = ? AND seq = ?",
  ).get(teamId, seq) as [ChainTableName, string, unknown, unknown] | undefined;
  return r ? { tbl: r[0], rowId: r[1], seq, fp: hexOf(r[2]), rowDigest: hexOf(r[3]) } : null;
}

/** A chained row read by key, or null. */
function rowByKey(sqlite: Database, teamId: string, name: ChainTableName, rowId: string): unknown[] | null {
  const spec = CHAIN_TABLES[name];
  const r = prepared(
    sqlite,
    `SELECT ${spec.columns.map((c) => c[0]).join(", ")} FROM ${spec.source} WHERE id = ? AND team_id = ?`,
  ).get(keyOf(INDEX.get(name)!, rowId), teamId) as unknown[] | undefined;
  return r ?? null;
}

// The entries' side of a whole-chain verify on SQLite (docs/DESIGN-NOTES.md "Ledger chain"): the team's entries read
// once in seq order, their links checked, each entry's table, row key and row digest kept by position, and the
// entries found by row digest for the join with the rows (chain-verify.ts).
import { hash } from "node:crypto";
import type { Database } from "better-sqlite3";
import { hexOf, linkDigest } from "../common/chain.js";
import type { ChainFault, ChainStart } from "../common/chain-verify.js";
import type { ChainTableName } from "../common/chain-tables.js";
import { CHAIN_NAMES as NAMES, NUMERIC_KEY, prepared } from "./chain-rows.js";

const PAGE = 1024;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * An entry's row digest then its digest as one hex text (upper case, as hex() makes it) when both are 32-byte BLOBs,
 * as since 0022_chain_bytes; NULL otherwise (hex text written before it, or a digest of another length).
 */
const BOTH_HEX = `iif(typeof(row_digest) = 'blob' AND length(row_digest) = 32 AND typeof(digest) = 'blob'
  AND length(digest) = 32, hex(row_digest) || hex(digest), NULL)`;

/** An entry's table as its index in CHAIN_NAMES (a number costs less to read than a string); an unknown name as is. */
const TABLE_INDEX = `CASE tbl ${NAMES.map((n, i) => `WHEN '${n}' THEN ${i}`).join(" ")} ELSE tbl END`;

/** An entry's row id: as an integer for a table with numeric keys when it is one exactly, else as the stored text. */
const ROW_KEY = `CASE WHEN tbl IN (${NAMES.filter((_, i) => NUMERIC_KEY[i])
  .map((n) => `'${n}'`)
  .join(", ")}) AND CAST(CAST(row_id AS INTEGER) AS TEXT) = row_id THEN CAST(row_id AS INTEGER) ELSE row_id END`;

/** An entry as the walk reads it: seq, table (index or unknown name), row id, both digests in hex (or null). */
type Entry = [number, number | string, number | string, string | null];

/** A fault at an entry. */
export const fault = (table: string, id: string, seq: number, reason: string): ChainFault => ({
  table,
  id,
  seq,
  reason,
});

/**
 * What walking the entries leaves: per entry its table, row key and row digest (by index), the entries found by
 * their row digest, and the first link fault. Rows are joined to entries by digest, not by key: a digest is its own
 * hash (its first four bytes index the table), where a Map of a million keys cost a fifth of the walk. A row joins
 * the entry with its digest only when that entry also names its table and key.
 */
export type Walked = {
  /** Per entry, the row key it names, as a lookup binds it. */
  keys: (string | number)[];
  /** Entries per table. */
  counts: number[];
  /** Open addressing over the row digests: entry index + 1, 0 for an empty slot. */
  slots: Int32Array;
  /** Entries that share a row digest with an earlier one, or whose row digest is not 64 lowercase hex digits. */
  dups: { t: number; i: number }[];
  digests: Buffer;
  tables: Uint8Array;
  n: number;
  seq: number;
  digest: string;
  /** The first link fault: at index `linkAt`; `early` when it is found before the entry's row is checked. */
  linkAt: number;
  linkFault: ChainFault | null;
  early: boolean;
};

/** Pass 1: the entries in seq order, their links checked; each remembered by (table, row id) -> index. */
export function walkEntries(sqlite: Database, teamId: string, start: ChainStart, headSeq: number): Walked {
  const w: Walked = {
    keys: [],
    counts: NAMES.map(() => 0),
    slots: new Int32Array(slotsFor(headSeq - start.seq + 2)),
    dups: [],
    digests: Buffer.alloc(0),
    tables: new Uint8Array(0),
    n: 0,
    seq: start.seq,
    digest: start.digest,
    linkAt: Number.POSITIVE_INFINITY,
    linkFault: null,
    early: false,
  };
  // One slot more than the entries: an entry's own digest is decoded into the slot after its row digest's, which the
  // next entry's row digest then takes.
  let cap = Math.max(1024, headSeq - start.seq + 2);
  w.digests = Buffer.alloc(cap * 32);
  let words = wordsOf(w.digests);
  w.tables = new Uint8Array(cap);
  // The 64 bytes an entry's digest is the SHA-256 of: the previous entry's digest, then this entry's row digest.
  const link = Buffer.alloc(64);
  link.write(start.digest, 0, 32, "hex");
  // Keyset pages read with all(): about 1.4 times as fast as iterate() here, and memory stays one page. Both digests
  // come as one hex text made by SQLite: a BLOB read into JavaScript costs a Buffer each, several times a string.
  const entries = prepared(
    sqlite,
    `SELECT seq, ${TABLE_INDEX}, ${ROW_KEY}, ${BOTH_HEX} FROM ledger_entries
      WHERE team_id = ? AND seq > ? ORDER BY seq LIMIT ${PAGE * 2}`,
  );
  let after = start.seq;
  let got = 0;
  do {
    const page = entries.all(teamId, after) as Entry[];
    got = page.length;
    if (got) after = page[got - 1]![0];
    if (!walkPage(page)) break;
  } while (got === PAGE * 2);
  w.digest = link.toString("hex", 0, 32);
  return w;

  function walkPage(page: Entry[]): boolean {
    for (const r of page) {
      const [eSeq, t, id, both] = r;
      const tbl = typeof t === "number" ? NAMES[t]! : t;
      if (eSeq !== w.seq + 1) {
        w.linkFault =
          eSeq <= w.seq
            ? fault(tbl, String(id), eSeq, `entry out of order: position ${eSeq} comes after position ${w.seq}`)
            : fault(tbl, String(id), eSeq, `missing entry: positions ${w.seq + 1} to ${eSeq - 1} are not in the chain`);
        w.early = true;
      } else if (typeof t !== "number") {
        w.linkFault = fault(tbl, String(id), eSeq, `unknown table '${tbl}' in the chain`);
        w.early = true;
      }
      if (w.early) {
        w.linkAt = w.n;
        return false;
      }
      const n = w.n;
      if (n + 1 >= cap) {
        cap *= 2;
        const d = Buffer.alloc(cap * 32);
        w.digests.copy(d);
        w.digests = d;
        words = wordsOf(d);
        const tb = new Uint8Array(cap);
        tb.set(w.tables);
        w.tables = tb;
      }
      const ti = t as number;
      w.tables[n] = ti;
      const at = n * 32;
      let holds: boolean;
      if (both !== null) {
        // Two 32-byte digests: the row digest into its slot, the entry's digest into the next; compared as bytes.
        w.digests.write(both, at, 64, "hex");
        w.digests.copy(link, 32, at, at + 32);
        holds = hash("sha256", link, "binary") === w.digests.toString("binary", at + 32, at + 64);
        if (holds) w.digests.copy(link, 0, at + 32, at + 64);
      } else {
        // Digests stored as hex text (before 0022_chain_bytes) or of another length: read and compared as text, as
        // the walk does. A row digest that is not 64 lowercase hex digits cannot be compared as bytes: its row is
        // compared by text (an upper-case digest would decode alike but is not equal).
        const { rowDigest, digest: eDigest } = entryAt(sqlite, teamId, eSeq)!;
        w.digests.fill(0, at, at + 32);
        if (w.digests.write(rowDigest, at, 32, "hex") !== 32 || !HEX64.test(rowDigest)) w.dups.push({ t: ti, i: n });
        holds = linkDigest(link.toString("hex", 0, 32), rowDigest) === eDigest;
        if (holds) link.write(eDigest, 0, 32, "hex");
      }
      if (!holds)
        // The stored `prev` is read only here, to tell an entry moved from elsewhere from one whose digest was forged.
        w.linkFault = fault(
          tbl,
          String(id),
          eSeq,
          entryAt(sqlite, teamId, eSeq)?.prev !== link.toString("hex", 0, 32)
            ? "entry out of order: it was chained after a different entry than the one before it"
            : "forged digest: the entry's digest is not the digest of its row and the entry before it",
        );
      // A numeric key read as text (not exactly an integer) is compared as Number() reads it, as a lookup binds it.
      w.keys.push(NUMERIC_KEY[ti] && typeof id === "string" ? Number(id) : id);
      w.counts[ti] += 1;
      if ((n + 1) * 2 > w.slots.length) rehash(w, words, n);
      if (!addDigest(w, words, n)) w.dups.push({ t: ti, i: n });
      if (w.linkFault) {
        w.linkAt = n;
        return false;
      }
      w.seq = eSeq;
      w.n += 1;
    }
    return true;
  }
}

/** Slots for `n` entries: a power of two at least twice as many. */
function slotsFor(n: number): number {
  let size = 2048;
  while (size < n * 2) size *= 2;
  return size;
}

/**
 * The 32-bit words of a buffer of digests (8 a digest): compared in JavaScript, 8 words cost less than one call to
 * Buffer.compare. The digests' buffers here are allocated whole, so aligned; a buffer that is not is copied.
 */
export function wordsOf(b: Uint8Array): Int32Array {
  if (b.byteOffset % 4 === 0) return new Int32Array(b.buffer, b.byteOffset, b.byteLength >> 2);
  return new Int32Array(Uint8Array.from(b).buffer);
}

/** Whether digest `a` of `x` and digest `b` of `y` (by index) are the same 32 bytes. */
function same(x: Int32Array, a: number, y: Int32Array, b: number): boolean {
  const i = a * 8;
  const j = b * 8;
  return (
    x[i] === y[j] &&
    x[i + 1] === y[j + 1] &&
    x[i + 2] === y[j + 2] &&
    x[i + 3] === y[j + 3] &&
    x[i + 4] === y[j + 4] &&
    x[i + 5] === y[j + 5] &&
    x[i + 6] === y[j + 6] &&
    x[i + 7] === y[j + 7]
  );
}

/** Adds entry `i` by its row digest (`words`: the entries' digests as words); false when an earlier one has it. */
function addDigest(w: Walked, words: Int32Array, i: number): boolean {
  const { slots } = w;
  const mask = slots.length - 1;
  for (let h = words[i * 8]! & mask; ; h = (h + 1) & mask) {
    const s = slots[h]!;
    if (s === 0) {
      slots[h] = i + 1;
      return true;
    }
    if (same(words, i, words, s - 1)) return false;
  }
}

/** The entry whose row digest is digest `j` of `rows` (as words), or -1; `words`: the entries' digests as words. */
export function findDigest(w: Walked, words: Int32Array, rows: Int32Array, j: number): number {
  const { slots } = w;
  const mask = slots.length - 1;
  for (let h = rows[j * 8]! & mask; ; h = (h + 1) & mask) {
    const s = slots[h]!;
    if (s === 0) return -1;
    if (same(rows, j, words, s - 1)) return s - 1;
  }
}

/** Grows the slots (entries past the head's count: a chain longer than its head says). */
function rehash(w: Walked, words: Int32Array, n: number): void {
  w.slots = new Int32Array(slotsFor(n + 1) * 2);
  for (let i = 0; i < n; i += 1) addDigest(w, words, i);
}

/** An entry as stored, its digests and fingerprints as hex text whichever form they are stored in. */
export type StoredAt = {
  tbl: ChainTableName;
  rowId: string;
  seq: number;
  fp: string;
  rowDigest: string;
  prev: string;
  digest: string;
};

/** The entry at a position, or null: read only off the walk's fast path (a fault, or digests stored as hex text). */
export function entryAt(sqlite: Database, teamId: string, seq: number): StoredAt | null {
  const r = prepared(
    sqlite,
    "SELECT tbl, row_id, fp, row_digest, prev, digest FROM ledger_entries WHERE team_id = ? AND seq = ?",
  ).get(teamId, seq) as [ChainTableName, string, unknown, unknown, unknown, unknown] | undefined;
  if (!r) return null;
  const [tbl, rowId, fp, rowDigest, prev, digest] = r;
  return { tbl, rowId, seq, fp: hexOf(fp), rowDigest: hexOf(rowDigest), prev: hexOf(prev), digest: hexOf(digest) };
}

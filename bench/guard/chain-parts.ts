// bench:guard's price of the chain's parts: the same batched calls with the rows' hashing taken off the writing thread
// (constant digests, as if another thread hashed them for free), with no entry rows written (rows hashed, head moved),
// with neither; and two shapes a next format could take, in the append itself rather than apart from it: the entries
// of each flush written as one block row (today's hashing), and the format docs/DESIGN-NOTES.md plans (the rows'
// values in a binary encoding hashed once per flush, the entries as one block row). Each part is switched by
// replacing SqliteChain methods for the round only, so the service's code carries no benchmark switch; a chain
// written so is broken (a block row is written to a table of the benchmark's own), which is why only a benchmark does it.
// The planned format also runs with one check per row instead of its per-column fingerprints, and with neither: the
// pieces of it that only serve to name what changed.
import { hash } from "node:crypto";
import { crc32 } from "node:zlib";
import type { Database, Statement } from "better-sqlite3";
import { CHAIN_NAMES } from "../../src/store/sqlite/chain-rows.js";
import { CHAIN_TABLES, type ChainTableName } from "../../src/store/common/chain-tables.js";
import { SqliteChain } from "../../src/store/sqlite/chain.js";
import { encodeRow, fnv32 } from "../chain/binary-encoding.js";

/** The parts of the append a round can leave out, or write in another shape. */
export const CHAIN_PARTS = [
  "hashing",
  "entries",
  "both",
  "block",
  "planned",
  "planned-row-check",
  "planned-row-crc",
  "planned-no-fp",
] as const;

/** Which of the append's parts a round leaves out or reshapes. */
export type ChainPart = (typeof CHAIN_PARTS)[number];

/** What each part does to the append, as bench:guard and bench:http:parts print it. */
export const CHAIN_PART_LABELS: Record<ChainPart, string> = {
  hashing: "rows hashed elsewhere for free (constant digests), entries written",
  entries: "rows hashed, no entry rows written",
  both: "neither: only the head read and moved",
  block: "entries as one block row per group commit (rows hashed as today)",
  planned: "the planned format: binary values hashed once per group commit, one block row",
  "planned-row-check": "the planned format, one 32-bit check a row instead of a fingerprint a column",
  "planned-row-crc": "the same, the row's check a native CRC-32",
  "planned-no-fp": "the planned format with neither (a changed row could not be named)",
};

type Row = readonly [ChainTableName, unknown, (readonly unknown[])?];
type Tip = { seq: number; prev: Buffer };
type Internals = {
  sqlite: Database;
  link(teamId: string, rows: readonly Row[], tip: Tip, at: string, params: unknown[]): void;
  writeEntries(params: unknown[]): void;
  read(table: ChainTableName): { get(...args: unknown[]): unknown };
};

const proto = SqliteChain.prototype as unknown as Internals;
const realLink = proto.link;
const realWrite = proto.writeEntries;
const DIGEST = Buffer.alloc(32, 7);
const FP = new Map<ChainTableName, Buffer>();
/** An entry's parameters as the append pushes them: team, seq, table, row id, row digest, prev, digest, fp, at. */
const WIDTH = 9;

/** The row's values as the append hashes them: as bound to its INSERT, or read back. */
function valuesOf(self: Internals, teamId: string, table: ChainTableName, id: unknown, bound?: readonly unknown[]) {
  const row = bound ?? self.read(table).get(id, teamId);
  if (row === undefined) throw new Error(`chain: ${table} ${String(id)} was not written`);
  return row as readonly unknown[];
}

/** The link step with the hashing left out: rows read back as the real step reads them, digests constant. */
function linkUnhashed(this: Internals, teamId: string, rows: readonly Row[], tip: Tip, at: string, params: unknown[]) {
  for (const [table, id, bound] of rows) {
    valuesOf(this, teamId, table, id, bound);
    let fp = FP.get(table);
    if (fp === undefined) {
      fp = Buffer.alloc(CHAIN_TABLES[table].columns.length * 2);
      FP.set(table, fp);
    }
    tip.seq += 1;
    params.push(teamId, tip.seq, table, String(id), DIGEST, tip.prev, DIGEST, fp, at);
    tip.prev = DIGEST;
  }
}

/**
 * Per flush (its parameter list), where the planned format's encoding ends in SCRATCH: the previous digest, then the
 * rows' encoded values. One buffer serves every flush, since a flush is written before the next one begins.
 */
const encoded = new WeakMap<unknown[], { buf: Buffer; end: number }>();
const SCRATCH = Buffer.allocUnsafe(1024 * 1024);

/**
 * What the planned format keeps per row to name what changed: a fingerprint per column (verify names the row and the
 * column), one 32-bit check over the row's bytes (the row, not the column: FNV-1a in JavaScript, or zlib's native
 * CRC-32), or nothing (only the flush whose hash failed).
 */
type Naming = "columns" | "row" | "row-crc" | "none";

/**
 * The planned format's link step: each row's values written into the flush's buffer with what `naming` keeps (where an
 * entry's digests stood), no hash per row; the flush's one hash is taken as it is written.
 */
function encodedLink(naming: Naming): Internals["link"] {
  return function (this: Internals, teamId, rows, tip, at, params) {
    let group = encoded.get(params);
    if (group === undefined) {
      group = { buf: SCRATCH, end: 32 };
      tip.prev.copy(group.buf, 0, 0, 32);
      encoded.set(params, group);
    }
    for (const [table, id, bound] of rows) {
      const values = valuesOf(this, teamId, table, id, bound);
      const start = group.end;
      let check: Buffer | null = naming === "columns" ? Buffer.allocUnsafe(values.length * 2) : null;
      group.end = encodeRow(group.buf, start, values, check, 0);
      if (naming === "row" || naming === "row-crc") {
        check = Buffer.allocUnsafe(4);
        const end = group.end;
        check.writeUInt32BE(naming === "row" ? fnv32(group.buf, start, end) : crc32(group.buf.subarray(start, end)));
      }
      tip.seq += 1;
      params.push(teamId, tip.seq, table, String(id), null, null, null, check, at);
    }
  };
}

const blockPuts = new WeakMap<Database, Statement>();

/** The statement that writes a block row into the benchmark's own table (made on first use). */
function blockPut(sqlite: Database): Statement {
  let s = blockPuts.get(sqlite);
  if (!s) {
    sqlite.exec(`CREATE TABLE IF NOT EXISTS bench_chain_blocks (team_id text NOT NULL, seq integer NOT NULL,
      at text NOT NULL, entries blob NOT NULL, PRIMARY KEY (team_id, seq))`);
    s = sqlite.prepare("INSERT INTO bench_chain_blocks (team_id, seq, at, entries) VALUES (?, ?, ?, ?)");
    blockPuts.set(sqlite, s);
  }
  return s;
}

const TABLE_INDEX = new Map<string, number>(CHAIN_NAMES.map((n, i) => [n, i]));

/** Writes `d`, when it is bytes, into `buf` at `o` after its length; the new end. */
function putBytes(buf: Buffer, o: number, d: unknown): number {
  if (!(d instanceof Buffer)) return o;
  buf[o] = d.length;
  return o + 1 + d.copy(buf, o + 1);
}

/**
 * Writes a flush's entries as one block row per team: per entry its table's index, its row id, the digests it has
 * (none in the planned format, which appends the flush's one digest) and its fingerprints.
 */
function writeBlocks(this: Internals, params: unknown[]) {
  const group = encoded.get(params);
  const digest = group ? Buffer.from(hash("sha256", group.buf.subarray(0, group.end), "binary"), "latin1") : null;
  const buf = Buffer.allocUnsafe((params.length / WIDTH) * 200 + 64);
  let o = 0;
  for (let i = 0; i < params.length; i += WIDTH) {
    buf[o++] = TABLE_INDEX.get(params[i + 2] as string) ?? 255;
    const id = params[i + 3] as string;
    buf[o] = id.length;
    o += 1 + buf.write(id, o + 1, "latin1");
    // The row digest, the digest and the fingerprints, those the entry has (no array per entry on this path).
    o = putBytes(buf, o, params[i + 4]);
    o = putBytes(buf, o, params[i + 6]);
    o = putBytes(buf, o, params[i + 7]);
  }
  if (digest) o += digest.copy(buf, o);
  if (params.length)
    blockPut(this.sqlite).run(params[0], params[1], params[WIDTH - 1], Buffer.from(buf.subarray(0, o)));
}

/** Per part: the link step and the entries' write a round runs with (the real ones when not named). */
const SWITCHES: Record<ChainPart, { link?: Internals["link"]; write?: Internals["writeEntries"] }> = {
  hashing: { link: linkUnhashed },
  entries: { write: () => undefined },
  both: { link: linkUnhashed, write: () => undefined },
  block: { write: writeBlocks },
  planned: { link: encodedLink("columns"), write: writeBlocks },
  "planned-row-check": { link: encodedLink("row"), write: writeBlocks },
  "planned-row-crc": { link: encodedLink("row-crc"), write: writeBlocks },
  "planned-no-fp": { link: encodedLink("none"), write: writeBlocks },
};

/** Runs `fn` with `part` of the append left out or reshaped, then puts the real methods back. */
export async function withoutChainPart<T>(part: ChainPart, fn: () => Promise<T>): Promise<T> {
  proto.link = SWITCHES[part].link ?? realLink;
  proto.writeEntries = SWITCHES[part].write ?? realWrite;
  try {
    return await fn();
  } finally {
    proto.link = realLink;
    proto.writeEntries = realWrite;
  }
}

// The ledger chain over SQLite: rows are appended to a team's chain inside the writer's transaction (SQLite's one
// writer at a time is the commit order, across processes too), and the chain is walked in keyset pages of entries.
import type { Database, Statement } from "better-sqlite3";
import { andChainedRows, CHAIN_ORDER, CHAIN_TABLES, type ChainTableName } from "../common/chain-tables.js";
import { chainSettings, GENESIS, hexOf, linkBytes, printRowBytes } from "../common/chain.js";
import {
  type ChainFault,
  type ChainVerdict,
  ChainWalk,
  type StoredEntry,
  unchainedRow,
} from "../common/chain-verify.js";
import { beforeCommit, inOptimisticGroup, ownedTransaction, totalChanges } from "./atomic.js";
import { outputsMemo } from "./outputs-memo.js";
import { rowByKeySql } from "./chain-rows.js";
import { type RowsElsewhere, streamVerify, streamVerifyBeside } from "./chain-verify.js";

/** A team's head as stored. */
export type ChainHead = {
  seq: number;
  digest: string;
  at: string;
  backfilled: number;
  beganAt: string | null;
  baseSeq: number;
  baseDigest: string;
};

const PAGE = 8192;

/** Entries written per INSERT statement (9 parameters each, well under SQLite's limit). */
const ENTRY_ROWS = 64;

/** A team's chain tip while entries are linked: where its next entry goes, its digest, and whether it has a head. */
type Tip = { seq: number; prev: Buffer; had: boolean };

/** Entries computed in a group commit and written once, just before it commits (one head read and write per team). */
type Pending = { txn: number; tips: Map<string, Tip>; params: unknown[]; at: string };

/** A row's key as the writer has it. */
export type RowKey = string | number | bigint;

/** The chain of one SQLite database. */
export class SqliteChain {
  private readonly reads = new Map<ChainTableName, Statement>();
  private readonly headGet: Statement;
  private readonly headPut: Statement;
  private readonly headTip: Statement;
  private readonly headSet: Statement;
  private readonly puts: Statement[] = [];
  private readonly page: Statement;
  private pending: Pending | null = null;

  constructor(private readonly sqlite: Database) {
    this.headGet = sqlite.prepare(
      `SELECT seq, digest, at, backfilled, began_at AS beganAt, base_seq AS baseSeq, base_digest AS baseDigest
         FROM ledger_heads WHERE team_id = ?`,
    );
    this.headTip = sqlite.prepare("SELECT seq, digest FROM ledger_heads WHERE team_id = ?").raw();
    this.headPut = sqlite.prepare(
      `INSERT INTO ledger_heads (team_id, seq, digest, at) VALUES (?, ?, ?, ?)
         ON CONFLICT (team_id) DO UPDATE SET seq = excluded.seq, digest = excluded.digest, at = excluded.at`,
    );
    this.headSet = sqlite.prepare("UPDATE ledger_heads SET seq = ?, digest = ?, at = ? WHERE team_id = ?");
    this.page = sqlite.prepare(
      `SELECT seq, tbl, row_id AS rowId, row_digest AS rowDigest, prev, digest, fp FROM ledger_entries
          WHERE team_id = ? AND seq > ? ORDER BY seq LIMIT ${PAGE}`,
    );
  }

  /** The statement inserting `n` entries at once (prepared once per n). */
  private entryPuts(n: number): Statement {
    let s = this.puts[n];
    if (!s) {
      s = this.sqlite.prepare(
        `INSERT INTO ledger_entries (team_id, seq, tbl, row_id, row_digest, prev, digest, fp, at) VALUES ${Array.from(
          { length: n },
          () => "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ).join(", ")}`,
      );
      this.puts[n] = s;
    }
    return s;
  }

  /** The statement that reads a chained row's canonical columns, as an array, by id and team. */
  private read(name: ChainTableName): Statement {
    let s = this.reads.get(name);
    if (!s) {
      s = this.sqlite.prepare(rowByKeySql(name)).raw();
      this.reads.set(name, s);
    }
    return s;
  }

  /** A chained row's canonical columns as stored now, or null. */
  row(teamId: string, table: ChainTableName, id: string | number): unknown[] | null {
    return (this.read(table).get(id, teamId) as unknown[] | undefined) ?? null;
  }

  /** The team's head, or null before its first entry. */
  head(teamId: string): ChainHead | null {
    return (this.headGet.get(teamId) as ChainHead | undefined) ?? null;
  }

  /** Appends the rows `ids` of `table`, just written in the caller's transaction, to the team's chain. */
  append(teamId: string, table: ChainTableName, ids: readonly RowKey[]): void {
    if (ids.length)
      this.appendRows(
        teamId,
        ids.map((id) => [table, id] as const),
      );
  }

  /**
   * Appends rows just written in the caller's transaction to the team's chain, in the order given. Each row is read
   * back as stored, so the entry holds exactly what verify will read, unless the writer passes the canonical columns'
   * values it bound to its INSERT, in column order, each as SQLite stores it (text, integer, null): those are hashed
   * as given. Must run inside the writing transaction.
   */
  appendRows(
    teamId: string,
    rows: readonly (readonly [ChainTableName, RowKey] | readonly [ChainTableName, RowKey, readonly unknown[]])[],
    options: { force?: boolean } = {},
  ): void {
    if ((!chainSettings.enabled && !options.force) || rows.length === 0) return;
    // In a group commit whose jobs run bare, the entries are held back and written once before it commits: the
    // group is kept or undone whole, so they stand or fall with its rows, in the order the rows were appended.
    const txn = inOptimisticGroup(this.sqlite) ? ownedTransaction(this.sqlite) : null;
    if (txn !== null) {
      let p = this.pending;
      if (p === null || p.txn !== txn) {
        p = { txn, tips: new Map(), params: [], at: new Date().toISOString() };
        this.pending = p;
        beforeCommit(this.sqlite, () => this.flushPending());
      }
      let tip = p.tips.get(teamId);
      if (tip === undefined) {
        tip = this.tipOf(teamId);
        p.tips.set(teamId, tip);
      }
      this.link(teamId, rows, tip, p.at, p.params);
      return;
    }
    // Every writer calls this inside its transaction; one that does not still reads and moves the head atomically.
    if (!this.sqlite.inTransaction) {
      this.sqlite.transaction(() => this.appendRows(teamId, rows, options)).immediate();
      return;
    }
    // Entries held back earlier in this transaction come first (a group's job followed by a savepointed write).
    this.flushPending();
    const tip = this.tipOf(teamId);
    const params: unknown[] = [];
    const at = new Date().toISOString();
    this.link(teamId, rows, tip, at, params);
    this.writeEntries(params);
    this.writeTip(teamId, tip, at);
  }

  /** The team's chain tip as stored (its head), read inside the writing transaction. */
  private tipOf(teamId: string): Tip {
    const head = this.headTip.get(teamId) as [number, string] | undefined;
    return { seq: head?.[0] ?? 0, prev: Buffer.from(head?.[1] ?? GENESIS, "hex"), had: head !== undefined };
  }

  /** Hashes the rows into entries after `tip`, adding their parameters to `params` and moving the tip. */
  private link(
    teamId: string,
    rows: readonly (readonly [ChainTableName, RowKey] | readonly [ChainTableName, RowKey, readonly unknown[]])[],
    tip: Tip,
    at: string,
    params: unknown[],
  ): void {
    for (const [table, id, bound] of rows) {
      const row = bound ?? (this.read(table).get(id, teamId) as unknown[] | undefined);
      if (row === undefined) throw new Error(`chain: ${table} ${String(id)} was not written`);
      const { rowDigest, fp } = printRowBytes(table, row);
      const digest = linkBytes(tip.prev, rowDigest);
      tip.seq += 1;
      params.push(teamId, tip.seq, table, String(id), rowDigest, tip.prev, digest, fp, at);
      tip.prev = digest;
    }
  }

  /** Writes entries' parameters, ENTRY_ROWS entries per statement. */
  private writeEntries(params: unknown[]): void {
    for (let i = 0; i < params.length; i += ENTRY_ROWS * 9) {
      const chunk = i === 0 && params.length <= ENTRY_ROWS * 9 ? params : params.slice(i, i + ENTRY_ROWS * 9);
      this.entryPuts(chunk.length / 9).run(...chunk);
    }
  }

  /** Moves the team's head to its tip. */
  private writeTip(teamId: string, tip: Tip, at: string): void {
    const digest = tip.prev.toString("hex");
    if (tip.had) this.headSet.run(tip.seq, digest, at, teamId);
    else this.headPut.run(teamId, tip.seq, digest, at);
    tip.had = true;
  }

  /** Writes the entries a group held back, and each team's head, when they belong to the open transaction. */
  private flushPending(): void {
    const p = this.pending;
    if (p === null) return;
    this.pending = null;
    // Held back in a transaction that rolled back: its rows are gone, and so are its entries.
    if (p.txn !== ownedTransaction(this.sqlite)) return;
    const before = totalChanges(this.sqlite);
    this.writeEntries(p.params);
    for (const [teamId, tip] of p.tips) this.writeTip(teamId, tip, p.at);
    // Entries and heads hold no session output: what the session memory knew before them still holds.
    outputsMemo(this.sqlite).passOver(before);
  }

  /**
   * Walks the team's chain from its base (or from the first entry at or after `since`): answers the first entry that
   * does not hold. A whole walk also finds rows written outside the chain and entries removed from its end.
   */
  verify(teamId: string, options: { since?: string; archive?: Database } = {}): ChainVerdict {
    // One read transaction, so the head, the entries and the rows are one snapshot: a commit of another process
    // between two of those reads would otherwise read as rows outside the chain or a head past its last entry.
    if (this.sqlite.inTransaction) return this.verifyNow(teamId, options);
    return this.sqlite.transaction(() => this.verifyNow(teamId, options)).deferred();
  }

  /**
   * A whole-chain verify whose rows are hashed by `elsewhere` (a worker reading the same file) while this connection
   * walks the entries. The caller holds this connection's read transaction open until the answer.
   */
  verifyBesideNow(teamId: string, elsewhere: RowsElsewhere, archive?: Database): Promise<ChainVerdict> {
    const archived = archive ? sqliteChain(archive) : null;
    const head = this.head(teamId);
    const start = { seq: head?.baseSeq ?? 0, digest: head?.baseDigest ?? GENESIS };
    const src = {
      head,
      archived: (table: ChainTableName, key: string | number) => archived?.row(teamId, table, key) ?? null,
    };
    return streamVerifyBeside(this.sqlite, teamId, start, src, (head?.baseSeq ?? 0) === 0, elsewhere);
  }

  private verifyNow(teamId: string, options: { since?: string; archive?: Database }): ChainVerdict {
    // Rows `agent-ledger archive` moved out are read from the archive file, whose tables have the same schema.
    const archived = options.archive ? sqliteChain(options.archive) : null;
    const head = this.head(teamId);
    let start = { seq: head?.baseSeq ?? 0, digest: head?.baseDigest ?? GENESIS };
    if (options.since !== undefined) {
      const first = this.sqlite
        .prepare("SELECT seq, prev FROM ledger_entries WHERE team_id = ? AND at >= ? ORDER BY seq LIMIT 1")
        .get(teamId, options.since) as { seq: number; prev: string | Buffer } | undefined;
      if (!first) return { ok: true, count: 0, digest: head?.digest ?? GENESIS };
      start = { seq: first.seq - 1, digest: hexOf(first.prev) };
    }
    // A whole chain is checked as a streaming join (one read of the entries and of each table); a window from
    // `since` is walked entry by entry, reading each row by key, so it costs what the window holds.
    if (options.since === undefined)
      return streamVerify(
        this.sqlite,
        teamId,
        start,
        { head, archived: (table, key) => archived?.row(teamId, table, key) ?? null },
        (head?.baseSeq ?? 0) === 0,
      );
    const walk = new ChainWalk(start);
    const tally = new Map<string, number>();
    const fail = (f: ChainFault): ChainVerdict => ({ ok: false, count: walk.count, first_bad: f });
    for (;;) {
      const entries = (this.page.all(teamId, walk.seq) as StoredEntry[]).map(asHex);
      for (const e of entries) {
        const table = e.tbl as ChainTableName;
        const read = CHAIN_TABLES[table] ? this.read(table) : null;
        // A numeric key is bound as a number, so the lookup is the rowid's own (a text key would compare slower).
        const key = CHAIN_TABLES[table]?.columns[0]?.[1] === "num" ? Number(e.rowId) : e.rowId;
        let row = read ? ((read.get(key, teamId) as unknown[] | undefined) ?? null) : null;
        if (row === null && read && archived) row = archived.row(teamId, table, key as string);
        const fault = walk.step(e, row);
        if (fault) return fail(fault);
        tally.set(e.tbl, (tally.get(e.tbl) ?? 0) + 1);
      }
      if (entries.length < PAGE) break;
    }
    const end = walk.end(head);
    if (end) return fail(end);
    if (options.since === undefined) {
      const stray = this.unchained(teamId, tally, head?.baseSeq ?? 0);
      if (stray) return fail(stray);
    }
    return { ok: true, count: walk.count, digest: walk.digest };
  }

  /** A row of the team in a chained table that no entry names (checked by counts first, so an intact walk is cheap). */
  private unchained(teamId: string, tally: Map<string, number>, baseSeq: number): ChainFault | null {
    // Rows archived with their entries are gone from both; rows before the backfill are chained by it.
    if (baseSeq > 0) return null;
    for (const name of CHAIN_ORDER) {
      const spec = CHAIN_TABLES[name];
      const where = andChainedRows(name);
      const { n } = this.sqlite
        .prepare(`SELECT count(*) AS n FROM ${spec.source} WHERE team_id = ?${where}`)
        .get(teamId) as { n: number };
      if (n <= (tally.get(name) ?? 0)) continue;
      const chained = new Set(
        (
          this.sqlite
            .prepare("SELECT row_id FROM ledger_entries WHERE team_id = ? AND tbl = ?")
            .pluck()
            .all(teamId, name) as string[]
        ).map(String),
      );
      for (const id of this.sqlite
        .prepare(`SELECT id FROM ${spec.source} WHERE team_id = ?${where} ORDER BY id`)
        .pluck()
        .iterate(teamId) as IterableIterator<string | number>)
        if (!chained.has(String(id))) return unchainedRow(name, String(id));
    }
    return null;
  }
}

/** An entry as read, its digests and fingerprints as hex text whichever form they are stored in. */
export function asHex<E extends { rowDigest: unknown; prev: unknown; digest: unknown; fp?: unknown }>(e: E): E {
  e.rowDigest = hexOf(e.rowDigest);
  e.prev = hexOf(e.prev);
  e.digest = hexOf(e.digest);
  if (e.fp !== undefined) e.fp = hexOf(e.fp);
  return e;
}

const chains = new WeakMap<Database, SqliteChain>();

/** The chain of a database handle (one per handle, its statements prepared once). */
export function sqliteChain(sqlite: Database): SqliteChain {
  let c = chains.get(sqlite);
  if (!c) {
    c = new SqliteChain(sqlite);
    chains.set(sqlite, c);
  }
  return c;
}

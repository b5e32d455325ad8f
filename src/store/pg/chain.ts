// The ledger chain's reads over PostgreSQL: the walk in keyset pages, the head, an export's entries.
import {
  andChainedRows,
  CHAIN_ORDER,
  CHAIN_TABLES,
  type ChainTableName,
  isChainTable,
} from "../common/chain-tables.js";
import { GENESIS } from "../common/chain.js";
import { stepInSlices } from "../common/in-slices.js";
import {
  type ChainFault,
  type ChainVerdict,
  ChainWalk,
  type StoredEntry,
  unchainedRow,
} from "../common/chain-verify.js";
import type { ChainEntryRow, ChainHeadRow, LedgerChain } from "../chain-access.js";
import type { PgLedgerDb } from "./open.js";
import { keyType, readByIds } from "./chain-append.js";
import type pg from "pg";
import { type Q, queryOn } from "./tx.js";

/**
 * Entries read a page. The driver parses a result on the event loop as its bytes arrive, up to megabytes in one turn
 * once they have queued up: pages of 8,192 entries (with their rows, about 3 MB) held the loop 40-50 ms at a time.
 */
const PAGE = 1024;

const SESSION_SEQS = `SELECT e.seq FROM ledger_entries e WHERE e.team_id = $1 AND (
  (e.tbl = 'sessions' AND e.row_id = $2)
  OR (e.tbl IN ('calls', 'results') AND e.row_id IN (SELECT id FROM calls WHERE team_id = $1 AND session_id = $2))
  OR (e.tbl = 'crossings' AND e.row_id IN (SELECT CAST(id AS TEXT) FROM crossings WHERE team_id = $1 AND session_id = $2))
  OR (e.tbl = 'audits' AND e.row_id IN (SELECT id FROM audits WHERE team_id = $1 AND session_id = $2))
  OR (e.tbl = 'audit_items' AND e.row_id IN (SELECT CAST(i.id AS TEXT) FROM audit_items i JOIN audits a ON a.id = i.audit_id
      WHERE a.team_id = $1 AND a.session_id = $2))) ORDER BY e.seq`;

const EVALUATION_SEQS = `SELECT e.seq FROM ledger_entries e WHERE e.team_id = $1 AND (
  (e.tbl = 'runs' AND e.row_id = $2)
  OR (e.tbl = 'run_claims' AND e.row_id IN (SELECT CAST(id AS TEXT) FROM run_claims WHERE team_id = $1 AND run_id = $2))
  OR (e.tbl = 'evaluation_sources'
      AND e.row_id IN (SELECT CAST(id AS TEXT) FROM evaluation_sources WHERE team_id = $1 AND run_id = $2))) ORDER BY e.seq`;

const HEAD_SQL = `SELECT seq::int AS seq, digest, at, backfilled::int AS backfilled, began_at AS "beganAt",
  base_seq::int AS "baseSeq", base_digest AS "baseDigest" FROM ledger_heads WHERE team_id = $1`;

/** Rows of a chained table by id (canonical columns, id first), read on a pool or on one client. */
async function readRows(on: pg.ClientBase | pg.Pool, name: ChainTableName, teamId: string, ids: string[]) {
  const res = await on.query({ text: readByIds(name), values: [teamId, ids], rowMode: "array" });
  const out = new Map<string, unknown[]>();
  for (const r of res.rows as unknown[][]) out.set(String(r[0]), r.slice(1));
  return out;
}

/** The chain operations of a PostgreSQL database. */
export function pgChain(db: PgLedgerDb): LedgerChain {
  const q = queryOn(db.pool);
  const head = async (teamId: string) => (await q<ChainHeadRow>(HEAD_SQL, [teamId]))[0] ?? null;
  return {
    head,
    teams: async () =>
      (await q<{ team_id: string }>("SELECT team_id FROM ledger_heads ORDER BY team_id")).map((r) => r.team_id),
    entriesOf: async (teamId, rows) => {
      const out: ChainEntryRow[] = [];
      for (const [t, id] of rows)
        out.push(
          ...(await q<ChainEntryRow>(
            `SELECT seq::int AS seq, tbl, row_id AS "rowId", row_digest AS "rowDigest", prev, digest FROM ledger_entries
              WHERE team_id = $1 AND tbl = $2 AND row_id = $3`,
            [teamId, t, id],
          )),
        );
      return out.sort((a, b) => a.seq - b.seq);
    },
    entriesAt: (teamId, seq) =>
      q<ChainEntryRow>(
        `SELECT seq::int AS seq, tbl, row_id AS "rowId", row_digest AS "rowDigest", prev, digest FROM ledger_entries
          WHERE team_id = $1 AND seq = $2`,
        [teamId, seq],
      ),
    segment: (teamId, from, to) =>
      q<ChainEntryRow & { at: string }>(
        `SELECT seq::int AS seq, tbl, row_id AS "rowId", row_digest AS "rowDigest", prev, digest, at FROM ledger_entries
          WHERE team_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq`,
        [teamId, from, to],
      ),
    sessionSeqs: async (teamId, sessionId) =>
      (await q<{ seq: number }>(SESSION_SEQS, [teamId, sessionId])).map((r) => Number(r.seq)),
    evaluationSeqs: async (teamId, runId) =>
      (await q<{ seq: number }>(EVALUATION_SEQS, [teamId, runId])).map((r) => Number(r.seq)),
    rowOf: async (teamId, table, id) =>
      isChainTable(table) ? ((await readRows(db.pool, table, teamId, [id])).get(id) ?? null) : null,
    backfill: async () => 0,
    verify: async (teamId, options = {}): Promise<ChainVerdict> => {
      // One client in one REPEATABLE READ snapshot: the head, the entries and the rows as of one moment, whatever other
      // writers commit meanwhile (read one by one on the pool, a commit between reads looked like an edit).
      const client = await db.pool.connect();
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        return await verifyOn(client, teamId, options);
      } finally {
        await client.query("COMMIT").catch(() => undefined);
        client.release();
      }
    },
  };

  /**
   * The first row of a chained table that no entry chains, or null. The walk found every entry's row, so a table with
   * as many chained rows as distinct rows in its entries has none, and only a table whose counts differ is searched,
   * as a set difference (a per-row NOT EXISTS against the entries, which have no index by row, made verify quadratic:
   * 692 entries a second on 80,000).
   */
  async function strayRow(q: Q, teamId: string): Promise<ChainFault | null> {
    const chained = new Map(
      (
        await q<{ tbl: string; n: number }>(
          "SELECT tbl, count(DISTINCT row_id)::int AS n FROM ledger_entries WHERE team_id = $1 GROUP BY tbl",
          [teamId],
        )
      ).map((r) => [r.tbl, r.n]),
    );
    for (const name of CHAIN_ORDER) {
      const source = `SELECT t.id FROM ${CHAIN_TABLES[name].source} t WHERE t.team_id = $1${andChainedRows(name)}`;
      const [rows] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM (${source}) s`, [teamId]);
      if ((rows?.n ?? 0) === (chained.get(name) ?? 0)) continue;
      const [stray] = await q<{ id: string }>(
        `SELECT id::text AS id FROM (${source}
           EXCEPT SELECT e.row_id::${keyType(name)} FROM ledger_entries e WHERE e.team_id = $1 AND e.tbl = $2) s
         ORDER BY s.id LIMIT 1`,
        [teamId, name],
      );
      if (stray) return unchainedRow(name, stray.id);
    }
    return null;
  }

  async function verifyOn(client: pg.PoolClient, teamId: string, options: { since?: string }): Promise<ChainVerdict> {
    const q = queryOn(client);
    const h = (await q<ChainHeadRow>(HEAD_SQL, [teamId]))[0] ?? null;
    let start = { seq: h?.baseSeq ?? 0, digest: h?.baseDigest ?? GENESIS };
    if (options.since !== undefined) {
      const first = (
        await q<{ seq: number; prev: string }>(
          "SELECT seq::int AS seq, prev FROM ledger_entries WHERE team_id = $1 AND at >= $2 ORDER BY seq LIMIT 1",
          [teamId, options.since],
        )
      )[0];
      if (!first) return { ok: true, count: 0, digest: h?.digest ?? GENESIS };
      start = { seq: first.seq - 1, digest: first.prev };
    }
    const walk = new ChainWalk(start);
    const fail = (f: ChainFault): ChainVerdict => ({ ok: false, count: walk.count, first_bad: f });
    // A page and its rows, read by keyset after position `seq`: one read per table per page, by id.
    const pageAfter = async (seq: number) => {
      const entries = await q<StoredEntry>(
        `SELECT seq::int AS seq, tbl, row_id AS "rowId", row_digest AS "rowDigest", prev, digest, fp FROM ledger_entries
          WHERE team_id = $1 AND seq > $2 ORDER BY seq LIMIT ${PAGE}`,
        [teamId, seq],
      );
      const byTable = new Map<ChainTableName, string[]>();
      for (const e of entries)
        if (isChainTable(e.tbl)) {
          const list = byTable.get(e.tbl) ?? [];
          list.push(e.rowId);
          byTable.set(e.tbl, list);
        }
      const rows = new Map<string, Map<string, unknown[]>>();
      for (const [name, ids] of byTable) rows.set(name, await readRows(client, name, teamId, ids));
      return { entries, rows };
    };
    let next = pageAfter(walk.seq);
    for (;;) {
      const { entries, rows } = await next;
      const full = entries.length === PAGE;
      // The next page is asked for before this one is hashed, so the server reads it while this thread hashes.
      if (full) next = pageAfter(entries[entries.length - 1]!.seq);
      // Hashed in slices with a turn of the loop between them: a page in one piece held the loop about 50 ms.
      const fault = await stepInSlices(entries, (e) => walk.step(e, rows.get(e.tbl)?.get(e.rowId) ?? null));
      if (fault) {
        // The read ahead finishes on this client before it is given back.
        if (full) await next.catch(() => undefined);
        return fail(fault);
      }
      if (!full) break;
    }
    const end = walk.end(h);
    if (end) return fail(end);
    if (options.since === undefined && (h?.baseSeq ?? 0) === 0) {
      const stray = await strayRow(q, teamId);
      if (stray) return fail(stray);
    }
    return { ok: true, count: walk.count, digest: walk.digest };
  }
}

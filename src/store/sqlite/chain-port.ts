// The LedgerChain over SQLite: the chain's reads, and the backfill that chains rows written before chaining began.
import Database from "better-sqlite3";
import type { ChainEntryRow, LedgerChain } from "../chain-access.js";
import { andChainedRows, CHAIN_ORDER, CHAIN_TABLES, isChainTable } from "../common/chain-tables.js";
import { asHex, sqliteChain } from "./chain.js";
import { verifySettings } from "./chain-verify.js";
import { verifyLedger } from "./chain-verify-large.js";
import { verifyElsewhere } from "./verify-pool.js";

/** The positions of a session's own entries. */
const SESSION_SEQS = `SELECT e.seq FROM ledger_entries e WHERE e.team_id = @team AND (
  (e.tbl = 'sessions' AND e.row_id = @session)
  OR (e.tbl IN ('calls', 'results') AND e.row_id IN (SELECT id FROM calls WHERE team_id = @team AND session_id = @session))
  OR (e.tbl = 'crossings' AND e.row_id IN (SELECT CAST(id AS TEXT) FROM crossings WHERE team_id = @team AND session_id = @session))
  OR (e.tbl = 'audits' AND e.row_id IN (SELECT id FROM audits WHERE team_id = @team AND session_id = @session))
  OR (e.tbl = 'audit_items' AND e.row_id IN (SELECT CAST(i.id AS TEXT) FROM audit_items i JOIN audits a ON a.id = i.audit_id
      WHERE a.team_id = @team AND a.session_id = @session))) ORDER BY e.seq`;

/** The positions of an evaluation's own entries. */
const EVALUATION_SEQS = `SELECT e.seq FROM ledger_entries e WHERE e.team_id = @team AND (
  (e.tbl = 'runs' AND e.row_id = @run)
  OR (e.tbl = 'run_claims' AND e.row_id IN (SELECT CAST(id AS TEXT) FROM run_claims WHERE team_id = @team AND run_id = @run))
  OR (e.tbl = 'evaluation_sources'
      AND e.row_id IN (SELECT CAST(id AS TEXT) FROM evaluation_sources WHERE team_id = @team AND run_id = @run))) ORDER BY e.seq`;

/**
 * Chains, for every team that has no head yet, the rows it already has: table by table in CHAIN_ORDER, each in
 * insertion (rowid) order, in one transaction, then records how many entries the backfill made and when.
 */
export function backfillSqlite(sqlite: Database.Database): number {
  const chain = sqliteChain(sqlite);
  let made = 0;
  sqlite
    .transaction(() => {
      const teams = sqlite
        .prepare("SELECT id FROM teams WHERE id NOT IN (SELECT team_id FROM ledger_heads) ORDER BY id")
        .pluck()
        .all() as string[];
      const at = new Date().toISOString();
      for (const team of teams) {
        const rows: [keyof typeof CHAIN_TABLES, string | number][] = [];
        for (const name of CHAIN_ORDER) {
          const spec = CHAIN_TABLES[name];
          const ids = sqlite
            .prepare(`SELECT id FROM ${spec.source} WHERE team_id = ?${andChainedRows(name)} ORDER BY rowid`)
            .pluck()
            .all(team) as (string | number)[];
          for (const id of ids) rows.push([name, id]);
        }
        chain.appendRows(team, rows, { force: true });
        sqlite
          .prepare(
            `INSERT INTO ledger_heads (team_id, seq, digest, at, backfilled, began_at)
               VALUES (?, 0, '${"0".repeat(64)}', ?, ?, ?)
             ON CONFLICT (team_id) DO UPDATE SET backfilled = excluded.backfilled, began_at = excluded.began_at`,
          )
          .run(team, at, rows.length, at);
        made += rows.length;
      }
    })
    .immediate();
  return made;
}

/**
 * The chain operations of a SQLite database. `offLoop` (a serving process): a database file's verifies run on the
 * verify worker (verify-pool.ts), so a long one does not hold the event loop; the verdict is the same.
 */
export function sqliteLedgerChain(sqlite: Database.Database, settings: { offLoop?: boolean } = {}): LedgerChain {
  const chain = sqliteChain(sqlite);
  return {
    verify: async (teamId, options = {}) => {
      if (settings.offLoop && !sqlite.memory) {
        const job = { file: sqlite.name, teamId, besideFrom: verifySettings.besideFrom, ...options };
        const verdict = await verifyElsewhere(job);
        if (verdict) return verdict;
      }
      const since = options.since === undefined ? {} : { since: options.since };
      if (options.archive === undefined) return verifyLedger(sqlite, teamId, since);
      const archive = new Database(options.archive, { readonly: true, fileMustExist: true });
      try {
        return await verifyLedger(sqlite, teamId, { ...since, archive });
      } finally {
        archive.close();
      }
    },
    head: async (teamId) => chain.head(teamId),
    teams: async () => sqlite.prepare("SELECT team_id FROM ledger_heads ORDER BY team_id").pluck().all() as string[],
    entriesOf: async (teamId, rows) => {
      const get = sqlite.prepare(
        `SELECT seq, tbl, row_id AS rowId, row_digest AS rowDigest, prev, digest FROM ledger_entries
          WHERE team_id = ? AND tbl = ? AND row_id = ?`,
      );
      const out = rows
        .map(([t, id]) => get.get(teamId, t, id) as ChainEntryRow | undefined)
        .filter((e): e is ChainEntryRow => e !== undefined)
        .map(asHex);
      return out.sort((a, b) => a.seq - b.seq);
    },
    entriesAt: async (teamId, seq) =>
      sqlite
        .prepare(
          `SELECT seq, tbl, row_id AS rowId, row_digest AS rowDigest, prev, digest FROM ledger_entries
            WHERE team_id = ? AND seq = ?`,
        )
        .all(teamId, seq)
        .map((e) => asHex(e as ChainEntryRow)),
    segment: async (teamId, from, to) =>
      sqlite
        .prepare(
          `SELECT seq, tbl, row_id AS rowId, row_digest AS rowDigest, prev, digest, at FROM ledger_entries
            WHERE team_id = ? AND seq >= ? AND seq <= ? ORDER BY seq`,
        )
        .all(teamId, from, to)
        .map((e) => asHex(e as ChainEntryRow & { at: string })),
    sessionSeqs: async (teamId, sessionId) =>
      sqlite.prepare(SESSION_SEQS).pluck().all({ team: teamId, session: sessionId }) as number[],
    evaluationSeqs: async (teamId, runId) =>
      sqlite.prepare(EVALUATION_SEQS).pluck().all({ team: teamId, run: runId }) as number[],
    rowOf: async (teamId, table, id) => (isChainTable(table) ? sqliteChain(sqlite).row(teamId, table, id) : null),
    backfill: async () => backfillSqlite(sqlite),
  };
}

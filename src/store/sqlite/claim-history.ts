// The ClaimHistory port over SQLite for one team: demoted and live ledger claims, and the keyed claims of earlier runs.
import type { Database, Statement } from "better-sqlite3";
import type { ClaimHistory, DemotedClaim, LedgerClaim, PriorRunClaim } from "../../gates/ports.js";

type Statements = Record<"demoted" | "stamp" | "live" | "prior" | "priorCount", Statement>;
type RawDemoted = {
  id: string;
  text: string;
  key: string | null;
  value: string | null;
  reason: string | null;
  demoted_by: string | null;
  watch: string | null;
};
/** A PRIOR_RUN_CLAIMS_SQL (or PRIOR_VALUES_SQL) row, in its column order. */
type RawPrior = [
  run_id: string,
  key: string,
  value: string | null,
  text: string,
  created_at: string,
  claim_id: string | null,
];

/**
 * The stability query: one team's keyed claims of a task's earlier released runs, through run_claims_team_task_key_idx,
 * one row per distinct (key, value, claim id) with its latest run: a released run holds one value per key (the
 * contradiction gate blocks two), so the distinct values are all the gate compares, and the cost stays a scan in
 * SQLite instead of one JavaScript object per earlier claim. A key's history starts at the last released run that
 * named a claim in `supersedes` for it (that run replaced the values before it). The gate now reads the same rows
 * from run_key_values (PRIOR_VALUES_SQL); this query is the definition that summary is tested against.
 */
export const PRIOR_RUN_CLAIMS_SQL = `WITH wanted(key) AS (SELECT DISTINCT value FROM json_each(@keys)),
  replacing AS MATERIALIZED (
    SELECT w.key, (SELECT s.run_id FROM run_claims s WHERE s.team_id = @team AND s.task = @task AND s.key = w.key AND s.released = 1
                   AND s.supersedes IS NOT NULL ORDER BY s.id DESC LIMIT 1) AS run_id
    FROM wanted w),
  starts AS MATERIALIZED (
    SELECT r.key, (SELECT min(x.id) FROM run_claims x WHERE x.team_id = @team AND x.task = @task AND x.key = r.key AND x.run_id = r.run_id) AS first_id
    FROM replacing r)
  SELECT max(c.run_id), c.key, c.value, min(c.text), max(c.created_at), c.claim_id
  FROM starts st JOIN run_claims c ON c.team_id = @team AND c.task = @task AND c.key = st.key
  WHERE c.released = 1 AND c.id >= coalesce(st.first_id, 0)
  GROUP BY c.key, c.value, c.claim_id
  ORDER BY min(c.id)`;

/**
 * The stability read: the same rows as PRIOR_RUN_CLAIMS_SQL, from the per-key summary the evaluation's transaction
 * keeps (run_key_values), so its cost is the number of distinct values, not the length of the task's history.
 */
export const PRIOR_VALUES_SQL = `SELECT v.last_run_id, v.key, v.value, v.text, v.last_created_at, nullif(v.claim_id, '')
  FROM run_key_values v
  WHERE v.team_id = @team AND v.task = @task AND v.key IN (SELECT DISTINCT value FROM json_each(@keys))
  ORDER BY v.first_id`;

/** Live ledger claims by key, through claims_team_key_idx; the status is the claim's latest event. */
export const LIVE_CLAIMS_SQL = `SELECT c.id, c.text, c.key, c.value FROM claims c
  WHERE c.team_id = ? AND c.key IN (SELECT value FROM json_each(?))
  AND (SELECT e.status FROM claim_events e WHERE e.team_id = c.team_id AND e.claim_id = c.id ORDER BY e.id DESC LIMIT 1) = 'live'`;

/** Demoted claims: demoted events (claim_events_team_status_idx) that are their claim's latest. */
export const DEMOTED_CLAIMS_SQL = `SELECT c.id, c.text, c.key, c.value, e.reason, e.demoted_by, e.watch FROM claim_events e
  JOIN claims c ON c.team_id = e.team_id AND c.id = e.claim_id
  WHERE e.team_id = ? AND e.status = 'demoted' AND e.id = (SELECT max(x.id) FROM claim_events x WHERE x.team_id = e.team_id AND x.claim_id = e.claim_id)
  ORDER BY e.id`;

const statements = new WeakMap<Database, Statements>();
// Demoted claims per database and team, valid while the team's latest event id is unchanged (events are append-only).
const demotedCache = new WeakMap<Database, Map<string, { stamp: number; rows: DemotedClaim[] }>>();

function prepared(sqlite: Database): Statements {
  let s = statements.get(sqlite);
  if (!s) {
    s = {
      demoted: sqlite.prepare(DEMOTED_CLAIMS_SQL),
      // Any team's newest event, not the team's: max(id) over the whole table is one step down the rowid tree, where
      // the team's own walked all its events (2 ms per evaluation at 20,000). Events are only ever appended, so the
      // stamp moves whenever the team's demoted claims may have changed (and, harmlessly, when another team's did).
      stamp: sqlite.prepare("SELECT coalesce(max(id), 0) AS stamp FROM claim_events"),
      live: sqlite.prepare(LIVE_CLAIMS_SQL),
      // Rows as arrays: a June evaluation reads every earlier run's claims (50,000 rows for 1,000 runs of 50 keys),
      // and building one object per row was a third of its time.
      prior: sqlite.prepare(PRIOR_VALUES_SQL).raw(true),
      // Released runs only, as for the prior claims: a blocked run is not a result to stay stable with.
      priorCount: sqlite.prepare(
        "SELECT count(*) AS n FROM runs WHERE team_id = ? AND task = ? AND status = 'released'",
      ),
    };
    statements.set(sqlite, s);
  }
  return s;
}

const parseJson = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** The ClaimHistory port for one team, each method one indexed query. */
export function claimHistory(sqlite: Database, teamId: string): ClaimHistory {
  const s = prepared(sqlite);
  return {
    demotedClaims(): DemotedClaim[] {
      const stamp = (s.stamp.get() as { stamp: number }).stamp;
      let perTeam = demotedCache.get(sqlite);
      if (!perTeam) demotedCache.set(sqlite, (perTeam = new Map()));
      const hit = perTeam.get(teamId);
      if (hit && hit.stamp === stamp) return hit.rows;
      const rows = (s.demoted.all(teamId) as RawDemoted[]).map((r) => ({ ...r, value: parseJson(r.value) }));
      perTeam.set(teamId, { stamp, rows });
      return rows;
    },
    liveClaims(keys: readonly string[]): LedgerClaim[] {
      if (keys.length === 0) return [];
      return (
        s.live.all(teamId, JSON.stringify(keys)) as { id: string; text: string; key: string; value: string | null }[]
      ).map((r) => ({ ...r, value: parseJson(r.value) }));
    },
    priorRunClaims(task: string, keys: readonly string[]): PriorRunClaim[] {
      if (keys.length === 0) return [];
      const raw = s.prior.all({ team: teamId, task, keys: JSON.stringify(keys) }) as RawPrior[];
      return raw.map(([run_id, key, value, text, created_at, claim_id]) => ({
        run_id,
        key,
        value: parseJson(value),
        text,
        created_at,
        claim_id,
      }));
    },
    priorRunCount(task: string): number {
      return (s.priorCount.get(teamId, task) as { n: number }).n;
    },
  };
}

// Gated evaluations on PostgreSQL. One evaluation per (team, task) at a time (an advisory transaction lock), so two
// instances evaluating one task never miss each other: the history snapshot is read under the lock, the pure gates
// decide over it, and the run is written before the lock is released.
import type { Clock } from "../../clock.js";
import type { ContractVerdict } from "../../gates/contract.js";
import { decide, runKeys } from "../../gates/decide.js";
import type { ClaimHistory, DemotedClaim, LedgerClaim, PriorRunClaim } from "../../gates/ports.js";
import { createQuantityComparer } from "../../gates/quantity-compare.js";
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from "../../gates/settings.js";
import { NotFoundError } from "../common/errors.js";
import { newId } from "../common/ids.js";
import type { EvaluationsRepo } from "../port.js";
import { evaluationSummary, type RawRun, storedEvaluation } from "../common/run-rows.js";
import { type PgRegistryCache, readVersion } from "./registry.js";
import { pgEvidenceResolver } from "./evidence.js";
import { parseJson } from "./rows.js";
import { inTransaction, lockKey, type Q, queryOn } from "./tx.js";
import type pg from "pg";
import { pgAppend } from "./chain-append.js";
import type { Evaluation } from "../model.js";
import { overlayHistory } from "../common/claim-history.js";
import {
  type EvaluationRows,
  evaluationRows,
  type ParsedEvaluation,
  parseEvaluation,
  type RunClaimRow,
} from "../common/evaluation-rows.js";

// The stability read: a task's earlier released values per key from the summary the evaluation's transaction keeps
// (run_key_values, as on SQLite), so its cost is the number of distinct values, not the length of the task's history.
// PRIOR_RUN_CLAIMS in test/store/contract is the definition over run_claims it is tested against.
const PRIOR = `SELECT v.last_run_id AS run_id, v.key, v.value, v.text, v.last_created_at AS created_at, nullif(v.claim_id, '') AS claim_id
  FROM run_key_values v WHERE v.team_id = $1 AND v.task = $2 AND v.key = ANY($3::text[])
  ORDER BY v.first_id`;

// A key whose claim in this released run names `supersedes` starts its history afresh at this run.
const RESTART_KEYS = "DELETE FROM run_key_values WHERE team_id = $1 AND task = $2 AND key = ANY($3::text[])";

// Every released value merged into its (key, value, claim) row; a run naming one value twice merges it once.
const SUMMARISE = `INSERT INTO run_key_values (team_id, task, key, value, claim_id, first_id, last_run_id, text, last_created_at)
  SELECT $1, $2, r.key, r.value, coalesce(r.claim_id, ''), min(r.id), $3, min(r.text), $4
  FROM unnest($5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[]) AS r(id, key, value, text, claim_id)
  GROUP BY r.key, r.value, coalesce(r.claim_id, '')
  ON CONFLICT (team_id, task, key, value, claim_id) DO UPDATE SET first_id = least(run_key_values.first_id, excluded.first_id),
    last_run_id = greatest(run_key_values.last_run_id, excluded.last_run_id), text = least(run_key_values.text, excluded.text),
    last_created_at = greatest(run_key_values.last_created_at, excluded.last_created_at)`;

const LIVE = `SELECT c.id, c.text, c.key, c.value FROM claims c
  WHERE c.team_id = $1 AND c.key = ANY($2::text[])
  AND (SELECT e.status FROM claim_events e WHERE e.team_id = c.team_id AND e.claim_id = c.id ORDER BY e.id DESC LIMIT 1) = 'live'`;

const DEMOTED = `SELECT c.id, c.text, c.key, c.value, e.reason, e.demoted_by, e.watch FROM claim_events e
  JOIN claims c ON c.team_id = e.team_id AND c.id = e.claim_id
  WHERE e.team_id = $1 AND e.status = 'demoted' AND e.id = (SELECT max(x.id) FROM claim_events x WHERE x.team_id = e.team_id AND x.claim_id = e.claim_id)
  ORDER BY e.id`;

const PRIOR_COUNT = "SELECT count(*) AS n FROM runs WHERE team_id = $1 AND task = $2 AND status = 'released'";

/** Demoted claims per team, valid while the team's claims counter is unchanged. */
export class DemotedCache {
  private readonly byTeam = new Map<string, { version: number; rows: DemotedClaim[] }>();

  /** The team's demoted claims as committed now (the counter is read first, so a race can only cause a reload). */
  async read(q: Q, teamId: string): Promise<DemotedClaim[]> {
    const version = await readVersion(q, teamId, "claims");
    const hit = this.byTeam.get(teamId);
    if (hit && hit.version === version) return hit.rows;
    const rows = (await q<DemotedClaim & { value: string | null }>(DEMOTED, [teamId])).map((r) => ({
      ...r,
      value: parseJson(r.value),
    }));
    if (this.byTeam.size > 10_000) this.byTeam.clear();
    this.byTeam.set(teamId, { version, rows });
    return rows;
  }
}

/** Everything the gates will ask of history for this input, read up front (the ClaimHistory port is synchronous). */
async function snapshot(q: Q, demoted: DemotedCache, teamId: string, contract: ContractVerdict): Promise<ClaimHistory> {
  const keys = contract.ok ? runKeys(contract.runs) : [];
  const task = contract.ok ? contract.task.id : "";
  const dem = await demoted.read(q, teamId);
  const live =
    keys.length === 0
      ? []
      : (await q<LedgerClaim & { value: string | null }>(LIVE, [teamId, keys])).map((r) => ({
          ...r,
          value: parseJson(r.value),
        }));
  const prior =
    keys.length === 0 || task.trim() === ""
      ? []
      : (await q<PriorRunClaim & { value: string | null }>(PRIOR, [teamId, task, keys])).map((r) => ({
          ...r,
          value: parseJson(r.value),
        }));
  const single = contract.ok && keys.length === 0 && contract.runs.length === 1 && task.trim() !== "";
  const priorCount = single ? ((await q<{ n: number }>(PRIOR_COUNT, [teamId, task]))[0]?.n ?? 0) : 0;
  return {
    demotedClaims: () => dem,
    liveClaims: (k) => live.filter((c) => k.includes(c.key)),
    priorRunCount: (t) => (t === task ? priorCount : 0),
    priorRunClaims: (t, k) => (t === task ? prior.filter((c) => k.includes(c.key)) : []),
  };
}

/** Writes the rows the evaluation produces (common/evaluation-rows.ts): the run, its source links, its keyed claims. */
async function insertRun(
  q: Q,
  teamId: string,
  e: Evaluation,
  parsed: ParsedEvaluation,
  settings: Settings,
): Promise<void> {
  const rows = evaluationRows(e, parsed, settings);
  const [id, task, ...rest] = rows.run;
  await q(
    "INSERT INTO runs (id, team_id, task, status, overall_score, report, input, settings, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    [id, teamId, task, ...rest],
  );
  await pgAppend(q, teamId, [["runs", id]]);
  if (rows.sources.length > 0) await insertSources(q, teamId, e, rows.sources);
  if (task === null || rows.claims.length === 0) return;
  const col = <K extends keyof RunClaimRow>(k: K) => rows.claims.map((c) => c[k]);
  const at = e.created_at;
  const stored = await q<{ id: number; key: string; value: string; text: string; claim_id: string | null }>(
    `INSERT INTO run_claims (run_id, team_id, task, key, value, text, claim_id, run_index, released, supersedes, created_at)
     SELECT $1, $2, $3, r.key, r.value, r.text, r.claim_id, r.run_index, $4, r.supersedes, $5
     FROM unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::text[])
       WITH ORDINALITY AS r(key, value, text, claim_id, run_index, supersedes, n) ORDER BY r.n
     RETURNING id, key, value, text, claim_id`,
    [
      id,
      teamId,
      task,
      rows.released,
      at,
      col("key"),
      col("value"),
      col("text"),
      col("claimId"),
      col("runIndex"),
      col("supersedes"),
    ],
  );
  await pgAppend(
    q,
    teamId,
    [...stored].sort((a, b) => a.id - b.id).map((r) => ["run_claims", r.id] as const),
  );
  if (!rows.released) return;
  if (rows.restartedKeys.length > 0) await q(RESTART_KEYS, [teamId, task, rows.restartedKeys]);
  const of = <K extends keyof (typeof stored)[number]>(k: K) => stored.map((r) => r[k]);
  await q(SUMMARISE, [teamId, task, id, at, of("id"), of("key"), of("value"), of("text"), of("claim_id")]);
}

const INSERT_SOURCES = `INSERT INTO evaluation_sources (run_id, team_id, task, run_index, claim_id, claim_text, locator, status,
    crossing_id, session_id, seq, tool, value, unit, quality, observed_at, match, created_at)
  SELECT $1, $2, $3, r.run_index, r.claim_id, r.claim_text, r.locator, r.status, r.crossing_id, r.session_id, r.seq, r.tool,
    r.value, r.unit, r.quality, r.observed_at, r.match, $4
  FROM unnest($5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::int[], $13::text[],
    $14::float8[], $15::text[], $16::text[], $17::text[], $18::text[])
    WITH ORDINALITY AS r(run_index, claim_id, claim_text, locator, status, crossing_id, session_id, seq, tool, value, unit,
      quality, observed_at, match, n) ORDER BY r.n`;

/** The released evaluation's links to the sources its claims cite, in report order (as the SQLite store writes them). */
async function insertSources(q: Q, teamId: string, e: Evaluation, rows: EvaluationRows["sources"]): Promise<void> {
  const col = (n: number) => rows.map((r) => r[n] ?? null);
  const ids = await q<{ id: number }>(`${INSERT_SOURCES} RETURNING id`, [
    e.id,
    teamId,
    e.task,
    e.created_at,
    ...Array.from({ length: 14 }, (_, i) => col(i)),
  ]);
  await pgAppend(
    q,
    teamId,
    ids
      .map((r) => Number(r.id))
      .sort((a, b) => a - b)
      .map((id) => ["evaluation_sources", id] as const),
  );
}

/** Gated evaluations over the pool. */
export function pgEvaluations(pool: pg.Pool, clock: Clock, registries: PgRegistryCache): EvaluationsRepo {
  const q = queryOn(pool);
  const demoted = new DemotedCache();
  return {
    evaluate: async (teamId, input, options = {}) => {
      const parsed = parseEvaluation(input);
      const settings = mergeSettings(options.settings ?? DEFAULT_SETTINGS, parsed.settings);
      const record = options.record !== false;
      const task = parsed.taskId;
      const run = async (tq: Q): Promise<Evaluation> => {
        if (record && task !== null)
          await tq("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("evaluate", teamId, task)]);
        const datums = await registries.current(tq, teamId);
        const history = overlayHistory(await snapshot(tq, demoted, teamId, parsed.contract), options.extraLedger ?? []);
        const { contract } = parsed;
        const evidence =
          options.resolveLedger === false
            ? null
            : await pgEvidenceResolver(tq, teamId, contract.ok ? contract.runs : []);
        const now = clock.now();
        const decision = decide(input, {
          ...(evidence ? { evidence } : {}),
          settings,
          history,
          compareQuantities: createQuantityComparer(datums.names()),
          ...(options.watchCache ? { watchCache: options.watchCache } : {}),
          ...(options.pathExists ? { pathExists: options.pathExists } : {}),
        });
        const evaluation: Evaluation = { id: newId(now.getTime()), task, created_at: now.toISOString(), ...decision };
        if (record) await insertRun(tq, teamId, evaluation, parsed, settings);
        return evaluation;
      };
      const evaluation = record ? await inTransaction(pool, run) : await run(q);
      return { evaluation, settings, recorded: record };
    },
    get: async (teamId, id) => {
      const [r] = await q<RawRun>(
        "SELECT id, task, status, overall_score, report, input, settings, created_at FROM runs WHERE team_id = $1 AND id = $2",
        [teamId, id],
      );
      if (!r) throw new NotFoundError(`no evaluation '${id}'`);
      return storedEvaluation(r);
    },
    list: async (teamId, filter) => {
      const rows = await q<RawRun>(
        `SELECT id, task, status, overall_score, report, created_at FROM runs
         WHERE team_id = $1 AND ($2::text IS NULL OR task = $2) AND ($3::text IS NULL OR status = $3)
         AND ($4::text IS NULL OR created_at >= $4) AND ($5::text IS NULL OR (created_at, id) < ($5, $6::text))
         ORDER BY created_at DESC, id DESC LIMIT $7`,
        [
          teamId,
          filter.task ?? null,
          filter.status ?? null,
          filter.since ?? null,
          filter.before?.[0] ?? null,
          filter.before?.[1] ?? null,
          filter.limit + 1,
        ],
      );
      const items = rows.slice(0, filter.limit).map(evaluationSummary);
      const last = items[items.length - 1];
      return { items, next_cursor: rows.length > filter.limit && last ? ([last.created_at, last.id] as const) : null };
    },
  };
}

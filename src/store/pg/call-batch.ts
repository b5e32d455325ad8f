// The many-row forms of the one-statement call and result (REMEMBERED_CALL, REMEMBERED_RESULT in calls.ts): the same
// writes for several sessions at once, each row under its own condition, so GroupCommit can send them as one
// statement. A job is exactly the parameter list its one-row statement takes; `k` (1-based) ties rows to jobs.
import { CROSSING_INSERT_COLUMNS, CROSSING_TYPES } from "./rows.js";
import { OUTPUT_FILTER } from "./call-cache.js";
import type { Q } from "./tx.js";

const X_COLUMNS = CROSSING_INSERT_COLUMNS.split(", ")
  .map((c) => `x.${c}`)
  .join(", ");

/** `unnest` over the jobs' columns ($1..) and the flattened crossings after them, each crossing tagged with its job. */
function unnests(jobColumns: readonly [string, string][]): { jobs: string; crossings: string } {
  const args = jobColumns.map(([, t], i) => `$${i + 1}::${t}[]`).join(", ");
  const names = jobColumns.map(([n]) => n).join(", ");
  const first = jobColumns.length + 1;
  const xArgs = ["int", ...CROSSING_TYPES].map((t, i) => `$${first + i}::${t}[]`).join(", ");
  return {
    jobs: `unnest(${args}) WITH ORDINALITY AS j(${names}, k)`,
    crossings: `unnest(${xArgs}) WITH ORDINALITY AS x(ck, ${CROSSING_INSERT_COLUMNS}, n)`,
  };
}

// The columns of a call job, as positions in REMEMBERED_CALL's parameters ($1..$12, $30..$33; $13..$29 are crossings).
const CALL_JOB: [string, string, number][] = [
  ["session_id", "text", 0],
  ["team_id", "text", 1],
  ["nviol", "int", 2],
  ["nblock", "int", 3],
  ["call_id", "text", 4],
  ["tool", "text", 5],
  ["tool_version", "int", 6],
  ["guarded", "bool", 7],
  ["args_raw", "text", 8],
  ["ok", "bool", 9],
  ["violations", "text", 10],
  ["created_at", "text", 11],
  ["writes", "int", 29],
  ["registry_version", "int", 30],
  ["tool_latest", "int", 31],
  ["tool_digest", "text", 32],
];
const CALL_CROSSINGS_AT = 12;

const CALL_UNNEST = unnests(CALL_JOB.map(([n, t]) => [n, t]));

/** REMEMBERED_CALL for many sessions: a row per call written, (k, seq, write_count). */
export const GROUP_CALL = `WITH j AS (SELECT * FROM ${CALL_UNNEST.jobs}),
  s AS (UPDATE sessions SET call_count = sessions.call_count + 1, write_count = sessions.write_count + 1,
      violation_count = sessions.violation_count + j.nviol, blocked_count = sessions.blocked_count + j.nblock
    FROM j WHERE sessions.id = j.session_id AND sessions.team_id = j.team_id AND sessions.write_count = j.writes
      AND coalesce((SELECT v.version FROM team_versions v WHERE v.team_id = j.team_id AND v.kind = 'registry'), 0)
        = j.registry_version
      AND (SELECT max(t.version) FROM tools t WHERE t.team_id = j.team_id AND t.name = j.tool) IS NOT DISTINCT FROM j.tool_latest
    RETURNING j.k, sessions.call_count, sessions.write_count),
  c AS (INSERT INTO calls (id, team_id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, created_at,
      tool_digest)
    SELECT j.call_id, j.team_id, j.session_id, s.call_count, j.tool, j.tool_version, j.guarded, j.args_raw, j.ok,
      j.violations, j.created_at, j.tool_digest
    FROM s JOIN j ON j.k = s.k ORDER BY s.k),
  x AS (INSERT INTO crossings (team_id, session_id, call_id, seq, tool, ${CROSSING_INSERT_COLUMNS}, created_at)
    SELECT j.team_id, j.session_id, j.call_id, s.call_count, j.tool, ${X_COLUMNS}, j.created_at
    FROM ${CALL_UNNEST.crossings} JOIN s ON s.k = x.ck JOIN j ON j.k = x.ck ORDER BY x.n)
  SELECT k::int AS k, call_count AS seq, write_count FROM s`;

// The columns of a result job, as positions in REMEMBERED_RESULT's parameters ($1..$9, $27, $28; $10..$26 crossings).
const RESULT_JOB: [string, string, number][] = [
  ["session_id", "text", 0],
  ["team_id", "text", 1],
  ["call_id", "text", 2],
  ["result_raw", "text", 3],
  ["ok", "bool", 4],
  ["violations", "text", 5],
  ["at", "text", 6],
  ["nviol", "int", 7],
  ["nblock", "int", 8],
  ["writes", "int", 26],
  ["registry_version", "int", 27],
];
const RESULT_CROSSINGS_AT = 9;

const RESULT_UNNEST = unnests(RESULT_JOB.map(([n, t]) => [n, t]));

/**
 * REMEMBERED_RESULT for many sessions: per result written, its outputs (a row of nulls when none), each row with k,
 * n (1 when the call was labelled) and the session's write_count, as the one-row statement answers.
 */
export const GROUP_RESULT = `WITH j AS (SELECT * FROM ${RESULT_UNNEST.jobs}),
  b AS (UPDATE sessions SET write_count = sessions.write_count + 1, violation_count = sessions.violation_count + j.nviol,
      blocked_count = sessions.blocked_count + j.nblock
    FROM j WHERE sessions.id = j.session_id AND sessions.team_id = j.team_id AND sessions.write_count = j.writes
      AND coalesce((SELECT v.version FROM team_versions v WHERE v.team_id = j.team_id AND v.kind = 'registry'), 0)
        = j.registry_version
      AND EXISTS (SELECT 1 FROM calls WHERE calls.id = j.call_id AND calls.result_raw IS NULL)
    RETURNING j.k, sessions.write_count),
  u AS (UPDATE calls SET result_raw = j.result_raw, result_ok = j.ok, result_violations = j.violations, result_at = j.at
    FROM b JOIN j ON j.k = b.k WHERE calls.id = j.call_id AND calls.result_raw IS NULL
    RETURNING b.k, calls.id, calls.seq, calls.tool),
  x AS (INSERT INTO crossings (team_id, session_id, call_id, seq, tool, ${CROSSING_INSERT_COLUMNS}, created_at)
    SELECT j.team_id, j.session_id, u.id, u.seq, u.tool, ${X_COLUMNS}, j.at
    FROM ${RESULT_UNNEST.crossings} JOIN u ON u.k = x.ck JOIN j ON j.k = x.ck ORDER BY x.n
    RETURNING id, call_id, seq, tool, param, value, unit, value_si, dimension, datum, quality, direction, outcome)
  SELECT b.k::int AS k, (u.k IS NOT NULL)::int AS n, b.write_count,
    o.id, o.call_id, o.seq, o.tool, o.param, o.value, o.unit, o.value_si, o.dimension, o.datum, o.quality
  FROM b LEFT JOIN u ON u.k = b.k LEFT JOIN (SELECT * FROM x WHERE ${OUTPUT_FILTER}) AS o ON o.call_id = u.id
  ORDER BY b.k, o.id`;

/** The many-row statement's parameters: one array per job column, then the crossings flattened with their job's k. */
function columnsOf(jobs: readonly unknown[][], layout: [string, string, number][], crossingsAt: number): unknown[] {
  const out: unknown[][] = layout.map(([, , at]) => jobs.map((j) => j[at]));
  const crossings: unknown[][] = [[], ...CROSSING_TYPES.map(() => [])];
  jobs.forEach((j, i) => {
    const n = (j[crossingsAt] as unknown[]).length;
    for (let m = 0; m < n; m += 1) {
      crossings[0]!.push(i + 1);
      for (let c = 0; c < CROSSING_TYPES.length; c += 1) crossings[c + 1]!.push((j[crossingsAt + c] as unknown[])[m]);
    }
  });
  return [...out, ...crossings];
}

/** Rows of a many-row answer, per job (k = 1..count), without their `k`. */
function byJob<R extends { k: number }>(rows: readonly R[], count: number): Omit<R, "k">[][] {
  const out: Omit<R, "k">[][] = Array.from({ length: count }, () => []);
  for (const { k, ...rest } of rows) out[k - 1]!.push(rest);
  return out;
}

/** The session's call row (seq, write_count) per call job, or undefined where its condition failed. */
export async function groupCalls(
  q: Q,
  jobs: readonly unknown[][],
): Promise<({ seq: number; write_count: number } | undefined)[]> {
  const rows = await q<{ k: number; seq: number; write_count: number }>(
    GROUP_CALL,
    columnsOf(jobs, CALL_JOB, CALL_CROSSINGS_AT),
  );
  return byJob(rows, jobs.length).map((r) => r[0]);
}

/** The one-row statement's answer per result job (no rows where its condition failed). */
export async function groupResults<R>(q: Q, jobs: readonly unknown[][]): Promise<R[][]> {
  const rows = await q<R & { k: number }>(GROUP_RESULT, columnsOf(jobs, RESULT_JOB, RESULT_CROSSINGS_AT));
  return byJob(rows, jobs.length) as R[][];
}

// Ledger locators resolved on PostgreSQL: the gates ask synchronously, so every locator an evaluation cites is fetched
// up front (the same batches as the SQLite resolver, team-scoped) and the gates read a memory resolver over the result.
import type { Result } from "../../gates/contracts.js";
import { evidenceLocators, memoryResolver } from "../../gates/ledger-evidence.js";
import type { EvidenceResolver, LedgerCrossing, RevisedState } from "../../gates/ports.js";
import { groupByPosition, ScopePlan } from "../common/evidence-plan.js";
import type { Q } from "./tx.js";
import { MAX_CHAIN, seriesOf } from "../common/evidence-plan.js";
import { type RevisionStepRow, revisedStep } from "../common/evidence-plan.js";

/** A crossing row of a batch query: `at` is the 0-based position in the list the query was sent. */
type RawCrossing = {
  at: number;
  id: string | number;
  session_id: string | null;
  seq: number;
  tool: string;
  param: string;
  value: number | null;
  unit: string;
  is_series: boolean;
  raw: string | null;
  quality: string | null;
  observed_at: string | null;
  revised: boolean;
  usable: boolean;
};

// The SQLite resolver's columns and batches (src/store/evidence.ts), over unnest(...) WITH ORDINALITY instead of json_each.
const columns = (session: string, usable: string): string =>
  `c.id, ${session} AS session_id, c.seq, c.tool, c.param, c.value, c.unit, c.is_series,
  CASE WHEN c.is_series THEN c.raw END AS raw, c.quality, c.observed_at,
  EXISTS (SELECT 1 FROM revisions r WHERE r.before_crossing_id = c.id) AS revised, ${usable} AS usable`;
const USABLE =
  "c.direction = 'return' AND c.unit IS NOT NULL AND (c.value IS NOT NULL OR c.is_series) AND c.outcome <> 'refused'";
const SESSIONS = `SELECT (j.k - 1)::int AS at FROM unnest($1::text[]) WITH ORDINALITY AS j(id, k)
  JOIN sessions s ON s.id = j.id WHERE s.team_id = $2`;
const CALLS = `SELECT (j.k - 1)::int AS at FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS j(session_id, seq, k)
  JOIN calls c ON c.session_id = j.session_id AND c.seq = j.seq WHERE c.team_id = $3`;
const OF_SESSIONS = `SELECT (j.k - 1)::int AS at, ${columns("NULL", "true")}
  FROM unnest($1::text[]) WITH ORDINALITY AS j(id, k) JOIN crossings c ON c.session_id = j.id
  WHERE c.team_id = $2 AND ${USABLE}`;
const OF_CALLS = `SELECT (j.k - 1)::int AS at, ${columns("NULL", "true")}
  FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS j(session_id, seq, k)
  JOIN crossings c ON c.session_id = j.session_id AND c.seq = j.seq WHERE c.team_id = $3 AND ${USABLE}`;
const CROSSINGS = `SELECT (j.k - 1)::int AS at, ${columns("c.session_id", `(${USABLE})`)}
  FROM unnest($1::bigint[]) WITH ORDINALITY AS j(id, k) JOIN crossings c ON c.id = j.id WHERE c.team_id = $2`;
const LATEST_REVISION = `SELECT id, after_crossing_id, after_value, after_unit, after_quality, detected_at FROM revisions
  WHERE before_crossing_id = $1 AND team_id = $2 ORDER BY id DESC LIMIT 1`;

/** Follows a crossing's revisions to their end, as the SQLite resolver does. */
async function revisedState(q: Q, teamId: string, crossingId: number): Promise<RevisedState | null> {
  let state: RevisedState | null = null;
  let at: number | null = crossingId;
  for (let i = 0; at !== null && i < MAX_CHAIN; i++) {
    const [r]: RevisionStepRow[] = await q<RevisionStepRow>(LATEST_REVISION, [at, teamId]);
    if (!r) break;
    const next = revisedStep(r);
    state = next;
    at = next.crossing_id;
  }
  return state;
}

function toLedger(r: RawCrossing, sessionId: string, revised: RevisedState | null): LedgerCrossing {
  return {
    id: Number(r.id),
    session_id: sessionId,
    seq: r.seq,
    tool: r.tool,
    field: r.param,
    value: r.value,
    series: r.is_series && r.raw !== null ? seriesOf(r.raw, r.unit) : null,
    unit: r.unit,
    quality: r.quality,
    observed_at: r.observed_at,
    revised,
  };
}

/** A resolver over every locator the runs cite, fetched now in the caller's transaction (at most five queries). */
export async function pgEvidenceResolver(q: Q, teamId: string, runs: readonly Result[]): Promise<EvidenceResolver> {
  const plan = new ScopePlan(evidenceLocators(runs));
  const ask = async <R>(sql: string, lists: readonly unknown[][]): Promise<R[]> =>
    lists[0]!.length === 0 ? [] : q<R>(sql, [...lists, teamId]);
  const known = async (sql: string, lists: readonly unknown[][]) =>
    new Set((await ask<{ at: number }>(sql, lists)).map((r) => r.at));
  const [sessions, calls, whole, parts, crossings] = [
    await known(SESSIONS, [[...plan.sessions]]),
    await known(CALLS, [plan.calls.map((c) => c[0]), plan.calls.map((c) => c[1])]),
    await ask<RawCrossing>(OF_SESSIONS, [[...plan.whole]]),
    await ask<RawCrossing>(OF_CALLS, [plan.parts.map((c) => c[0]), plan.parts.map((c) => c[1])]),
    await ask<RawCrossing>(CROSSINGS, [[...plan.crossings]]),
  ];
  // Only a revised scalar has its chain followed, one indexed look-up per link.
  const revised = new Map<number, RevisedState | null>();
  for (const r of [...whole, ...parts, ...crossings]) {
    if (r.revised && r.value !== null && r.usable && !revised.has(Number(r.id)))
      revised.set(Number(r.id), await revisedState(q, teamId, Number(r.id)));
  }
  const group = (rows: RawCrossing[], sessionOf: (at: number) => string | undefined) =>
    groupByPosition(
      rows,
      (r) => r.at,
      (r) => r.usable,
      (r) => toLedger(r, sessionOf(r.at) ?? r.session_id!, revised.get(Number(r.id)) ?? null),
    );
  const scopes = plan.assemble({
    sessions,
    calls,
    whole: group(whole, (i) => plan.whole[i]),
    parts: group(parts, (i) => plan.parts[i]?.[0]),
    crossings: group(crossings, () => undefined),
  });
  return memoryResolver(scopes);
}

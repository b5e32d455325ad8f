// The EvidenceResolver port over SQLite for one team: the crossings a ledger locator names, with their revised state.
import type { Database, Statement } from "better-sqlite3";
import type {
  EvidenceResolver,
  EvidenceSnapshot,
  LedgerCrossing,
  RevisedState,
  WellFormedLocator,
} from "../../gates/ports.js";
import { groupByPosition, ScopePlan } from "../common/evidence-plan.js";
import { MAX_CHAIN, seriesOf } from "../common/evidence-plan.js";
import { type RevisionStepRow, revisedStep } from "../common/evidence-plan.js";

type Statements = Record<"sessions" | "calls" | "ofSessions" | "ofCalls" | "crossings" | "latestRevision", Statement>;

/** A crossing row as the batch queries answer it (raw mode: an array in the order of `columns`). */
type RawCrossing = [
  at: number,
  id: number,
  session_id: string | null,
  seq: number,
  tool: string,
  param: string,
  value: number | null,
  unit: string,
  is_series: number,
  raw: string | null,
  quality: string | null,
  observed_at: string | null,
  revised: number,
  usable: number,
];

// Only what resolution reads: `raw` only for a series, the session id only where the locator does not give it, and
// `revised` as one probe of revisions_before_idx per row, so only a crossing that was revised has its chain followed.
// Every column read costs about as much as the row look-up itself (bench:gates, ledger case).
/** The columns of a RawCrossing after the list index, with the session id as `session` gives it. */
const columns = (session: string, usable: string): string =>
  `crossings.id, ${session}, seq, tool, param, crossings.value, unit, is_series, CASE WHEN is_series = 1 THEN raw END,
  quality, observed_at, EXISTS (SELECT 1 FROM revisions r WHERE r.before_crossing_id = crossings.id), ${usable}`;
// A return a claim can rest on: numeric (a scalar or a series), with a unit, and not refused by the guard.
/** A usable return crossing. */
export const USABLE =
  "direction = 'return' AND unit IS NOT NULL AND (crossings.value IS NOT NULL OR is_series = 1) AND outcome != 'refused'";

const statements = new WeakMap<Database, Statements>();

// One statement per kind of locator for a whole evaluation: the ids arrive as one JSON array, json_each drives the
// join (CROSS JOIN keeps it the outer loop) and `j.key` says which element a row answers. Rows come in index order;
// each scope is put back in recording order (by id) in memory.
function prepared(sqlite: Database): Statements {
  let s = statements.get(sqlite);
  if (!s) {
    const p = (sql: string) => sqlite.prepare(sql);
    // Named, as the planner would otherwise walk crossings_team_tool_idx (every crossing of the team) for a session.
    const bySession = "CROSS JOIN crossings INDEXED BY crossings_session_seq_idx ON crossings.session_id";
    s = {
      sessions: p(
        "SELECT j.key FROM json_each(?) j CROSS JOIN sessions ON sessions.id = j.value WHERE sessions.team_id = ?",
      ),
      calls: p(`SELECT j.key FROM json_each(?) j CROSS JOIN calls
        ON calls.session_id = j.value ->> 0 AND calls.seq = j.value ->> 1 WHERE calls.team_id = ?`),
      ofSessions: p(`SELECT j.key, ${columns("NULL", "1")} FROM json_each(?) j ${bySession} = j.value
        WHERE crossings.team_id = ? AND ${USABLE}`),
      ofCalls: p(`SELECT j.key, ${columns("NULL", "1")} FROM json_each(?) j ${bySession} = j.value ->> 0
        AND crossings.seq = j.value ->> 1 WHERE crossings.team_id = ? AND ${USABLE}`),
      crossings: p(`SELECT j.key, ${columns("session_id", `(${USABLE})`)} FROM json_each(?) j
        CROSS JOIN crossings ON crossings.id = j.value WHERE crossings.team_id = ?`),
      latestRevision:
        p(`SELECT id, after_crossing_id, after_value, after_unit, after_quality, detected_at FROM revisions
        WHERE before_crossing_id = ? AND team_id = ? ORDER BY id DESC LIMIT 1`),
    };
    for (const k of ["sessions", "calls", "ofSessions", "ofCalls", "crossings"] as const) s[k].raw(true);
    statements.set(sqlite, s);
  }
  return s;
}

/** Follows a crossing's revisions to their end: a detected revision's later reading may itself have been revised. */
function revisedState(s: Statements, teamId: string, crossingId: number): RevisedState | null {
  let state: RevisedState | null = null;
  let at: number | null = crossingId;
  for (let i = 0; at !== null && i < MAX_CHAIN; i++) {
    const r = s.latestRevision.get(at, teamId) as RevisionStepRow | undefined;
    if (!r) break;
    const next = revisedStep(r);
    state = next;
    at = next.crossing_id;
  }
  return state;
}

function toLedger(s: Statements, teamId: string, r: RawCrossing, sessionId: string): LedgerCrossing {
  const [, id, , seq, tool, field, value, unit, isSeries, raw, quality, observed_at, revised] = r;
  return {
    id,
    session_id: sessionId,
    seq,
    tool,
    field,
    value,
    series: isSeries === 1 && raw !== null ? seriesOf(raw, unit) : null,
    unit,
    quality,
    observed_at,
    revised: value === null || revised === 0 ? null : revisedState(s, teamId, id),
  };
}

/** The scopes of many locators at once: at most five queries for an evaluation, whatever it cites. */
function scopesOf(s: Statements, teamId: string, locators: readonly WellFormedLocator[]): EvidenceSnapshot {
  const plan = new ScopePlan(locators);
  const ask = (st: Statement, list: readonly unknown[]): unknown[][] =>
    list.length === 0 ? [] : (st.all(JSON.stringify(list), teamId) as unknown[][]);
  const known = (st: Statement, list: readonly unknown[]) => new Set(ask(st, list).map((r) => r[0] as number));
  // A row of a session or call query takes its session id from the list; a crossing locator's row carries it.
  const group = (rows: unknown[][], sessionOf: (at: number) => string | undefined) =>
    groupByPosition(
      rows as RawCrossing[],
      (r) => r[0],
      (r) => r[13] === 1,
      (r) => toLedger(s, teamId, r, sessionOf(r[0]) ?? r[2]!),
    );
  return plan.assemble({
    sessions: known(s.sessions, plan.sessions),
    calls: known(s.calls, plan.calls),
    whole: group(ask(s.ofSessions, plan.whole), (i) => plan.whole[i]),
    parts: group(ask(s.ofCalls, plan.parts), (i) => plan.parts[i]?.[0]),
    crossings: group(ask(s.crossings, plan.crossings), () => undefined),
  });
}

/** The EvidenceResolver port for one team; another team's id answers exactly as an unknown one (null). */
export function evidenceResolver(sqlite: Database, teamId: string): EvidenceResolver {
  const s = prepared(sqlite);
  return {
    scope: (l: WellFormedLocator) => scopesOf(s, teamId, [l]).get(l.text) ?? null,
    scopes: (ls: readonly WellFormedLocator[]) => scopesOf(s, teamId, ls),
  };
}

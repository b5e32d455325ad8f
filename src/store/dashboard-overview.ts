// The dashboard overview's figures: every one an aggregate query on an index over (team, time), so the page never
// loads rows into JavaScript to count them.
import type { Database, Statement } from "better-sqlite3";
import type { LedgerDb } from "./db.js";

/** A time window [since, until) as ISO UTC strings. */
export type Window = { since: string; until: string };

/** One day of calls: refused (not ok), converted (ok with a value converted) and passed (every other call). */
export type CallsDay = { day: string; converted: number; passed: number; refused: number };

/** Refused values of one violation code on one day. */
export type CodeDay = { day: string; code: string; count: number };

/** Evaluations released and blocked on one day. */
export type EvaluationsDay = { day: string; released: number; blocked: number };

/** Everything the overview shows for a window. */
export type Overview = {
  sessions: number;
  calls: number;
  refusedCalls: number;
  auditedNumbers: number;
  unsourcedNumbers: number;
  evaluations: number;
  blockedEvaluations: number;
  callsPerDay: CallsDay[];
  refusalsByCode: CodeDay[];
  evaluationsPerDay: EvaluationsDay[];
};

type Statements = Record<
  "sessions" | "callsByDay" | "convertedByDay" | "codesByDay" | "audited" | "evaluationsByDay",
  Statement
>;

const DAY = "substr(created_at, 1, 10)";

function prepare(sqlite: Database): Statements {
  const p = (sql: string) => sqlite.prepare(sql);
  return {
    sessions: p("SELECT count(*) AS n FROM sessions WHERE team_id = ? AND created_at >= ? AND created_at < ?"),
    // calls_team_created_idx (team, created_at, ok) covers it.
    callsByDay: p(`SELECT ${DAY} AS day, count(*) AS calls, sum(ok = 0) AS refused FROM calls
                   WHERE team_id = ? AND created_at >= ? AND created_at < ? GROUP BY day ORDER BY day`),
    // crossings_team_converted_idx holds only converted parameter values; the call's own row says whether it was ok.
    convertedByDay: p(`SELECT substr(x.created_at, 1, 10) AS day, count(DISTINCT x.call_id) AS n FROM crossings x
                       JOIN calls c ON c.id = x.call_id AND c.ok = 1
                       WHERE x.team_id = ? AND x.created_at >= ? AND x.created_at < ? AND x.outcome = 'converted' AND x.direction = 'param'
                       GROUP BY day ORDER BY day`),
    codesByDay: p(`SELECT ${DAY} AS day, violation AS code, count(*) AS n FROM crossings
                   WHERE team_id = ? AND created_at >= ? AND created_at < ? AND violation IS NOT NULL AND outcome = 'refused'
                   GROUP BY day, code ORDER BY day, code`),
    audited: p(`SELECT count(*) AS n, coalesce(sum(i.status = 'unsourced'), 0) AS unsourced FROM audits a
                JOIN audit_items i ON i.audit_id = a.id WHERE a.team_id = ? AND a.created_at >= ? AND a.created_at < ?`),
    evaluationsByDay:
      p(`SELECT ${DAY} AS day, sum(status = 'released') AS released, sum(status = 'blocked') AS blocked FROM runs
                         WHERE team_id = ? AND created_at >= ? AND created_at < ? GROUP BY day ORDER BY day`),
  };
}

const statements = new WeakMap<Database, Statements>();

/** The overview of a team's ledger over a window. */
export async function dashboardOverview(store: LedgerDb, teamId: string, w: Window): Promise<Overview> {
  let s = statements.get(store.sqlite);
  if (!s) statements.set(store.sqlite, (s = prepare(store.sqlite)));
  const args = [teamId, w.since, w.until];
  const calls = s.callsByDay.all(...args) as { day: string; calls: number; refused: number }[];
  const converted = new Map(
    (s.convertedByDay.all(...args) as { day: string; n: number }[]).map((r) => [r.day, r.n] as const),
  );
  const callsPerDay = calls.map((r) => {
    const conv = converted.get(r.day) ?? 0;
    return { day: r.day, converted: conv, passed: r.calls - r.refused - conv, refused: r.refused };
  });
  const audited = s.audited.get(...args) as { n: number; unsourced: number };
  const evaluationsPerDay = s.evaluationsByDay.all(...args) as EvaluationsDay[];
  return {
    sessions: (s.sessions.get(...args) as { n: number }).n,
    calls: calls.reduce((a, r) => a + r.calls, 0),
    refusedCalls: calls.reduce((a, r) => a + r.refused, 0),
    auditedNumbers: audited.n,
    unsourcedNumbers: audited.unsourced,
    evaluations: evaluationsPerDay.reduce((a, r) => a + r.released + r.blocked, 0),
    blockedEvaluations: evaluationsPerDay.reduce((a, r) => a + r.blocked, 0),
    callsPerDay,
    refusalsByCode: (s.codesByDay.all(...args) as { day: string; code: string; n: number }[]).map((r) => ({
      day: r.day,
      code: r.code,
      count: r.n,
    })),
    evaluationsPerDay,
  };
}

// The dashboard overview's figures, per UTC day, each from an aggregate query on an index over (team, time), so the
// page never loads rows into JavaScript to count them. Each statement names its index: with a large ledger's
// statistics SQLite took the violation-code indexes for "violation IS NOT NULL" and read every flagged crossing of the
// team for today's figures (140 ms at 10,000,000 crossings). A day that ended more than CLOSED_AFTER_MS ago no longer
// changes (rows are written at the time they happen), so its figures are kept in memory: a window costs one query
// range for today and for the days not seen before.
import type { Database, Statement } from "better-sqlite3";
import type { LedgerDb } from "./db.js";

/** A time window [since, until) as ISO UTC strings on whole days. */
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

/** The figures of one day. */
export type DayFigures = {
  sessions: number;
  calls: number;
  refused: number;
  converted: number;
  audited: number;
  unsourced: number;
  released: number;
  blocked: number;
  codes: Map<string, number>;
};

/** How long after its end a day is taken as final (clock skew between processes, a call in flight at midnight). */
export const CLOSED_AFTER_MS = 10 * 60_000;
const DAY_MS = 86_400_000;
const DAY = "substr(created_at, 1, 10)";

type Statements = Record<"sessions" | "calls" | "converted" | "codes" | "audited" | "evaluations", Statement>;

function prepare(sqlite: Database): Statements {
  const p = (sql: string) => sqlite.prepare(sql);
  const range = "team_id = ? AND created_at >= ? AND created_at < ?";
  return {
    sessions: p(
      `SELECT ${DAY} AS day, count(*) AS n FROM sessions INDEXED BY sessions_team_created_idx WHERE ${range} GROUP BY day`,
    ),
    // calls_team_created_idx (team, created_at, ok) covers it.
    calls: p(`SELECT ${DAY} AS day, count(*) AS n, sum(ok = 0) AS refused FROM calls INDEXED BY calls_team_created_idx
              WHERE ${range} GROUP BY day`),
    // crossings_team_converted_idx holds only converted parameter values; the call's own row says whether it was ok.
    converted:
      p(`SELECT substr(x.created_at, 1, 10) AS day, count(DISTINCT x.call_id) AS n FROM crossings x INDEXED BY crossings_team_converted_idx
                  JOIN calls c ON c.id = x.call_id AND c.ok = 1
                  WHERE x.team_id = ? AND x.created_at >= ? AND x.created_at < ? AND x.outcome = 'converted' AND x.direction = 'param'
                  GROUP BY day`),
    // crossings_team_created_violation_idx (team, created_at, violation, outcome), partial on violations, covers it.
    codes:
      p(`SELECT ${DAY} AS day, violation AS code, count(*) AS n FROM crossings INDEXED BY crossings_team_created_violation_idx
              WHERE ${range} AND violation IS NOT NULL AND outcome = 'refused' GROUP BY day, code`),
    audited:
      p(`SELECT substr(a.created_at, 1, 10) AS day, count(*) AS n, sum(i.status = 'unsourced') AS unsourced FROM audits a INDEXED BY audits_team_created_idx
                JOIN audit_items i ON i.audit_id = a.id WHERE a.team_id = ? AND a.created_at >= ? AND a.created_at < ? GROUP BY day`),
    evaluations:
      p(`SELECT ${DAY} AS day, sum(status = 'released') AS released, sum(status = 'blocked') AS blocked FROM runs INDEXED BY runs_team_created_idx
                    WHERE ${range} GROUP BY day`),
  };
}

const empty = (): DayFigures => ({
  sessions: 0,
  calls: 0,
  refused: 0,
  converted: 0,
  audited: 0,
  unsourced: 0,
  released: 0,
  blocked: 0,
  codes: new Map(),
});

type Row = { day: string; n: number };

/** The rows of the six per-day aggregates over one range, as either engine answers them. */
export type DayRows = {
  sessions: Row[];
  calls: (Row & { refused: number })[];
  converted: Row[];
  codes: (Row & { code: string })[];
  audited: (Row & { unsourced: number })[];
  evaluations: { day: string; released: number; blocked: number }[];
};

/** Reads the six aggregates of a team over [since, until). */
export type ReadDays = (teamId: string, since: string, until: string) => Promise<DayRows>;

/** Every day of [since, until) with its figures, from one query per figure over the whole range. */
async function query(read: ReadDays, teamId: string, since: string, until: string): Promise<Map<string, DayFigures>> {
  const days = new Map<string, DayFigures>();
  for (let t = Date.parse(since); t < Date.parse(until); t += DAY_MS)
    days.set(new Date(t).toISOString().slice(0, 10), empty());
  const at = (day: string) => days.get(day) ?? days.set(day, empty()).get(day)!;
  const rows = await read(teamId, since, until);
  for (const r of rows.sessions) at(r.day).sessions = r.n;
  for (const r of rows.calls) Object.assign(at(r.day), { calls: r.n, refused: r.refused });
  for (const r of rows.converted) at(r.day).converted = r.n;
  for (const r of rows.codes) at(r.day).codes.set(r.code, r.n);
  for (const r of rows.audited) Object.assign(at(r.day), { audited: r.n, unsourced: r.unsourced });
  for (const r of rows.evaluations) Object.assign(at(r.day), { released: r.released, blocked: r.blocked });
  return days;
}

/** Closed days' figures by "team/day": they never change, so one engine's store keeps them for its lifetime. */
export type ClosedDays = Map<string, DayFigures>;

/** The figures of each day of the window: closed days from memory (or one query for those not seen), the rest live. */
async function figures(
  read: ReadDays,
  closed: ClosedDays,
  teamId: string,
  w: Window,
  now: Date,
): Promise<Map<string, DayFigures>> {
  const openFrom = Math.floor((now.getTime() - CLOSED_AFTER_MS) / DAY_MS) * DAY_MS;
  const out = new Map<string, DayFigures>();
  let missing: number | null = null;
  const end = Math.min(Date.parse(w.until), openFrom);
  for (let t = Date.parse(w.since); t < end; t += DAY_MS) {
    const hit = closed.get(`${teamId}/${new Date(t).toISOString().slice(0, 10)}`);
    if (hit === undefined) missing ??= t;
  }
  if (missing !== null) {
    const since = new Date(missing).toISOString();
    for (const [day, f] of await query(read, teamId, since, new Date(end).toISOString()))
      closed.set(`${teamId}/${day}`, f);
  }
  for (let t = Date.parse(w.since); t < end; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.set(day, closed.get(`${teamId}/${day}`) ?? empty());
  }
  const liveFrom = new Date(Math.max(Date.parse(w.since), openFrom)).toISOString();
  if (liveFrom < w.until) for (const [day, f] of await query(read, teamId, liveFrom, w.until)) out.set(day, f);
  return out;
}

type Cache = { read: ReadDays; closed: ClosedDays };
const caches = new WeakMap<Database, Cache>();

function sqliteDays(sqlite: Database): ReadDays {
  const s = prepare(sqlite);
  return async (teamId, since, until) => {
    const args = [teamId, since, until];
    return {
      sessions: s.sessions.all(...args) as DayRows["sessions"],
      calls: s.calls.all(...args) as DayRows["calls"],
      converted: s.converted.all(...args) as DayRows["converted"],
      codes: s.codes.all(...args) as DayRows["codes"],
      audited: s.audited.all(...args) as DayRows["audited"],
      evaluations: s.evaluations.all(...args) as DayRows["evaluations"],
    };
  };
}

/** The overview of a team's ledger over a window of whole UTC days, from any engine's per-day aggregates. */
export async function overviewFrom(
  read: ReadDays,
  closed: ClosedDays,
  teamId: string,
  w: Window,
  now: Date,
): Promise<Overview> {
  const days = [...(await figures(read, closed, teamId, w, now)).entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const sum = (get: (f: DayFigures) => number) => days.reduce((a, [, f]) => a + get(f), 0);
  return {
    sessions: sum((f) => f.sessions),
    calls: sum((f) => f.calls),
    refusedCalls: sum((f) => f.refused),
    auditedNumbers: sum((f) => f.audited),
    unsourcedNumbers: sum((f) => f.unsourced),
    evaluations: sum((f) => f.released + f.blocked),
    blockedEvaluations: sum((f) => f.blocked),
    callsPerDay: days
      .filter(([, f]) => f.calls > 0)
      .map(([day, f]) => ({
        day,
        converted: f.converted,
        passed: f.calls - f.refused - f.converted,
        refused: f.refused,
      })),
    refusalsByCode: days.flatMap(([day, f]) =>
      [...f.codes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([code, count]) => ({ day, code, count })),
    ),
    evaluationsPerDay: days
      .filter(([, f]) => f.released + f.blocked > 0)
      .map(([day, f]) => ({ day, released: f.released, blocked: f.blocked })),
  };
}

/** The overview of a team's ledger over a window of whole UTC days ending at or after `now`. */
export async function dashboardOverview(store: LedgerDb, teamId: string, w: Window, now: Date): Promise<Overview> {
  let cache = caches.get(store.sqlite);
  if (!cache) caches.set(store.sqlite, (cache = { read: sqliteDays(store.sqlite), closed: new Map() }));
  return overviewFrom(cache.read, cache.closed, teamId, w, now);
}

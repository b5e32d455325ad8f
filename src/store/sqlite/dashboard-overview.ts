// The dashboard overview's figures, per UTC day, each from an aggregate query on an index over (team, time), so the
// page never loads rows into JavaScript to count them. Each statement names its index: with a large ledger's
// statistics SQLite took the violation-code indexes for "violation IS NOT NULL" and read every flagged crossing of the
// team for today's figures (140 ms at 10,000,000 crossings). A day that ended more than CLOSED_AFTER_MS ago no longer
// changes (rows are written at the time they happen), so its figures are kept in memory: a window costs one query
// range for today and for the days not seen before.
import type { Database, Statement } from "better-sqlite3";
import type { LedgerDb } from "./db.js";
import type { Overview, Window } from "../dashboard.js";
import type { ClosedDays, DayRows, ReadDays } from "../common/dashboard-overview.js";
import { overviewFrom } from "../common/dashboard-overview.js";

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

/** The overview of a team's ledger over a window of whole UTC days ending at or after `now`. */
export async function dashboardOverview(store: LedgerDb, teamId: string, w: Window, now: Date): Promise<Overview> {
  let cache = caches.get(store.sqlite);
  if (!cache) caches.set(store.sqlite, (cache = { read: sqliteDays(store.sqlite), closed: new Map() }));
  return overviewFrom(cache.read, cache.closed, teamId, w, now);
}

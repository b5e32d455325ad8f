// History queries across sessions: which sessions match a label, a tool, a violation code or a time window, and where
// a physical magnitude has crossed before (the SI column and its index, within a relative tolerance).
import type { Database } from "better-sqlite3";
import { dimensionKey, toSI } from "../../quantity/units.js";
import { type RawSession, toCrossing, toSession } from "../common/session-rows.js";
import type { CrossingFilter, CrossingRow, SessionFilter, SessionRow } from "../model.js";
import { CROSSING_TOLERANCE } from "../common/session-rows.js";

const SESSION_COLUMNS =
  "s.id, s.context, s.enforcement, s.labels, s.call_count, s.violation_count, s.blocked_count, s.created_at";

/** A set filter: the ordered walk that drives the list, and the check of one session when another filter drives. */
type SetFilter = { walk: string; check: string; args: string[] };

/** The label, code and tool filters as set filters, most selective kind first (a label, a violation code, a tool). */
function setFilters(teamId: string, f: SessionFilter): SetFilter[] {
  const out: SetFilter[] = [];
  for (const l of f.labels ?? [])
    out.push({
      walk: "SELECT session_id AS sid FROM session_labels WHERE team_id = ? AND key = ? AND value = ?",
      check: "EXISTS (SELECT 1 FROM session_labels l WHERE l.session_id = s.id AND l.key = ? AND l.value = ?)",
      args: [teamId, l.key, l.value],
    });
  if (f.code !== undefined)
    out.push({
      walk: "SELECT session_id AS sid FROM crossings WHERE team_id = ? AND violation = ?",
      check: "EXISTS (SELECT 1 FROM crossings x WHERE x.session_id = s.id AND x.violation = ?)",
      args: [teamId, f.code],
    });
  if (f.tool !== undefined)
    out.push({
      walk: "SELECT session_id AS sid FROM calls WHERE team_id = ? AND tool = ?",
      check: "EXISTS (SELECT 1 FROM calls c WHERE c.session_id = s.id AND c.tool = ?)",
      args: [teamId, f.tool],
    });
  return out;
}

/**
 * The SQL of a session list and its arguments. With a label, code or tool filter the list is driven by that filter's
 * index walked backwards by session id (…_team_kv_session_idx, …_violation_session_idx, calls_team_tool_session_idx):
 * session ids are ULIDs made from their creation time, so id order is newest-first order, and the walk stops once the
 * page is full however many sessions match. The other filters check each session through its own indexes. The walk
 * can repeat a session (a tool called twice), so `listSessions` reads it as a stream and skips repeats. Exported so a
 * test can pin every plan.
 */
export function sessionListSql(
  teamId: string,
  f: SessionFilter,
): { sql: string; args: (string | number)[]; driven: boolean } {
  const sets = setFilters(teamId, f);
  const where = ["s.team_id = ?"];
  const args: (string | number)[] = [teamId];
  const [driver, ...checks] = sets;
  for (const c of checks) {
    where.push(c.check);
    args.push(...c.args.slice(1));
  }
  if (f.since !== undefined) {
    where.push("s.created_at >= ?");
    args.push(f.since);
  }
  if (f.until !== undefined) {
    where.push("s.created_at < ?");
    args.push(f.until);
  }
  if (!driver) {
    if (f.cursor) {
      where.push("(s.created_at < ? OR (s.created_at = ? AND s.id < ?))");
      args.push(f.cursor[0], f.cursor[0], f.cursor[1]);
    }
    const sql = `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE ${where.join(" AND ")} ORDER BY s.created_at DESC, s.id DESC LIMIT ?`;
    return { sql, args: [...args, f.limit + 1], driven: false };
  }
  const walkArgs: (string | number)[] = [...driver.args];
  let walk = driver.walk;
  if (f.cursor) {
    walk += " AND session_id < ?";
    walkArgs.push(f.cursor[1]);
  }
  const sql = `SELECT ${SESSION_COLUMNS} FROM (${walk} ORDER BY session_id DESC) d CROSS JOIN sessions s ON s.id = d.sid
               WHERE ${where.join(" AND ")} ORDER BY d.sid DESC`;
  return { sql, args: [...walkArgs, ...args], driven: true };
}

/**
 * The team's sessions matching every filter, newest first, `limit + 1` rows (the extra one says a page follows).
 */
export function listSessions(sqlite: Database, teamId: string, f: SessionFilter): SessionRow[] {
  const { sql, args, driven } = sessionListSql(teamId, f);
  let rows: RawSession[];
  if (!driven) rows = sqlite.prepare(sql).all(...args) as RawSession[];
  else {
    rows = [];
    let last = "";
    for (const r of sqlite.prepare(sql).iterate(...args) as IterableIterator<RawSession>) {
      if (r.id === last) continue;
      last = r.id;
      rows.push(r);
      if (rows.length > f.limit) break; // leaving the loop ends the statement: the walk reads no further
    }
  }
  return rows.map(toSession);
}

/**
 * Every crossing of the team with the same dimension and an SI magnitude within the tolerance, newest first,
 * `limit + 1` rows. The range scan runs on crossings_team_dim_si_idx (team, dimension, value_si).
 */
export function findCrossings(sqlite: Database, teamId: string, f: CrossingFilter): CrossingRow[] {
  const si = toSI(f.value, f.unit);
  const dimension = dimensionKey(f.unit);
  const half = Math.abs(si) * (f.tolerance ?? CROSSING_TOLERANCE);
  const where = ["team_id = ?", "dimension = ?", "value_si BETWEEN ? AND ?"];
  const args: (string | number)[] = [teamId, dimension, si - half, si + half];
  if (f.tool !== undefined) {
    where.push("tool = ?");
    args.push(f.tool);
  }
  if (f.since !== undefined) {
    where.push("created_at >= ?");
    args.push(f.since);
  }
  if (f.cursor !== undefined && f.cursor !== null) {
    where.push("id < ?");
    args.push(f.cursor);
  }
  const sql = `SELECT * FROM crossings INDEXED BY crossings_team_dim_si_idx WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`;
  return (sqlite.prepare(sql).all(...args, f.limit + 1) as Parameters<typeof toCrossing>[0][]).map(toCrossing);
}

/** The team a session belongs to, or null: for the command line, which holds the database file itself. */
export function sessionTeam(sqlite: Database, sessionId: string): string | null {
  const r = sqlite.prepare("SELECT team_id FROM sessions WHERE id = ?").get(sessionId) as
    | { team_id: string }
    | undefined;
  return r?.team_id ?? null;
}

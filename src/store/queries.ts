// History queries across sessions: which sessions match a label, a tool, a violation code or a time window, and where
// a physical magnitude has crossed before (the SI column and its index, within a relative tolerance).
import type { Database } from "better-sqlite3";
import { dimensionKey, toSI } from "../quantity/units.js";
import { type CrossingRow, type SessionRow, toCrossing } from "./sessions.js";

/** A malformed filter (a date, a label, a cursor): the API answers 400 naming the field. */
export class QueryError extends Error {
  readonly code = "invalid_request";
  readonly details: { path: string; message: string }[];
  constructor(path: string, message: string) {
    super(message);
    this.name = "QueryError";
    this.details = [{ path, message }];
  }
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An instant as the service stores times (ISO 8601 UTC with milliseconds), from a date (midnight UTC) or a date-time
 * with an offset. A date-time without an offset is refused: it names no instant.
 */
export function parseInstant(text: string, field: string): string {
  const t = text.trim();
  const ms = DATE_ONLY.test(t) ? Date.parse(`${t}T00:00:00Z`) : WITH_OFFSET.test(t) ? Date.parse(t) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new QueryError(
      field,
      `${field} must be a date such as 2026-11-30 or a date-time with an offset such as 2026-11-30T04:00:00Z, received '${text}'`,
    );
  }
  return new Date(ms).toISOString();
}

/** A `key:value` label filter. */
export type LabelFilter = { key: string; value: string };

/** Reads `k:v` (the value may itself hold colons). */
export function parseLabel(text: string, field = "label"): LabelFilter {
  const i = text.indexOf(":");
  if (i <= 0) throw new QueryError(field, `${field} must be key:value, such as run:nightly, received '${text}'`);
  return { key: text.slice(0, i), value: text.slice(i + 1) };
}

/** Filters of the session list; times are ISO UTC strings from parseInstant. `until` is exclusive. */
export type SessionFilter = {
  labels?: readonly LabelFilter[];
  tool?: string;
  code?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: readonly [string, string] | null;
};

type RawSession = {
  id: string;
  context: string;
  enforcement: "enforce" | "warn";
  labels: string;
  call_count: number;
  violation_count: number;
  blocked_count: number;
  created_at: string;
};

/** One filter of the session list, in the two forms the planner below chooses between. */
type SessionProbe = {
  /** How many rows the filter's index holds for it, counted up to a cap: its selectivity. */
  size: [string, (string | number)[]];
  /** The ids of every session it matches, to drive the query when it is selective. */
  driver: [string, (string | number)[]];
  /** A correlated check on one session `s`, when the list is scanned newest first instead. */
  exists: [string, (string | number)[]];
};

function sessionProbes(teamId: string, f: SessionFilter): SessionProbe[] {
  const labels = (f.labels ?? []).map(
    (l): SessionProbe => ({
      size: [
        "SELECT count(*) AS n FROM (SELECT 1 FROM session_labels WHERE team_id = ? AND key = ? AND value = ? LIMIT ?)",
        [teamId, l.key, l.value],
      ],
      driver: [
        "SELECT session_id FROM session_labels WHERE team_id = ? AND key = ? AND value = ?",
        [teamId, l.key, l.value],
      ],
      exists: [
        "EXISTS (SELECT 1 FROM session_labels l WHERE l.session_id = s.id AND l.key = ? AND l.value = ?)",
        [l.key, l.value],
      ],
    }),
  );
  const tool: SessionProbe[] =
    f.tool === undefined
      ? []
      : [
          {
            size: [
              "SELECT count(*) AS n FROM (SELECT 1 FROM calls WHERE team_id = ? AND tool = ? LIMIT ?)",
              [teamId, f.tool],
            ],
            driver: ["SELECT DISTINCT session_id FROM calls WHERE team_id = ? AND tool = ?", [teamId, f.tool]],
            exists: ["EXISTS (SELECT 1 FROM calls c WHERE c.session_id = s.id AND c.tool = ?)", [f.tool]],
          },
        ];
  const code: SessionProbe[] =
    f.code === undefined
      ? []
      : [
          {
            size: [
              "SELECT count(*) AS n FROM (SELECT 1 FROM crossings WHERE team_id = ? AND violation = ? LIMIT ?)",
              [teamId, f.code],
            ],
            driver: ["SELECT DISTINCT session_id FROM crossings WHERE team_id = ? AND violation = ?", [teamId, f.code]],
            exists: ["EXISTS (SELECT 1 FROM crossings x WHERE x.session_id = s.id AND x.violation = ?)", [f.code]],
          },
        ];
  return [...labels, ...tool, ...code];
}

/** A filter matching at most this many rows drives the query; above it, the list is scanned newest first. */
const DRIVER_CAP = 5_000;

/**
 * The team's sessions matching every filter, newest first, `limit + 1` rows (the extra one says a page follows).
 * The most selective filter (counted on its index up to DRIVER_CAP rows: session_labels (team, key, value), calls
 * (team, tool), crossings (team, violation)) drives the query and the others are checked per session; when every
 * filter matches many sessions, sessions are scanned newest first on (team, created_at) and the first matches win.
 */
export function listSessions(sqlite: Database, teamId: string, f: SessionFilter): SessionRow[] {
  const where = ["s.team_id = ?"];
  const args: (string | number)[] = [teamId];
  if (f.since !== undefined) {
    where.push("s.created_at >= ?");
    args.push(f.since);
  }
  if (f.until !== undefined) {
    where.push("s.created_at < ?");
    args.push(f.until);
  }
  if (f.cursor) {
    where.push("s.created_at <= ? AND (s.created_at < ? OR s.id < ?)");
    args.push(f.cursor[0], f.cursor[0], f.cursor[1]);
  }
  const probes = sessionProbes(teamId, f).map((p) => ({
    ...p,
    n: (sqlite.prepare(p.size[0]).get(...p.size[1], DRIVER_CAP + 1) as { n: number }).n,
  }));
  const driver = probes.reduce<(typeof probes)[number] | null>(
    (best, p) => (best === null || p.n < best.n ? p : best),
    null,
  );
  const drive = driver !== null && driver.n <= DRIVER_CAP;
  const checks = probes.filter((p) => !(drive && p === driver));
  for (const p of checks) {
    where.push(p.exists[0]);
    args.push(...p.exists[1]);
  }
  const columns =
    "s.id, s.context, s.enforcement, s.labels, s.call_count, s.violation_count, s.blocked_count, s.created_at";
  // CROSS JOIN keeps the join order: the selective filter's ids first, then each session by its primary key.
  const from = drive
    ? `(${driver.driver[0]}) d CROSS JOIN sessions s ON s.id = d.session_id`
    : "sessions s INDEXED BY sessions_team_created_idx";
  const sql = `SELECT ${columns} FROM ${from} WHERE ${where.join(" AND ")} ORDER BY s.created_at DESC, s.id DESC LIMIT ?`;
  const rows = sqlite.prepare(sql).all(...(drive ? driver.driver[1] : []), ...args, f.limit + 1) as RawSession[];
  return rows.map((r) => ({
    id: r.id,
    context: r.context,
    enforcement: r.enforcement,
    labels: JSON.parse(r.labels) as Record<string, string>,
    callCount: r.call_count,
    violationCount: r.violation_count,
    blockedCount: r.blocked_count,
    createdAt: r.created_at,
  }));
}

/** A magnitude search: `value` in `unit`, matched in SI within a relative tolerance. */
export type CrossingFilter = {
  value: number;
  unit: string;
  tolerance?: number;
  tool?: string;
  since?: string;
  limit: number;
  cursor?: number | null;
};

/** Default relative tolerance of a magnitude search (API.md). */
export const CROSSING_TOLERANCE = 1e-9;

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

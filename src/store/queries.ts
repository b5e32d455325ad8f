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

/**
 * The team's sessions matching every filter, newest first, `limit + 1` rows (the extra one says a page follows).
 * Each filter is an indexed IN-list: session_labels (team, key, value), calls (team, tool), crossings (team, violation).
 */
export function listSessions(sqlite: Database, teamId: string, f: SessionFilter): SessionRow[] {
  const where = ["team_id = ?"];
  const args: (string | number)[] = [teamId];
  for (const l of f.labels ?? []) {
    where.push("id IN (SELECT session_id FROM session_labels WHERE team_id = ? AND key = ? AND value = ?)");
    args.push(teamId, l.key, l.value);
  }
  if (f.tool !== undefined) {
    where.push("id IN (SELECT session_id FROM calls WHERE team_id = ? AND tool = ?)");
    args.push(teamId, f.tool);
  }
  if (f.code !== undefined) {
    where.push("id IN (SELECT session_id FROM crossings WHERE team_id = ? AND violation = ?)");
    args.push(teamId, f.code);
  }
  if (f.since !== undefined) {
    where.push("created_at >= ?");
    args.push(f.since);
  }
  if (f.until !== undefined) {
    where.push("created_at < ?");
    args.push(f.until);
  }
  if (f.cursor) {
    where.push("(created_at < ? OR (created_at = ? AND id < ?))");
    args.push(f.cursor[0], f.cursor[0], f.cursor[1]);
  }
  const sql = `SELECT id, context, enforcement, labels, call_count, violation_count, blocked_count, created_at FROM sessions
               WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?`;
  const rows = sqlite.prepare(sql).all(...args, f.limit + 1) as RawSession[];
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

// Row shapes as PostgreSQL answers them (booleans are booleans, JSON is text) mapped to the store's row types.
import { observedUtc } from "../revisions.js";
import type { CrossingDraft, Violation } from "../../guard/verdict.js";
import type { PriorOutput } from "../../guard/history.js";
import type { CallRow, CrossingRow, SessionRow } from "../sessions.js";

/** JSON text, or null for SQL NULL. */
export const parseJson = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

export type RawSession = {
  id: string;
  context: string;
  enforcement: "enforce" | "warn";
  labels: string;
  call_count: number;
  violation_count: number;
  blocked_count: number;
  created_at: string;
};

/** The columns of a session row. */
export const SESSION_COLUMNS =
  "id, context, enforcement, labels, call_count, violation_count, blocked_count, created_at";

/** A session row in its store form. */
export const toSession = (r: RawSession): SessionRow => ({
  id: r.id,
  context: r.context,
  enforcement: r.enforcement,
  labels: JSON.parse(r.labels) as Record<string, string>,
  callCount: r.call_count,
  violationCount: r.violation_count,
  blockedCount: r.blocked_count,
  createdAt: r.created_at,
});

export type RawCall = {
  id: string;
  session_id: string;
  seq: number;
  tool: string;
  tool_version: number | null;
  guarded: boolean;
  args_raw: string;
  ok: boolean;
  violations: string;
  result_raw: string | null;
  result_ok: boolean | null;
  result_violations: string | null;
  created_at: string;
  result_at: string | null;
};

/** The columns of a call row. */
export const CALL_COLUMNS =
  "id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, result_raw, result_ok, result_violations, created_at, result_at";

/** A call row in its store form. */
export const toCall = (r: RawCall): CallRow => ({
  id: r.id,
  sessionId: r.session_id,
  seq: r.seq,
  tool: r.tool,
  toolVersion: r.tool_version,
  guarded: r.guarded,
  argsRaw: JSON.parse(r.args_raw),
  ok: r.ok,
  violations: JSON.parse(r.violations) as Violation[],
  resultRaw: parseJson(r.result_raw),
  resultOk: r.result_ok,
  resultViolations: r.result_violations === null ? null : (JSON.parse(r.result_violations) as Violation[]),
  createdAt: r.created_at,
  resultAt: r.result_at,
});

export type RawCrossing = {
  id: number;
  session_id: string;
  call_id: string;
  seq: number;
  tool: string;
  direction: "param" | "return";
  param: string;
  raw: string;
  value: number | null;
  unit: string | null;
  value_si: number | null;
  dimension: string | null;
  is_series: boolean;
  datum: string | null;
  crs: string | null;
  tz: string | null;
  quality: string | null;
  source: string | null;
  observed_at: string | null;
  outcome: CrossingDraft["outcome"];
  violation: string | null;
  created_at: string;
};

/** A crossing row in its answer form. */
export const toCrossing = (r: RawCrossing): CrossingRow => ({
  id: r.id,
  sessionId: r.session_id,
  callId: r.call_id,
  seq: r.seq,
  tool: r.tool,
  direction: r.direction,
  param: r.param,
  raw: r.raw,
  value: r.value,
  unit: r.unit,
  valueSi: r.value_si,
  dimension: r.dimension,
  isSeries: r.is_series,
  datum: r.datum,
  crs: r.crs,
  tz: r.tz,
  quality: r.quality,
  source: r.source,
  observedAt: r.observed_at,
  outcome: r.outcome,
  violation: r.violation as CrossingDraft["violation"],
  createdAt: r.created_at,
});

export type RawOutput = {
  id: number;
  call_id: string;
  seq: number;
  tool: string;
  param: string;
  value: number;
  unit: string;
  value_si: number;
  dimension: string;
  datum: string | null;
  quality: string | null;
};

/** A stored output in the History port's form. */
export const toOutput = (r: RawOutput): PriorOutput => ({
  callId: r.call_id,
  seq: r.seq,
  tool: r.tool,
  field: r.param,
  value: r.value,
  unit: r.unit,
  valueSi: r.value_si,
  dimension: r.dimension,
  datum: r.datum,
  quality: r.quality,
});

/** The crossing drafts of one call as column arrays, for one INSERT ... SELECT FROM unnest(...). */
export function crossingArrays(drafts: readonly CrossingDraft[]): unknown[] {
  const col = <K extends keyof CrossingDraft>(k: K) => drafts.map((d) => d[k]);
  return [
    col("direction"),
    col("param"),
    col("raw"),
    col("value"),
    col("unit"),
    col("valueSi"),
    col("dimension"),
    col("isSeries"),
    col("datum"),
    col("crs"),
    col("tz"),
    col("quality"),
    col("source"),
    col("observedAt"),
    drafts.map((d) => observedUtc(d.observedAt)),
    col("outcome"),
    col("violation"),
  ];
}

/** The columns a crossing insert names, after team_id, session_id, call_id, seq, tool. */
export const CROSSING_INSERT_COLUMNS =
  "direction, param, raw, value, unit, value_si, dimension, is_series, datum, crs, tz, quality, source, observed_at, " +
  "observed_utc, outcome, violation";

/**
 * The unnest over crossingArrays bound from parameter `$first` on, with ORDINALITY so ids follow the drafts' order.
 * Its columns: direction, param, raw, value, unit, value_si, dimension, is_series, datum, crs, tz, quality, source,
 * observed_at, observed_utc, outcome, violation, n.
 */
export function crossingUnnest(first: number): string {
  const types = ["text", "text", "text", "float8", "text", "float8", "text", "bool"];
  types.push("text", "text", "text", "text", "text", "text", "text", "text", "text");
  const args = types.map((t, i) => `$${first + i}::${t}[]`).join(", ");
  const names = `${CROSSING_INSERT_COLUMNS}, n`;
  return `unnest(${args}) WITH ORDINALITY AS x(${names})`;
}

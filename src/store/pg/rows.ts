// Row shapes as PostgreSQL answers them (booleans are booleans, JSON is text) mapped to the store's row types.
import type { CrossingDraft } from "../../guard/verdict.js";
import type { RawCall as AnyCall, RawCrossing as AnyCrossing, RawOutput as AnyOutput } from "../common/session-rows.js";

export { type RawSession, toCall, toCrossing, toOutput, toSession } from "../common/session-rows.js";
import { observedUtc } from "../common/revision-rules.js";
/** A call row as PostgreSQL answers it. */
export type RawCall = AnyCall<boolean>;
/** A crossing row as PostgreSQL answers it. */
export type RawCrossing = AnyCrossing<boolean>;

/** JSON text, or null for SQL NULL. */
export const parseJson = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** The columns of a session row. */
export const SESSION_COLUMNS =
  "id, context, enforcement, labels, call_count, violation_count, blocked_count, created_at";

/** The columns of a call row. */
export const CALL_COLUMNS =
  "id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, result_raw, result_ok, result_violations, created_at, result_at, tool_digest";

/** An output row as PostgreSQL answers it, with its id (the outputs cache reads on from the last one). */
export type RawOutput = AnyOutput & { id: number };

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

/** The PostgreSQL types of crossingArrays' columns, in order. */
export const CROSSING_TYPES: readonly string[] = [
  ...["text", "text", "text", "float8", "text", "float8", "text", "bool"],
  ...["text", "text", "text", "text", "text", "text", "text", "text", "text"],
];

/**
 * The unnest over crossingArrays bound from parameter `$first` on, with ORDINALITY so ids follow the drafts' order.
 * Its columns: direction, param, raw, value, unit, value_si, dimension, is_series, datum, crs, tz, quality, source,
 * observed_at, observed_utc, outcome, violation, n.
 */
export function crossingUnnest(first: number): string {
  const args = CROSSING_TYPES.map((t, i) => `$${first + i}::${t}[]`).join(", ");
  const names = `${CROSSING_INSERT_COLUMNS}, n`;
  return `unnest(${args}) WITH ORDINALITY AS x(${names})`;
}

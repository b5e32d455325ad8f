// Session, call and crossing rows as both engines answer them (SQLite's 0/1 flags, PostgreSQL's booleans; JSON as
// text), mapped to the store's row types.
import type { PriorOutput } from "../../guard/history.js";
import type { CrossingDraft, Violation } from "../../guard/verdict.js";
import { newId } from "./ids.js";
import type { CallRow, CrossingRow, SessionRow } from "../model.js";
import { type EnforcementReport, enforcementReport } from "../../guard/report.js";

/** A stored flag: SQLite answers 0 or 1, PostgreSQL a boolean. */
const flag = (v: number | boolean): boolean => v === true || v === 1;

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

/** What a new session is opened with. */
export type NewSession = { context?: string; enforcement?: "enforce" | "warn"; labels?: Record<string, string> };

/**
 * A new session's columns in both engines' insert order (id, team, context, enforcement, labels as JSON, created_at),
 * with the defaults applied, and its labels.
 */
export function newSessionColumns(teamId: string, input: NewSession, now: Date) {
  const labels = input.labels ?? {};
  const columns = [
    newId(now.getTime()),
    teamId,
    input.context ?? "",
    input.enforcement ?? "enforce",
    JSON.stringify(labels),
    now.toISOString(),
  ] as const;
  return { columns, labels: Object.entries(labels) };
}

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

export type RawCall<F = number | boolean> = {
  id: string;
  session_id: string;
  seq: number;
  tool: string;
  tool_version: number | null;
  guarded: F;
  args_raw: string;
  ok: F;
  violations: string;
  result_raw: string | null;
  result_ok: F | null;
  result_violations: string | null;
  created_at: string;
  result_at: string | null;
  tool_digest?: string | null;
};

/** A call row in its store form. */
export const toCall = (r: RawCall): CallRow => ({
  id: r.id,
  sessionId: r.session_id,
  seq: r.seq,
  tool: r.tool,
  toolVersion: r.tool_version,
  guarded: flag(r.guarded),
  argsRaw: JSON.parse(r.args_raw),
  ok: flag(r.ok),
  violations: JSON.parse(r.violations) as Violation[],
  resultRaw: r.result_raw === null ? null : JSON.parse(r.result_raw),
  resultOk: r.result_ok === null ? null : flag(r.result_ok),
  resultViolations: r.result_violations === null ? null : (JSON.parse(r.result_violations) as Violation[]),
  createdAt: r.created_at,
  resultAt: r.result_at,
  toolDigest: r.tool_digest ?? null,
});

export type RawCrossing<F = number | boolean> = {
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
  is_series: F;
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

/** A stored crossing in its answer form. */
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
  isSeries: flag(r.is_series),
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

/** A stored output row as both engines answer it (the History port's source rows). */
export type RawOutput = {
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

/** Default relative tolerance of a magnitude search (API.md). */
export const CROSSING_TOLERANCE = 1e-9;

/** A session's enforcement report from its row and calls: every call's and result's violations, in call order. */
export function sessionReport(session: SessionRow, calls: readonly CallRow[]): EnforcementReport {
  const violations = calls.flatMap((c) =>
    [...c.violations, ...(c.resultViolations ?? [])].map((v) => ({
      callId: c.id,
      tool: c.tool,
      param: v.param,
      code: v.code,
      message: v.message,
    })),
  );
  return enforcementReport(session.callCount, violations, session.enforcement);
}

// The dashboard's shared steps: the overview's day figures from any engine's per-day rows, the audited answers and
// the sessions and evaluations pages from rows both engines select alike.
import type { Decision } from "../../gates/decision.js";
import type { StoredAudit } from "../../provenance/manifest.js";
import type { AuditedAnswer, CodeCount, EvaluationRow, Keyset, SessionListRow } from "../dashboard.js";
import type { SessionRow } from "../model.js";

/** Where one audited number of one audit traces to, as the audit_links rows hold it. */
export type AuditLink = { audit_id: string; position: number; seq: number | null; crossing_id: number | null };

/** A session's stored audits with each number's call and crossing (the session page, on either engine). */
export function auditedAnswers(stored: readonly StoredAudit[], linkRows: readonly AuditLink[]): AuditedAnswer[] {
  const links = new Map(linkRows.map((l) => [`${l.audit_id}/${l.position}`, l]));
  return stored.map((a) => ({
    id: a.id,
    answer: a.answer,
    ok: a.ok,
    createdAt: a.createdAt,
    numbers: a.items.map((i) => {
      const link = links.get(`${a.id}/${i.position}`);
      return {
        text: i.text,
        value: i.value,
        unit: i.unit,
        status: i.status,
        source: i.source,
        explanation: i.explanation,
        callSeq: link?.seq ?? null,
        crossingId: link?.crossing_id ?? null,
      };
    }),
  }));
}

/** How many of a key's most recent released values the claim page plots. */
export const KEY_VALUES = 300;

/** An evaluations-page row as both engines select it. */
export type RawEvaluationRow = {
  id: string;
  task: string | null;
  status: "released" | "blocked";
  overall_score: number;
  report: string;
  created_at: string;
};

/** A page of evaluation rows (selected one past `limit`), each with its gates' statuses, and the next page's key. */
export function evaluationsPage(
  rows: readonly RawEvaluationRow[],
  limit: number,
): Keyset<EvaluationRow, readonly [string, string]> {
  const items = rows.slice(0, limit).map((r) => {
    const d = JSON.parse(r.report) as Decision;
    return {
      id: r.id,
      task: r.task,
      status: r.status,
      overallScore: r.overall_score,
      blockedBy: d.blocked_by,
      gates: Object.fromEntries(Object.entries(d.gates).map(([g, o]) => [g, o.status])),
      createdAt: r.created_at,
    };
  });
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? [last.createdAt, last.id] : null };
}

/** How long a dashboard login lasts (absolute, not sliding): one working day. */
export const DASHBOARD_SESSION_HOURS = 12;

/** One session's violation code count, as both engines select them for a page of sessions. */
export type SessionCodeRow = { session_id: string; code: string; n: number };

/** A page of sessions (selected one past `limit`) with each session's violation codes, and the next page's key. */
export function sessionsPage(
  rows: readonly SessionRow[],
  limit: number,
  found: readonly SessionCodeRow[],
): Keyset<SessionListRow, readonly [string, string]> {
  const codes = new Map<string, CodeCount[]>();
  for (const r of found)
    codes.get(r.session_id)?.push({ code: r.code, count: r.n }) ??
      codes.set(r.session_id, [{ code: r.code, count: r.n }]);
  const items = rows.slice(0, limit).map((r) => ({ ...r, codes: codes.get(r.id) ?? [] }));
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? [last.createdAt, last.id] : null };
}

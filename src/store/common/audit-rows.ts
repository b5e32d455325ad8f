// A session's stored audits as both engines read them: the audits and their numbers' rows into StoredAudit values.
import type { StoredAudit } from "../../provenance/manifest.js";

/** An audit row: SQLite answers `ok` as 0 or 1, PostgreSQL as a boolean. */
export type RawAudit = { id: string; answer: string; context: string; ok: number | boolean; created_at: string };

/** One audited number's row (audit_items), as both engines select it. */
export type RawAuditItem = {
  audit_id: string;
  position: number;
  text: string;
  value: number;
  unit: string | null;
  status: string;
  source: string | null;
  source_call_id: string | null;
  explanation: string;
};

/** A session's audits (in the order given) with their numbers (rows ordered by audit and position). */
export function storedAudits(audits: readonly RawAudit[], itemRows: readonly RawAuditItem[]): StoredAudit[] {
  const items = new Map<string, StoredAudit["items"]>();
  for (const r of itemRows) {
    const list = items.get(r.audit_id) ?? [];
    list.push({
      position: r.position,
      text: r.text,
      value: r.value,
      unit: r.unit,
      status: r.status,
      source: r.source,
      sourceCallId: r.source_call_id,
      explanation: r.explanation,
    });
    items.set(r.audit_id, list);
  }
  return audits.map((a) => ({
    id: a.id,
    answer: a.answer,
    context: a.context,
    ok: a.ok === true || a.ok === 1,
    createdAt: a.created_at,
    items: items.get(a.id) ?? [],
  }));
}

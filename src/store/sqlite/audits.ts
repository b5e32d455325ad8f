// Answer audits and their numbers: one audit row and one item per numeric literal, written in one transaction.
import type { Database, Statement } from "better-sqlite3";
import type { StoredAudit } from "../../provenance/manifest.js";
import { newId } from "../common/ids.js";
import { type RawAudit, type RawAuditItem, storedAudits } from "../common/audit-rows.js";
import { sqliteChain } from "./chain.js";

/** One audited number as the store takes it (the audit core's number fits). */
export type AuditItemInput = {
  text: string;
  value: number;
  unit?: string | null;
  status: string;
  source?: string | null;
  callId?: string | null;
  explanation: string;
};

/** Repository of answer audits. Every method is scoped to a team. */
export class AuditStore {
  private readonly s: Record<"insertAudit" | "insertItem" | "listAudits" | "listItems", Statement>;

  constructor(private readonly sqlite: Database) {
    const p = (sql: string) => sqlite.prepare(sql);
    this.s = {
      insertAudit: p(
        "INSERT INTO audits (id, team_id, session_id, answer, context, ok, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      insertItem:
        p(`INSERT INTO audit_items (audit_id, team_id, position, text, value, unit, status, source_call_id, source, explanation)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      listAudits: p(
        "SELECT id, answer, context, ok, created_at FROM audits WHERE session_id = ? AND team_id = ? ORDER BY created_at, id",
      ),
      listItems:
        p(`SELECT i.audit_id, i.position, i.text, i.value, i.unit, i.status, i.source, i.source_call_id, i.explanation
                    FROM audit_items i JOIN audits a ON a.id = i.audit_id WHERE a.session_id = ? AND a.team_id = ? ORDER BY i.audit_id, i.position`),
    };
  }

  /** Stores an audit of a session's answer with every number, all or nothing; answers its id and time. */
  insert(
    teamId: string,
    sessionId: string,
    audit: { answer: string; context: string; ok: boolean; numbers: readonly AuditItemInput[] },
    now: Date,
  ): { id: string; createdAt: string } {
    const id = newId(now.getTime());
    const createdAt = now.toISOString();
    this.sqlite
      .transaction(() => {
        this.s.insertAudit.run(id, teamId, sessionId, audit.answer, audit.context, audit.ok ? 1 : 0, createdAt);
        const items = audit.numbers.map((n, position) => {
          return this.s.insertItem.run(
            id,
            teamId,
            position,
            n.text,
            n.value,
            n.unit ?? null,
            n.status,
            n.callId ?? null,
            n.source ?? null,
            n.explanation,
          ).lastInsertRowid;
        });
        sqliteChain(this.sqlite).appendRows(teamId, [["audits", id], ...items.map((i) => ["audit_items", i] as const)]);
      })
      .immediate();
    return { id, createdAt };
  }

  /** A session's audits, oldest first, each with its numbers in text order. */
  forSession(teamId: string, sessionId: string): StoredAudit[] {
    const items = this.s.listItems.all(sessionId, teamId) as RawAuditItem[];
    return storedAudits(this.s.listAudits.all(sessionId, teamId) as RawAudit[], items);
  }
}

const stores = new WeakMap<Database, AuditStore>();

/** The one AuditStore of a database handle (its statements are prepared once). */
export function auditsFor(sqlite: Database): AuditStore {
  let s = stores.get(sqlite);
  if (!s) {
    s = new AuditStore(sqlite);
    stores.set(sqlite, s);
  }
  return s;
}

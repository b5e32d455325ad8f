// The dashboard's reads, one async function per page, on the same repositories and queries as the JSON API, so
// moving them behind the store port is mechanical. Every function is scoped to a team; another team's id is null.
import type { Database, Statement } from "better-sqlite3";
import { auditsFor } from "./audits.js";
import { ClaimStore } from "./claims.js";
import type { LedgerDb } from "./db.js";
import { NotFoundError } from "../common/errors.js";
import { listSessions } from "./queries.js";
import { RunStore } from "./runs.js";
import { type CrossingsPageFilter, crossingsPageQuery } from "../common/crossings-page.js";
import { toCrossing } from "../common/session-rows.js";
import { SessionStore } from "./sessions.js";

export { dashboardOverview } from "./dashboard-overview.js";
import type { ClaimRow, CrossingRow, SessionFilter, StoredEvaluation } from "../model.js";
import type { ClaimDetail, CodeCount, EvaluationRow, Keyset, SessionDetail, SessionListRow } from "../dashboard.js";
import type { AuditLink, RawEvaluationRow } from "../common/dashboard.js";
import { KEY_VALUES, auditedAnswers, evaluationsPage } from "../common/dashboard.js";
import { type SessionCodeRow, sessionsPage } from "../common/dashboard.js";

type Statements = Record<"auditLinks" | "codeCounts" | "runs" | "keyValues" | "sessionCodes", Statement>;

function prepare(sqlite: Database): Statements {
  const p = (sql: string) => sqlite.prepare(sql);
  return {
    // An audited number's source is "tool.field" of the call it traces to: that call's return crossing of that field.
    auditLinks:
      p(`SELECT i.audit_id, i.position, c.seq, (SELECT min(x.id) FROM crossings x WHERE x.call_id = i.source_call_id
                     AND x.direction = 'return' AND x.tool || '.' || x.param = i.source) AS crossing_id
                   FROM audit_items i JOIN audits a ON a.id = i.audit_id LEFT JOIN calls c ON c.id = i.source_call_id
                   WHERE a.session_id = ? AND a.team_id = ?`),
    // violation_counts is kept by triggers on crossings: one row per code, however long the history.
    codeCounts: p(
      "SELECT code, crossings AS count FROM violation_counts WHERE team_id = ? AND crossings > 0 ORDER BY count DESC, code",
    ),
    runs: p(`SELECT id, task, status, overall_score, report, created_at FROM runs WHERE team_id = @team
             AND (@task IS NULL OR task = @task) AND (@status IS NULL OR status = @status)
             AND (@before_at IS NULL OR (created_at, id) < (@before_at, @before_id)) ORDER BY created_at DESC, id DESC LIMIT @limit`),
    // The most recent released values only: a strip plot of more dots than this is a blot, not a picture.
    keyValues:
      p(`SELECT run_id, task, value, text, created_at FROM run_claims WHERE team_id = ? AND key = ? AND released = 1
                  ORDER BY created_at DESC, id DESC LIMIT ${KEY_VALUES}`),
    // Codes of a page of sessions, from only those sessions' flagged rows. Named: with a large ledger's statistics the
    // planner walked crossings_team_violation_session_idx, every flagged crossing of the team.
    sessionCodes:
      p(`SELECT session_id, violation AS code, count(*) AS n FROM crossings INDEXED BY crossings_session_violation_idx
                     WHERE session_id IN (SELECT value FROM json_each(?)) AND team_id = ? AND violation IS NOT NULL
                     GROUP BY session_id, violation ORDER BY session_id, n DESC, violation`),
  };
}

const statements = new WeakMap<Database, Statements>();
const prepared = (store: LedgerDb): Statements => {
  let s = statements.get(store.sqlite);
  if (!s) statements.set(store.sqlite, (s = prepare(store.sqlite)));
  return s;
};
const sessionStores = new WeakMap<Database, SessionStore>();
const claimStores = new WeakMap<Database, ClaimStore>();
const runStores = new WeakMap<Database, RunStore>();
const pageStatements = new WeakMap<Database, Map<string, Statement>>();
function cached<T>(map: WeakMap<Database, T>, sqlite: Database, make: (s: Database) => T): T {
  let v = map.get(sqlite);
  if (!v) map.set(sqlite, (v = make(sqlite)));
  return v;
}

/** null instead of a NotFoundError, so a page answers its own 404. */
function orNull<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/** A page of the team's sessions, newest first (the query of GET /v1/sessions). */
export async function dashboardSessions(
  store: LedgerDb,
  teamId: string,
  filter: SessionFilter,
): Promise<Keyset<SessionListRow, readonly [string, string]>> {
  const rows = listSessions(store.sqlite, teamId, filter);
  const ids = rows.slice(0, filter.limit).map((r) => r.id);
  const found =
    ids.length > 0 ? (prepared(store).sessionCodes.all(JSON.stringify(ids), teamId) as SessionCodeRow[]) : [];
  return sessionsPage(rows, filter.limit, found);
}

/** A session with its calls, each call's crossings, and its audited answers; null for an unknown or foreign id. */
export async function dashboardSession(store: LedgerDb, teamId: string, id: string): Promise<SessionDetail | null> {
  const sessions = cached(sessionStores, store.sqlite, (s) => new SessionStore(s));
  const session = orNull(() => sessions.get(teamId, id));
  if (!session) return null;
  const byCall = new Map<string, CrossingRow[]>();
  for (const x of sessions.crossings(teamId, id)) byCall.get(x.callId)?.push(x) ?? byCall.set(x.callId, [x]);
  const audits = auditedAnswers(
    auditsFor(store.sqlite).forSession(teamId, id),
    prepared(store).auditLinks.all(id, teamId) as AuditLink[],
  );
  return {
    session,
    calls: sessions.calls(teamId, id).map((c) => ({ ...c, crossings: byCall.get(c.id) ?? [] })),
    audits,
  };
}

/** Every violation code of the team's crossings with its count, most frequent first. */
export async function dashboardCodeCounts(store: LedgerDb, teamId: string): Promise<CodeCount[]> {
  return prepared(store).codeCounts.all(teamId) as CodeCount[];
}

/** A page of the team's crossings, newest first, by violation code and tool; `before` is the last id seen. */
export async function dashboardCrossings(
  store: LedgerDb,
  teamId: string,
  f: CrossingsPageFilter,
): Promise<Keyset<CrossingRow, number>> {
  const q = crossingsPageQuery("sqlite", teamId, f);
  const mine = cached(pageStatements, store.sqlite, () => new Map<string, Statement>());
  let st = mine.get(q.sql);
  if (!st) mine.set(q.sql, (st = store.sqlite.prepare(q.sql)));
  const rows = st.all(...q.args) as Parameters<typeof toCrossing>[0][];
  const items = rows.slice(0, f.limit).map(toCrossing);
  const last = items[items.length - 1];
  return { items, next: rows.length > f.limit && last ? last.id : null };
}

/** A page of evaluations, newest first, each with its gates' statuses. */
export async function dashboardEvaluations(
  store: LedgerDb,
  teamId: string,
  f: { task?: string; status?: "released" | "blocked"; limit: number; before?: readonly [string, string] | null },
): Promise<Keyset<EvaluationRow, readonly [string, string]>> {
  const rows = prepared(store).runs.all({
    team: teamId,
    task: f.task ?? null,
    status: f.status ?? null,
    before_at: f.before?.[0] ?? null,
    before_id: f.before?.[1] ?? null,
    limit: f.limit + 1,
  }) as RawEvaluationRow[];
  return evaluationsPage(rows, f.limit);
}

/** One stored evaluation, or null for an unknown or foreign id. */
export async function dashboardEvaluation(
  store: LedgerDb,
  teamId: string,
  id: string,
): Promise<StoredEvaluation | null> {
  return orNull(() => cached(runStores, store.sqlite, (s) => new RunStore(s)).get(teamId, id));
}

/** A page of the claim ledger, oldest first, by status and a search text (the query of GET /v1/claims). */
export async function dashboardClaims(
  store: LedgerDb,
  teamId: string,
  f: { status?: ClaimRow["status"]; q?: string; limit: number; after?: readonly [string, string] | null },
): Promise<Keyset<ClaimRow, readonly [string, string]>> {
  const page = cached(claimStores, store.sqlite, (s) => new ClaimStore(s)).list(teamId, f);
  return { items: page.items, next: page.next_cursor };
}

/** A claim with its events, its supersedes chain and its key's values across released runs; null when unknown. */
export async function dashboardClaim(store: LedgerDb, teamId: string, id: string): Promise<ClaimDetail | null> {
  const claims = cached(claimStores, store.sqlite, (s) => new ClaimStore(s));
  const claim = claims.find(teamId, id);
  if (!claim) return null;
  const values =
    claim.key === null
      ? []
      : (
          prepared(store).keyValues.all(teamId, claim.key) as {
            run_id: string;
            task: string;
            value: string | null;
            text: string;
            created_at: string;
          }[]
        )
          .reverse()
          .map((r) => ({
            runId: r.run_id,
            task: r.task,
            value: r.value === null ? null : (JSON.parse(r.value) as unknown),
            text: r.text,
            createdAt: r.created_at,
          }));
  return {
    claim,
    events: claims.events(teamId, id),
    supersedes: claim.supersedes.flatMap((s) => claims.find(teamId, s) ?? []),
    supersededBy: claim.superseded_by === null ? null : claims.find(teamId, claim.superseded_by),
    values,
  };
}

// The dashboard's reads and login sessions on PostgreSQL: the same rows, order and keyset cursors as the SQLite
// implementation (src/store/dashboard*.ts), from the PgStore's own repositories where the JSON API reads the same
// thing, and from the same aggregate queries (booleans and counts in PostgreSQL's spelling) where only the pages do.
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { crossingsPageQuery } from "../common/crossings-page.js";
import { NotFoundError } from "../common/errors.js";
import type { LedgerStore } from "../port.js";
import { candidateDigests, type TokenKey } from "../common/token-key.js";
import { type RawCrossing, toCrossing } from "./rows.js";
import { inTransaction, type Q, queryOn } from "./tx.js";
import type { CrossingRow } from "../model.js";
import type { CodeCount, DashboardRepo } from "../dashboard.js";
import type { ClosedDays, DayRows, ReadDays } from "../common/dashboard-overview.js";
import { overviewFrom } from "../common/dashboard-overview.js";
import { DASHBOARD_SESSION_HOURS, KEY_VALUES, auditedAnswers, evaluationsPage } from "../common/dashboard.js";
import type { AuditLink, RawEvaluationRow } from "../common/dashboard.js";
import { hashToken, sameDigest } from "../common/tokens.js";
import { type SessionCodeRow, sessionsPage } from "../common/dashboard.js";

const RANGE = "team_id = $1 AND created_at >= $2 AND created_at < $3";
const DAY = "substr(created_at, 1, 10)";

/** The overview's six aggregates, as the SQLite statements in dashboard-overview.ts compute them. */
const DAY_SQL: Record<keyof DayRows, string> = {
  sessions: `SELECT ${DAY} AS day, count(*)::int AS n FROM sessions WHERE ${RANGE} GROUP BY day`,
  calls: `SELECT ${DAY} AS day, count(*)::int AS n, count(*) FILTER (WHERE NOT ok)::int AS refused FROM calls
    WHERE ${RANGE} GROUP BY day`,
  converted: `SELECT substr(x.created_at, 1, 10) AS day, count(DISTINCT x.call_id)::int AS n FROM crossings x
    JOIN calls c ON c.id = x.call_id AND c.ok
    WHERE x.team_id = $1 AND x.created_at >= $2 AND x.created_at < $3 AND x.outcome = 'converted' AND x.direction = 'param'
    GROUP BY day`,
  codes: `SELECT ${DAY} AS day, violation AS code, count(*)::int AS n FROM crossings
    WHERE ${RANGE} AND violation IS NOT NULL AND outcome = 'refused' GROUP BY day, code`,
  audited: `SELECT substr(a.created_at, 1, 10) AS day, count(*)::int AS n,
    count(*) FILTER (WHERE i.status = 'unsourced')::int AS unsourced FROM audits a
    JOIN audit_items i ON i.audit_id = a.id WHERE a.team_id = $1 AND a.created_at >= $2 AND a.created_at < $3 GROUP BY day`,
  evaluations: `SELECT ${DAY} AS day, count(*) FILTER (WHERE status = 'released')::int AS released,
    count(*) FILTER (WHERE status = 'blocked')::int AS blocked FROM runs WHERE ${RANGE} GROUP BY day`,
};

const SESSION_CODES = `SELECT session_id, violation AS code, count(*)::int AS n FROM crossings
  WHERE session_id = ANY($1::text[]) AND team_id = $2 AND violation IS NOT NULL
  GROUP BY session_id, violation ORDER BY session_id, n DESC, violation`;

// An audited number's source is "tool.field" of the call it traces to: that call's return crossing of that field.
const AUDIT_LINKS = `SELECT i.audit_id, i.position, c.seq, (SELECT min(x.id) FROM crossings x WHERE x.call_id = i.source_call_id
    AND x.direction = 'return' AND x.tool || '.' || x.param = i.source) AS crossing_id
  FROM audit_items i JOIN audits a ON a.id = i.audit_id LEFT JOIN calls c ON c.id = i.source_call_id
  WHERE a.session_id = $1 AND a.team_id = $2`;

// violation_counts is kept by triggers on crossings: one row per code, however long the history.
const CODE_COUNTS = `SELECT code, crossings::int AS count FROM violation_counts WHERE team_id = $1 AND crossings > 0
  ORDER BY count DESC, code`;

const RUNS = `SELECT id, task, status, overall_score, report, created_at FROM runs WHERE team_id = $1
  AND ($2::text IS NULL OR task = $2) AND ($3::text IS NULL OR status = $3)
  AND ($4::text IS NULL OR (created_at, id) < ($4, $5::text)) ORDER BY created_at DESC, id DESC LIMIT $6`;

// The most recent released values only, as on SQLite (KEY_VALUES of them).
const KEY_VALUE_ROWS = `SELECT run_id, task, value, text, created_at FROM run_claims WHERE team_id = $1 AND key = $2 AND released
  ORDER BY created_at DESC, id DESC LIMIT ${KEY_VALUES}`;

const FIND_LOGIN = `SELECT d.team_id, m.name AS team_name, d.token_id, d.expires_at FROM dashboard_sessions d
  JOIN tokens t ON t.id = d.token_id JOIN teams m ON m.id = d.team_id
  WHERE d.id = $1 AND d.expires_at > $2 AND t.revoked_at IS NULL`;

/** null instead of a NotFoundError, so a page answers its own 404. */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (e) {
    if (e instanceof NotFoundError) return null;
    throw e;
  }
}

/**
 * A team token checked against the database itself (never the request path's short-lived cache). A row still under
 * the bare SHA-256 is re-stored keyed, as the API's authentication does.
 */
async function tokenOwner(q: Q, key: TokenKey, token: string): Promise<{ teamId: string; tokenId: string } | null> {
  if (token.length === 0 || token.length > 512) return null;
  const { keyed, bare } = candidateDigests(key, token);
  const [row] = await q<{ id: string; team_id: string; hash: string }>(
    "SELECT id, team_id, hash FROM tokens WHERE hash IN ($1, $2) AND revoked_at IS NULL",
    [keyed, bare],
  );
  if (!row) return null;
  const isKeyed = sameDigest(row.hash, keyed);
  if (!isKeyed && !sameDigest(row.hash, bare)) return null;
  if (!isKeyed) await q("UPDATE tokens SET hash = $1 WHERE id = $2 AND hash = $3", [keyed, row.id, bare]);
  return { teamId: row.team_id, tokenId: row.id };
}

/** The dashboard repository of a PgStore: its pool for the page-only queries, its repositories for the rest. */
export function pgDashboard(
  pool: pg.Pool,
  store: Omit<LedgerStore, "dashboard">,
  tokenKey: () => TokenKey,
): DashboardRepo {
  const q = queryOn(pool);
  const readDays: ReadDays = async (teamId, since, until) => {
    const args = [teamId, since, until];
    const [sessions, calls, converted, codes, audited, evaluations] = await Promise.all([
      q<DayRows["sessions"][number]>(DAY_SQL.sessions, args),
      q<DayRows["calls"][number]>(DAY_SQL.calls, args),
      q<DayRows["converted"][number]>(DAY_SQL.converted, args),
      q<DayRows["codes"][number]>(DAY_SQL.codes, args),
      q<DayRows["audited"][number]>(DAY_SQL.audited, args),
      q<DayRows["evaluations"][number]>(DAY_SQL.evaluations, args),
    ]);
    return { sessions, calls, converted, codes, audited, evaluations };
  };
  const closed: ClosedDays = new Map();
  return {
    openSession: async (token, now) => {
      const owner = await tokenOwner(q, tokenKey(), token);
      if (!owner) return null;
      const cookie = randomBytes(32).toString("base64url");
      const expiresAt = new Date(now.getTime() + DASHBOARD_SESSION_HOURS * 3_600_000).toISOString();
      await inTransaction(pool, async (tq) => {
        await tq("DELETE FROM dashboard_sessions WHERE expires_at <= $1", [now.toISOString()]);
        await tq(
          "INSERT INTO dashboard_sessions (id, team_id, token_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
          [hashToken(cookie), owner.teamId, owner.tokenId, now.toISOString(), expiresAt],
        );
      });
      return { cookie, teamId: owner.teamId, expiresAt };
    },
    findSession: async (cookie, now) => {
      if (cookie.length === 0 || cookie.length > 256) return null;
      const [row] = await q<{ team_id: string; team_name: string; token_id: string; expires_at: string }>(FIND_LOGIN, [
        hashToken(cookie),
        now.toISOString(),
      ]);
      return row
        ? { teamId: row.team_id, teamName: row.team_name, tokenId: row.token_id, expiresAt: row.expires_at }
        : null;
    },
    endSession: async (cookie) => {
      await q("DELETE FROM dashboard_sessions WHERE id = $1", [hashToken(cookie)]);
    },
    overview: (teamId, window, now) => overviewFrom(readDays, closed, teamId, window, now),
    sessions: async (teamId, filter) => {
      const rows = await store.sessions.list(teamId, filter);
      const ids = rows.slice(0, filter.limit).map((r) => r.id);
      const found = ids.length > 0 ? await q<SessionCodeRow>(SESSION_CODES, [ids, teamId]) : [];
      return sessionsPage(rows, filter.limit, found);
    },
    session: async (teamId, id) => {
      const session = await orNull(store.sessions.get(teamId, id));
      if (!session) return null;
      const [crossings, calls, stored, linkRows] = await Promise.all([
        store.crossings.ofSession(teamId, id),
        store.calls.list(teamId, id),
        store.audits.list(teamId, id),
        q<AuditLink>(AUDIT_LINKS, [id, teamId]),
      ]);
      const byCall = new Map<string, CrossingRow[]>();
      for (const x of crossings) byCall.get(x.callId)?.push(x) ?? byCall.set(x.callId, [x]);
      const audits = auditedAnswers(stored, linkRows);
      return { session, calls: calls.map((c) => ({ ...c, crossings: byCall.get(c.id) ?? [] })), audits };
    },
    codeCounts: (teamId) => q<CodeCount>(CODE_COUNTS, [teamId]),
    crossings: async (teamId, f) => {
      const page = crossingsPageQuery("pg", teamId, f);
      const rows = await q<RawCrossing>(page.sql, page.args);
      const items = rows.slice(0, f.limit).map(toCrossing);
      const last = items[items.length - 1];
      return { items, next: rows.length > f.limit && last ? last.id : null };
    },
    evaluations: async (teamId, f) => {
      const rows = await q<RawEvaluationRow>(RUNS, [
        teamId,
        f.task ?? null,
        f.status ?? null,
        f.before?.[0] ?? null,
        f.before?.[1] ?? null,
        f.limit + 1,
      ]);
      return evaluationsPage(rows, f.limit);
    },
    evaluation: (teamId, id) => orNull(store.evaluations.get(teamId, id)),
    claims: async (teamId, f) => {
      const page = await store.claims.list(teamId, f);
      return { items: page.items, next: page.next_cursor };
    },
    claim: async (teamId, id) => {
      const claim = await store.claims.find(teamId, id);
      if (!claim) return null;
      const rows =
        claim.key === null
          ? []
          : await q<{ run_id: string; task: string; value: string | null; text: string; created_at: string }>(
              KEY_VALUE_ROWS,
              [teamId, claim.key],
            );
      const values = rows.reverse().map((r) => ({
        runId: r.run_id,
        task: r.task,
        value: r.value === null ? null : (JSON.parse(r.value) as unknown),
        text: r.text,
        createdAt: r.created_at,
      }));
      const supersedes = (await Promise.all(claim.supersedes.map((s) => store.claims.find(teamId, s)))).flatMap(
        (c) => c ?? [],
      );
      return {
        claim,
        events: await store.claims.events(teamId, id),
        supersedes,
        supersededBy: claim.superseded_by === null ? null : await store.claims.find(teamId, claim.superseded_by),
        values,
      };
    },
    revisions: async (teamId, filter) => {
      if (!store.revisions) return { items: [], next: null };
      const page = await store.revisions.list(teamId, filter);
      return { items: page.items, next: page.next_cursor };
    },
  };
}

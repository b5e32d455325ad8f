// The dashboard's reads and its login sessions as one async repository: the pages see only this interface, so it
// joins the LedgerStore port as one more field. sqliteDashboard is the SQLite implementation.
import {
  type DashboardPrincipal,
  endDashboardSession,
  findDashboardSession,
  type OpenedDashboardSession,
  openDashboardSession,
} from "./dashboard-sessions.js";
import {
  type ClaimDetail,
  type CodeCount,
  dashboardClaim,
  dashboardClaims,
  dashboardCodeCounts,
  dashboardCrossings,
  dashboardEvaluation,
  dashboardEvaluations,
  dashboardOverview,
  dashboardSession,
  dashboardSessions,
  type EvaluationRow,
  type Keyset,
  type Overview,
  type SessionDetail,
  type SessionListRow,
  type Window,
} from "./dashboard.js";
import type { LedgerDb } from "./db.js";
import { RevisionStore } from "./revisions.js";
import type { ClaimRow, CrossingRow, Revision, SessionFilter, StoredEvaluation } from "../model.js";

/** Everything the dashboard asks of storage. Every read is scoped to a team; another team's id answers null. */
export interface DashboardRepo {
  /** Exchanges a team token for a login session, or null (nothing written) for an unknown or revoked token. */
  openSession(token: string, now: Date): Promise<OpenedDashboardSession | null>;
  /** The live login a cookie value names, or null (unknown, expired, logged out, token revoked). */
  findSession(cookie: string, now: Date): Promise<DashboardPrincipal | null>;
  /** Ends the login a cookie value names. */
  endSession(cookie: string): Promise<void>;
  /** The overview figures of a window of whole UTC days. */
  overview(teamId: string, window: Window, now: Date): Promise<Overview>;
  /** A page of sessions, newest first (the session list of GET /v1/sessions). */
  sessions(teamId: string, filter: SessionFilter): Promise<Keyset<SessionListRow, readonly [string, string]>>;
  /** A session with its calls, crossings and audited answers. */
  session(teamId: string, id: string): Promise<SessionDetail | null>;
  /** Violation codes of the team's crossings with their counts. */
  codeCounts(teamId: string): Promise<CodeCount[]>;
  /** A page of crossings, newest first, by code and tool. */
  crossings(
    teamId: string,
    filter: { code?: string; tool?: string; limit: number; before?: number | null },
  ): Promise<Keyset<CrossingRow, number>>;
  /** A page of evaluations with their gates' statuses, newest first. */
  evaluations(
    teamId: string,
    filter: {
      task?: string;
      status?: "released" | "blocked";
      limit: number;
      before?: readonly [string, string] | null;
    },
  ): Promise<Keyset<EvaluationRow, readonly [string, string]>>;
  /** One stored evaluation. */
  evaluation(teamId: string, id: string): Promise<StoredEvaluation | null>;
  /** A page of the claim ledger, oldest first. */
  claims(
    teamId: string,
    filter: { status?: ClaimRow["status"]; q?: string; limit: number; after?: readonly [string, string] | null },
  ): Promise<Keyset<ClaimRow, readonly [string, string]>>;
  /** A claim with its events, supersedes chain and its key's released values. */
  claim(teamId: string, id: string): Promise<ClaimDetail | null>;
  /** A page of revisions of the team's readings, newest first, by source and detection time (ISO, inclusive). */
  revisions(
    teamId: string,
    filter: { source?: string; since?: string; limit: number; before?: readonly [string, string] | null },
  ): Promise<Keyset<Revision, readonly [string, string]>>;
}

/** The dashboard repository over an open SQLite database. */
export function sqliteDashboard(db: LedgerDb): DashboardRepo {
  const revisions = new RevisionStore(db.sqlite);
  return {
    openSession: (token, now) => openDashboardSession(db, token, now),
    findSession: (cookie, now) => findDashboardSession(db, cookie, now),
    endSession: (cookie) => endDashboardSession(db, cookie),
    overview: (teamId, window, now) => dashboardOverview(db, teamId, window, now),
    sessions: (teamId, filter) => dashboardSessions(db, teamId, filter),
    session: (teamId, id) => dashboardSession(db, teamId, id),
    codeCounts: (teamId) => dashboardCodeCounts(db, teamId),
    crossings: (teamId, filter) => dashboardCrossings(db, teamId, filter),
    evaluations: (teamId, filter) => dashboardEvaluations(db, teamId, filter),
    evaluation: (teamId, id) => dashboardEvaluation(db, teamId, id),
    claims: (teamId, filter) => dashboardClaims(db, teamId, filter),
    claim: (teamId, id) => dashboardClaim(db, teamId, id),
    revisions: async (teamId, filter) => {
      const page = revisions.list(teamId, filter);
      return { items: page.items, next: page.next_cursor };
    },
  };
}

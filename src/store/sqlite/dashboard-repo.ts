// The dashboard's reads and its login sessions as one async repository: the pages see only this interface, so it
// joins the LedgerStore port as one more field. sqliteDashboard is the SQLite implementation.
import { endDashboardSession, findDashboardSession, openDashboardSession } from "./dashboard-sessions.js";
import {
  dashboardClaim,
  dashboardClaims,
  dashboardCodeCounts,
  dashboardCrossings,
  dashboardEvaluation,
  dashboardEvaluations,
  dashboardOverview,
  dashboardSession,
  dashboardSessions,
} from "./dashboard.js";
import type { LedgerDb } from "./db.js";
import { RevisionStore } from "./revisions.js";
import type { DashboardRepo } from "../dashboard.js";

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

// Dashboard logins: a team token exchanged for a server-side session. Only the SHA-256 of the cookie value is stored;
// a session ends at its expiry, at logout, or as soon as the token it was opened with is revoked.
import { randomBytes } from "node:crypto";
import type { LedgerDb } from "./db.js";
import { authenticate } from "./teams.js";
import { hashToken } from "../common/tokens.js";
import type { DashboardPrincipal, OpenedDashboardSession } from "../dashboard.js";
import { DASHBOARD_SESSION_HOURS } from "../common/dashboard.js";

/**
 * Exchanges a team token for a dashboard session, or answers null (and writes nothing) when the token is unknown
 * or revoked. Expired sessions are swept on the way.
 */
export async function openDashboardSession(
  store: LedgerDb,
  token: string,
  now: Date,
  hours = DASHBOARD_SESSION_HOURS,
): Promise<OpenedDashboardSession | null> {
  const principal = authenticate(store.db, token);
  if (!principal) return null;
  const cookie = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + hours * 3_600_000).toISOString();
  store.sqlite
    .transaction(() => {
      store.sqlite.prepare("DELETE FROM dashboard_sessions WHERE expires_at <= ?").run(now.toISOString());
      store.sqlite
        .prepare(
          "INSERT INTO dashboard_sessions (id, team_id, token_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
        )
        .run(hashToken(cookie), principal.teamId, principal.tokenId, now.toISOString(), expiresAt);
    })
    .immediate();
  return { cookie, teamId: principal.teamId, expiresAt };
}

/** The live session a cookie value names, or null when it is unknown, expired, logged out or its token revoked. */
export async function findDashboardSession(
  store: LedgerDb,
  cookie: string,
  now: Date,
): Promise<DashboardPrincipal | null> {
  if (cookie.length === 0 || cookie.length > 256) return null;
  const row = store.sqlite
    .prepare(
      `SELECT d.team_id, m.name AS team_name, d.token_id, d.expires_at FROM dashboard_sessions d
       JOIN tokens t ON t.id = d.token_id JOIN teams m ON m.id = d.team_id
       WHERE d.id = ? AND d.expires_at > ? AND t.revoked_at IS NULL`,
    )
    .get(hashToken(cookie), now.toISOString()) as
    | { team_id: string; team_name: string; token_id: string; expires_at: string }
    | undefined;
  return row
    ? { teamId: row.team_id, teamName: row.team_name, tokenId: row.token_id, expiresAt: row.expires_at }
    : null;
}

/** Ends the session a cookie value names (logout); ending an unknown one is harmless. */
export async function endDashboardSession(store: LedgerDb, cookie: string): Promise<void> {
  store.sqlite.prepare("DELETE FROM dashboard_sessions WHERE id = ?").run(hashToken(cookie));
}

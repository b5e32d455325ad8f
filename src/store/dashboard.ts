// The dashboard's port: the DashboardRepo every engine implements and the rows and pages it answers.
import type { CallRow } from "./model.js";
import type { ClaimEvent } from "./model.js";
import type { ClaimRow } from "./model.js";
import type { CrossingRow } from "./model.js";
import type { GateStatus } from "../gates/outcome-kit.js";
import type { Revision } from "./model.js";
import type { SessionFilter } from "./model.js";
import type { SessionRow } from "./model.js";
import type { StoredEvaluation } from "./model.js";

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

/** A page of rows and the key of the next page's first row, or null on the last page. */
export type Keyset<T, K> = { items: T[]; next: K | null };

/** A row of the sessions page: the session and the violation codes its crossings carry. */
export type SessionListRow = SessionRow & { codes: CodeCount[] };

/** One audited number with the crossing it traces to (null when it traces to none). */
export type AuditedNumber = {
  text: string;
  value: number;
  unit: string | null;
  status: string;
  source: string | null;
  explanation: string;
  callSeq: number | null;
  crossingId: number | null;
};

/** A stored answer audit with its numbers in text order. */
export type AuditedAnswer = { id: string; answer: string; ok: boolean; createdAt: string; numbers: AuditedNumber[] };

/** Everything the session page shows. */
export type SessionDetail = {
  session: SessionRow;
  calls: (CallRow & { crossings: CrossingRow[] })[];
  audits: AuditedAnswer[];
};

/** How many crossings carry each violation code. */
export type CodeCount = { code: string; count: number };

/** One row of the evaluations page: the run and each gate's status. */
export type EvaluationRow = {
  id: string;
  task: string | null;
  status: "released" | "blocked";
  overallScore: number;
  blockedBy: string[];
  gates: Record<string, GateStatus>;
  createdAt: string;
};

/** A key's value in one released run. */
export type KeyValue = { runId: string; task: string; value: unknown; text: string; createdAt: string };

/** Everything the claim page shows. */
export type ClaimDetail = {
  claim: ClaimRow;
  events: ClaimEvent[];
  /** The claims this one replaces, and those it was replaced by, as stored rows. */
  supersedes: ClaimRow[];
  supersededBy: ClaimRow | null;
  values: KeyValue[];
};

/** A time window [since, until) as ISO UTC strings on whole days. */
export type Window = { since: string; until: string };

/** One day of calls: refused (not ok), converted (ok with a value converted) and passed (every other call). */
export type CallsDay = { day: string; converted: number; passed: number; refused: number };

/** Refused values of one violation code on one day. */
export type CodeDay = { day: string; code: string; count: number };

/** Evaluations released and blocked on one day. */
export type EvaluationsDay = { day: string; released: number; blocked: number };

/** Everything the overview shows for a window. */
export type Overview = {
  sessions: number;
  calls: number;
  refusedCalls: number;
  auditedNumbers: number;
  unsourcedNumbers: number;
  evaluations: number;
  blockedEvaluations: number;
  callsPerDay: CallsDay[];
  refusalsByCode: CodeDay[];
  evaluationsPerDay: EvaluationsDay[];
};

/** A session just opened: `cookie` is the only time the clear value exists. */
export type OpenedDashboardSession = { cookie: string; teamId: string; expiresAt: string };

/** Who a live dashboard session speaks for. */
export type DashboardPrincipal = { teamId: string; teamName: string; tokenId: string; expiresAt: string };

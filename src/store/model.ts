// The store's model: the rows and answers the port (port.ts) speaks in, the same on every engine.
import type { Decision } from "../gates/decision.js";
import type { Settings } from "../gates/settings.js";
import type { ToolDeclarationInput } from "../guard/declaration.js";
import type { CallOutcome, CrossingDraft, Violation } from "../guard/verdict.js";
import type { LedgerLine, LineWarning, SkippedLine } from "./common/claims-jsonl.js";

/** A graded run as stored and answered (API.md, "Evaluation harness": the `runs` items). */
export type BenchRun = {
  session_id: string;
  batch: string;
  suite: string;
  task: string;
  condition: string;
  model: string;
  replicate: number;
  recorded_id: string | null;
  outcome: "correct" | "wrong" | "blocked" | "error";
  stated: string | null;
  detail: string;
  violations: number;
  audit_unsourced: number;
  audit_mislabelled: number;
  audit_flagged: boolean;
  undetected: boolean;
  silent_error: boolean;
  tool_calls: number;
  turns: number;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  derived: Record<string, unknown>;
  answer: string | null;
  error: string | null;
  created_at: string;
};

/** A claim's status after its latest event. */
export type ClaimStatus = LedgerLine["status"];

/** A claim as the API answers it: the ledger line plus its times. */
export type ClaimRow = LedgerLine & { created_at: string; updated_at: string };

/** What happened to a claim. */
export type EventKind = "created" | "demoted" | "superseded" | "restored";

/** One event in a claim's history. */
export type ClaimEvent = {
  kind: EventKind;
  status: ClaimStatus;
  reason: string | null;
  demoted_by: string | null;
  watch: string | null;
  superseded_by: string | null;
  created_at: string;
};

/** A new claim (POST /v1/claims). */
export type NewClaim = {
  id?: string;
  text: string;
  key?: string | null;
  value?: unknown;
  status: "live" | "demoted";
  reason?: string | null;
  demoted_by?: string | null;
  watch?: string | null;
  supersedes?: string[];
};

/** A demotion: why, by whom, and the pattern that catches the claim repeated. Omitting `watch` keeps the current one. */
export type Demotion = { reason: string; demoted_by: string; watch?: string | null };

/** The answer to an import (API.md, `POST /v1/claims/import`), with what changed and what to look at. */
export type ImportReport = {
  imported: number;
  updated: number;
  unchanged: number;
  skipped: SkippedLine[];
  warnings: LineWarning[];
};

/** A list page. */
export type ClaimPage = { items: ClaimRow[]; next_cursor: readonly [string, string] | null };

/** A datum a team registered. */
export type DatumRow = { id: string; name: string; kind: string; description: string; createdAt: string };

/** An offset between two datums: value on `to` = value on `from` + offsetM (metres). */
export type OffsetInput = {
  from: string;
  to: string;
  offsetM: number;
  /** The offset as the caller stated it, kept for display and replay. */
  offsetValue: number;
  offsetUnit: string;
  source?: string | null;
};

/** An offset as stored. */
export type OffsetRow = OffsetInput & { id: string; source: string | null; createdAt: string };

/** The answer to a call (API.md, `POST /v1/sessions/{id}/calls`). */
export type CallAnswer = {
  call_id: string;
  seq: number;
  ok: boolean;
  guarded: boolean;
  would_block: boolean;
  tool_version: number | null;
  /** ok, converted, refused or warned (what the call's trace span reports). */
  outcome: CallOutcome;
  args: Record<string, unknown>;
  violations: Violation[];
};

/** The answer to a result (API.md, `POST .../calls/{call_id}/result`). */
export type ResultAnswer = { ok: boolean; would_block: boolean; result: unknown; violations: Violation[] };

/** A `key:value` label filter. */
export type LabelFilter = { key: string; value: string };

/** Filters of the session list; times are ISO UTC strings from parseInstant. `until` is exclusive. */
export type SessionFilter = {
  labels?: readonly LabelFilter[];
  tool?: string;
  code?: string;
  since?: string;
  until?: string;
  limit: number;
  cursor?: readonly [string, string] | null;
};

/** A magnitude search: `value` in `unit`, matched in SI within a relative tolerance. */
export type CrossingFilter = {
  value: number;
  unit: string;
  tolerance?: number;
  tool?: string;
  since?: string;
  limit: number;
  cursor?: number | null;
};

/** Which released claims to look under: their normalised keys, or texts their claim text contains or lies within. */
export type RevisedSourceMatch = { keys: readonly string[]; texts: readonly string[] };

/** The reading a revised crossing now stands at, and the crossing to cite for it. */
export type CurrentReading = { crossing_id: number; value: number; unit: string; quality: string | null };

/** One released claim resting on a reading that was revised. */
export type RevisedSource = {
  /** The newest revision of the cited reading's observation since that reading (of it, or of a later re-read of it). */
  revision: Omit<Revision, "affected">;
  /** The released evaluation's claim and the reading it cites, as the evaluation stored them. */
  link: {
    evaluation_id: string;
    task: string | null;
    claim_id: string | null;
    claim_text: string;
    run: number;
    /** The claim's normalised key and value, when it is a keyed claim. */
    key: string | null;
    value: unknown;
    crossing_id: number;
    reading: { value: number | null; unit: string | null; quality: string | null };
  };
  /** After every later revision: the value to state now and the crossing that holds it. */
  current: CurrentReading;
};

/** One side of a revision (API.md). */
export type RevisionSide = {
  crossing_id: number | null;
  session_id: string | null;
  value: number;
  unit: string;
  quality: string | null;
};

/** A released evaluation whose claim rested on the revised crossing. */
export type AffectedEvaluation = { evaluation_id: string; task: string | null; claim_id: string | null };

/** A revision as the API answers it. */
export type Revision = {
  id: string;
  kind: "detected" | "declared";
  source: string | null;
  observed_at: string | null;
  reason: string;
  revised_by: string;
  detected_at: string;
  before: RevisionSide;
  after: RevisionSide;
  affected: AffectedEvaluation[];
};

/** A released evaluation's claim resting on a crossing (`GET /v1/crossings/{id}/claims`). */
export type CrossingClaim = {
  evaluation_id: string;
  task: string | null;
  claim_id: string | null;
  claim_text: string;
  locator: string;
  status: string;
  run: number;
  created_at: string;
};

/** A stored evaluation as the API answers it: its id, task and time, then the decision. */
export type Evaluation = Decision & { id: string; task: string | null; created_at: string };

/** A stored evaluation with what was sent and the settings used. */
export type StoredEvaluation = Evaluation & { input: unknown; settings: Settings | null };

/** One row of the evaluations list. */
export type EvaluationSummary = Pick<
  Evaluation,
  "id" | "task" | "status" | "blocked_by" | "overall_score" | "created_at"
>;

/** What a seed run found or created. */
export type SeedSummary = { teamId: string };

/** A session as stored. */
export type SessionRow = {
  id: string;
  context: string;
  enforcement: "enforce" | "warn";
  labels: Record<string, string>;
  callCount: number;
  violationCount: number;
  blockedCount: number;
  createdAt: string;
};

/** A call as stored. */
export type CallRow = {
  id: string;
  sessionId: string;
  seq: number;
  tool: string;
  toolVersion: number | null;
  guarded: boolean;
  argsRaw: unknown;
  ok: boolean;
  violations: Violation[];
  resultRaw: unknown;
  resultOk: boolean | null;
  resultViolations: Violation[] | null;
  createdAt: string;
  resultAt: string | null;
  /** SHA-256 of the upstream tool definition the call was checked against (the gateway's); null otherwise. */
  toolDigest: string | null;
};

/** A crossing as stored and answered. */
export type CrossingRow = CrossingDraft & {
  id: number;
  sessionId: string;
  callId: string;
  seq: number;
  tool: string;
  createdAt: string;
};

/** A team as stored. */
export type Team = { id: string; name: string; createdAt: string };

/** A token just created: `token` is the only time the clear value exists. */
export type IssuedToken = { id: string; teamId: string; name: string; token: string; isAdmin: boolean };

/** Who a valid bearer token speaks for. */
export type Principal = { teamId: string; tokenId: string; isAdmin: boolean };

/** A stored declaration version. */
export type ToolRow = { name: string; version: number; declaration: ToolDeclarationInput; createdAt: string };

// The ClaimHistory port: what the gates ask of the persistent ledger and of earlier runs. The store implements it.
import type { LedgerLocator } from "./locators.js";

/** A claim in the team ledger whose current status is `demoted`. */
export interface DemotedClaim {
  id: string;
  text: string;
  /** Normalised with `normaliseKey`, or null. */
  key: string | null;
  value: unknown;
  reason: string | null;
  demoted_by: string | null;
  /** A regular expression (RE2 syntax) searched in every published text; null when none was given. */
  watch: string | null;
}

/** A claim in the team ledger whose current status is `live`. */
export interface LedgerClaim {
  id: string;
  text: string;
  /** Normalised with `normaliseKey`. */
  key: string;
  value: unknown;
}

/** One keyed claim of an earlier stored run of the same task. */
export interface PriorRunClaim {
  run_id: string;
  /** Normalised with `normaliseKey`. */
  key: string;
  value: unknown;
  text: string;
  /** ISO 8601 UTC time the run was recorded. */
  created_at: string;
  /** The claim's own id in that run, when the store keeps it; lets `supersedes` retire one earlier claim. */
  claim_id?: string | null;
}

/**
 * What the gates read from history, scoped to one team by whoever builds the port. Synchronous, because
 * better-sqlite3 is, and shaped so that each method is one indexed query:
 * - `demotedClaims`: latest claim_events row per claim with status `demoted` (claim_events_team_status_idx);
 * - `liveClaims`: claims with `key IN (...)` and latest status `live` (claims_team_key_idx);
 * - `priorRunClaims`: run_claims with `(team, task, key IN (...))` (run_claims_team_task_key_idx), excluding the
 *   evaluation being decided, which the store records only after the decision;
 * - `priorRunCount`: released runs with `(team, task)` (runs_team_task_created_idx), likewise excluding it.
 * Keys are passed normalised (`normaliseKey`); the store must store them normalised too.
 */
export interface ClaimHistory {
  /** Every demoted claim of the team. */
  demotedClaims(): DemotedClaim[];
  /** Live claims of the team whose key is one of `keys`. */
  liveClaims(keys: readonly string[]): LedgerClaim[];
  /** Keyed claims of earlier runs of `task` whose key is one of `keys`, oldest first. */
  priorRunClaims(task: string, keys: readonly string[]): PriorRunClaim[];
  /** How many earlier released runs of `task` are stored, keyed claims or not (runs_team_task_created_idx). */
  priorRunCount(task: string): number;
}

/** A history with nothing in it: for in-process use without a store, and for a task that has no id. */
export const EMPTY_HISTORY: ClaimHistory = {
  demotedClaims: () => [],
  liveClaims: () => [],
  priorRunClaims: () => [],
  priorRunCount: () => 0,
};

/** Everything the gates read from history for one evaluation, fetched once up front. */
export interface HistorySnapshot {
  demoted: DemotedClaim[];
  live: LedgerClaim[];
  prior: PriorRunClaim[];
  /** Earlier stored runs of the task; counted only for a single run with no keyed claims (0 otherwise). */
  priorRuns: number;
}

// --- the EvidenceResolver port ------------------------------------------------------------------

/** The current state of a reading that was revised: the end of its revision chain. */
export interface RevisedState {
  /** The last revision of the chain. */
  revision_id: string;
  value: number;
  unit: string;
  quality: string | null;
  /** ISO 8601 UTC time the last revision was recorded. */
  detected_at: string;
  /** The crossing that holds the revised value; null for a declared revision. */
  crossing_id: number | null;
}

/** One stored return crossing, with what resolution needs. */
export interface LedgerCrossing {
  id: number;
  session_id: string;
  /** The call's sequence number in its session. */
  seq: number;
  tool: string;
  /** `return`, or `return.<key>` for a mapping result. */
  field: string;
  /** Magnitude in `unit`; null for a series. */
  value: number | null;
  /** The series in `unit` (null marks a gap); null for a scalar. */
  series: (number | null)[] | null;
  unit: string;
  quality: string | null;
  observed_at: string | null;
  /** Set when the reading has been revised since, to its current state. */
  revised: RevisedState | null;
}

/**
 * What the evidence gate asks of the ledger, scoped to one team by whoever builds the port. `scope` answers the usable
 * return crossings (numeric, with a unit, not refused) a locator names, in recording order: `null` when it names nothing of
 * this team (unknown or another team's: the two are indistinguishable), `[]` when it names a session or call with no such
 * crossing. One indexed query per locator; a store that cannot answer synchronously fetches first (`evidenceLocators`) and
 * answers from memory.
 */
export interface EvidenceResolver {
  /** The crossings a well-formed locator names, or null. */
  scope(locator: WellFormedLocator): LedgerCrossing[] | null;
  /** Every locator's scope at once, keyed by locator text, when the store can batch them (the same answers as `scope`). */
  scopes?(locators: readonly WellFormedLocator[]): EvidenceSnapshot;
}

/** A ledger locator that parsed. */
export type WellFormedLocator = Exclude<LedgerLocator, { kind: "malformed" }>;

/** The crossings each locator of an evaluation names (keyed by the locator's text), fetched once up front. */
export type EvidenceSnapshot = ReadonlyMap<string, LedgerCrossing[] | null>;

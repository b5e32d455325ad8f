// The one async store port (LedgerStore): what routes, the CLI, the MCP proxy, the dashboard and the harness ask of
// storage, grouped by aggregate. Implemented by src/store/sqlite/ (today's synchronous code behind promises) and
// src/store/pg/. The pure core stays synchronous: a store fetches what a verdict or a gate decision needs, then
// calls it. Adding a method: add it here, implement it in sqlite/ and pg/, and pin it in test/store/contract/.
import type { ToolDeclaration, ToolDeclarationInput } from "../guard/declaration.js";
import type { EnforcementReport } from "../guard/report.js";
import type { Violation } from "../guard/verdict.js";
import type { Settings } from "../gates/settings.js";
import type { WatchCache } from "../gates/watch.js";
import type { AuditItem } from "../provenance/audit.js";
import type { Manifest, StoredAudit } from "../provenance/manifest.js";
import type { DatumRegistry } from "../quantity/datums.js";
import type { QuantityJSON } from "../quantity/quantity.js";
import type { LedgerLine } from "./common/claims-jsonl.js";
import type {
  CallAnswer,
  CallRow,
  ClaimEvent,
  ClaimPage,
  ClaimRow,
  ClaimStatus,
  CrossingClaim,
  CrossingFilter,
  CrossingRow,
  DatumRow,
  Demotion,
  Evaluation,
  EvaluationSummary,
  ImportReport,
  IssuedToken,
  NewClaim,
  OffsetInput,
  OffsetRow,
  Principal,
  ResultAnswer,
  RevisedSource,
  RevisedSourceMatch,
  Revision,
  SeedSummary,
  SessionFilter,
  SessionRow,
  StoredEvaluation,
  Team,
  ToolRow,
} from "./model.js";
import type { DashboardRepo } from "./dashboard.js";
import type { StoreRepos } from "./common/store-repos.js";
import type { Approval } from "./common/upstreams.js";
import type { BenchRun } from "./model.js";
import type { LabelFilter } from "./model.js";
import type { PinCheck } from "../gateway/pins.js";
import type { PinMode } from "../gateway/config.js";
import type { UpstreamState } from "./common/upstreams.js";
import type { ToolDefinition } from "../gateway/pins.js";

export type {
  CallAnswer,
  CallRow,
  ClaimEvent,
  ClaimPage,
  ClaimRow,
  ClaimStatus,
  CrossingFilter,
  CrossingRow,
  DatumRow,
  Demotion,
  Evaluation,
  EvaluationSummary,
  ImportReport,
  IssuedToken,
  NewClaim,
  OffsetInput,
  OffsetRow,
  Principal,
  ResultAnswer,
  SeedSummary,
  SessionFilter,
  SessionRow,
  StoredEvaluation,
  Team,
  ToolRow,
};

/** The database engines a store can run on. */
export type StoreEngine = "sqlite" | "postgres";

/** Teams and bearer tokens. Tokens are stored as keyed digests (token-key.ts); the clear token exists once, when issued. */
export interface TeamsRepo {
  /** Creates a team; a name in use is a ConflictError. */
  create(name: string): Promise<Team>;
  /** The team with this id, or null. */
  get(id: string): Promise<Team | null>;
  /** The team with this name, or null. */
  byName(name: string): Promise<Team | null>;
  /** The id of the team `default`, created on first use. */
  ensureDefault(): Promise<string>;
  /** Issues a token for a team (NotFoundError for an unknown team). */
  createToken(teamId: string, name?: string, options?: { isAdmin?: boolean; token?: string }): Promise<IssuedToken>;
  /** Revokes a token; twice is harmless, an unknown id is a NotFoundError. */
  revokeToken(tokenId: string): Promise<void>;
  /** Who a bearer token speaks for, or null when unknown or revoked; TokenKeyMismatchError when stored with another key. */
  authenticate(token: string): Promise<Principal | null>;
  /** Makes sure an admin token exists: `envToken` becomes the only live one; without it one is made when none is live. */
  ensureAdminToken(envToken?: string): Promise<{ token?: string }>;
  /** Revokes every live admin token and issues a new one. */
  rotateAdminToken(): Promise<IssuedToken>;
}

/** The datum registry: 22 built-ins in code, each team's own datums and offsets in rows. */
export interface DatumsRepo {
  /** The team's registry (built-ins, its datums and offsets), as stored now. */
  registry(teamId: string): Promise<DatumRegistry>;
  /** The datums the team registered, by name. */
  list(teamId: string): Promise<DatumRow[]>;
  /** The team's offsets, ordered by (from, to). */
  offsets(teamId: string): Promise<OffsetRow[]>;
  /** Registers a datum; a name the registry knows (built-ins included) is a ConflictError. */
  add(teamId: string, name: string, description?: string): Promise<DatumRow>;
  /** Registers an offset between two known datums (an unknown name is the registry's UnknownDatumError); a later one replaces the pair's. */
  addOffset(teamId: string, offset: OffsetInput): Promise<OffsetRow>;
  /** Registers the datums and offsets not there yet (first registration wins), in one transaction; answers the registry. */
  ensure(
    teamId: string,
    datums: readonly { name: string; description?: string }[],
    offsets: readonly OffsetInput[],
  ): Promise<DatumRegistry>;
}

/** A stored declaration version with its compiled form (compiled against the team's registry). */
export type StoredTool = { row: ToolRow; declaration: ToolDeclaration };

/** Tool declarations, versioned by content per team. */
export interface ToolsRepo {
  /** Declares a tool (DeclarationError when it does not compile); a new version only when the declaration changed. */
  put(teamId: string, name: string, input: ToolDeclarationInput): Promise<StoredTool & { created: boolean }>;
  /** The latest version of a tool (or `version`), or null. */
  get(teamId: string, name: string, version?: number): Promise<StoredTool | null>;
  /** The latest version of every tool with a name after `after`, by name, at most `limit`. */
  list(teamId: string, options: { after?: string; limit: number }): Promise<StoredTool[]>;
}

/** A new session (POST /v1/sessions). */
export type NewSession = { context?: string; enforcement?: "enforce" | "warn"; labels?: Record<string, string> };

/** Sessions: open, read, query across time. */
export interface SessionsRepo {
  /** Opens a session. */
  create(teamId: string, input: NewSession): Promise<SessionRow>;
  /** The session, or NotFoundError (another team's id answers as an unknown one). */
  get(teamId: string, id: string): Promise<SessionRow>;
  /** The team's sessions matching every filter, newest first, `limit + 1` rows (the extra one says a page follows). */
  list(teamId: string, filter: SessionFilter): Promise<SessionRow[]>;
  /** The team a session belongs to, or null: for the command line, which holds the whole database. */
  teamOf(sessionId: string): Promise<string | null>;
  /** The enforcement report of a session (NotFoundError for an unknown one). */
  report(teamId: string, sessionId: string): Promise<EnforcementReport>;
}

/**
 * The guarded-call path. Each write locks the session, reads the history the pure verdict needs, decides and writes,
 * in one transaction: calls of one session are numbered 1..n without gaps whatever serves them.
 */
/** A call's verdict as soon as it is decided, before its rows are written: the answer without its id and number. */
export type DecidedCall = Pick<CallAnswer, "ok" | "guarded" | "outcome" | "args" | "violations">;

/** What a call may carry besides its tool and arguments: the digest of the upstream definition (the gateway's). */
export type CallOptions = {
  toolDigest?: string | null;
  /** Store the call as refused with this violation instead of checking it (a gateway refused it before the upstream). */
  refusal?: Violation;
  /**
   * Told the verdict once the call is decided and its session is known to be there, in the transaction that writes
   * it, before its rows are written and committed: the MCP proxy sends an accepted call upstream from here, so the
   * upstream works while the call is recorded. It may be told again if the group commit runs its jobs again, must
   * not throw, and must not write to the store. A store that cannot tell it early does not tell it at all.
   */
  decided?: (verdict: DecidedCall) => void;
};

export interface CallsRepo {
  /** Checks a call against the tool's latest declaration and the session's history, and stores it with its crossings. */
  call(
    teamId: string,
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<CallAnswer>;
  /** Labels and stores a call's result (against the version the call was checked with); a second result is a ConflictError. */
  result(teamId: string, sessionId: string, callId: string, result: unknown): Promise<ResultAnswer>;
  /** Calls of a session in order with seq > `afterSeq` (default 0), at most `limit`. */
  list(teamId: string, sessionId: string, options?: { afterSeq?: number; limit?: number }): Promise<CallRow[]>;
}

/** Crossings: the quantities that crossed a tool boundary. */
export interface CrossingsRepo {
  /** Crossings of a session's calls with afterSeq < seq <= uptoSeq, in recording order. */
  ofSession(
    teamId: string,
    sessionId: string,
    options?: { afterSeq?: number; uptoSeq?: number },
  ): Promise<CrossingRow[]>;
  /** Every crossing of the team with the same dimension and SI magnitude within the tolerance, newest first, `limit + 1` rows. */
  search(teamId: string, filter: CrossingFilter): Promise<CrossingRow[]>;
}

/** A stored answer audit as POST /v1/sessions/{id}/audit answers it. */
export type AuditAnswer = { id: string; ok: boolean; context: string; numbers: AuditItem[] };

/** Answer audits. */
export interface AuditsRepo {
  /** Audits an answer against the session's outputs (context: the session's question when omitted) and stores it. */
  audit(teamId: string, sessionId: string, input: { answer: string; context?: string }): Promise<AuditAnswer>;
  /** A session's audits, oldest first, each with its numbers in text order. */
  list(teamId: string, sessionId: string): Promise<StoredAudit[]>;
}

/** Manifests: everything a replay needs, read in one snapshot. */
export interface ManifestsRepo {
  /** The manifest of a stored session (NotFoundError for an unknown one). */
  load(teamId: string, sessionId: string): Promise<Manifest>;
}

/** One reading a retrieval pack records as a call of its tool and that call's result. */
export type PackReading = { args: Record<string, unknown>; quantity: QuantityJSON };

/** A pack tool called in a session: the call's answer and its labelled result (null when the call was refused). */
export type PackCallAnswer = CallAnswer & { result: unknown; result_ok: boolean | null; result_violations: unknown[] };

/** What retrieval packs write. */
export interface PacksRepo {
  /** Records each reading as a call of `tool` and its result, all in one transaction (NotFoundError for an unknown session). */
  record(teamId: string, sessionId: string, tool: string, readings: readonly PackReading[]): Promise<void>;
  /** Declares the pack tool when the team has none of that name, checks the call, and stores the result when it passed. */
  call(
    teamId: string,
    sessionId: string,
    tool: string,
    declaration: ToolDeclarationInput,
    args: Record<string, unknown>,
    result: unknown,
  ): Promise<PackCallAnswer>;
}

/** The team claim ledger: immutable claims, an append-only list of status events. */
export interface ClaimsRepo {
  /** Adds a claim (live or demoted) and marks what it supersedes; a repeated id is a ConflictError, bad input an InvalidClaimError. */
  create(teamId: string, input: NewClaim): Promise<ClaimRow>;
  /** Demotes a claim: a new event, the earlier ones kept. */
  demote(teamId: string, id: string, demotion: Demotion): Promise<ClaimRow>;
  /** Records that `byId` replaces `id` (a live claim becomes superseded; a demoted one stays demoted). */
  supersede(teamId: string, id: string, byId: string): Promise<ClaimRow>;
  /** The claim with its current status, or NotFoundError. */
  get(teamId: string, id: string): Promise<ClaimRow>;
  /** The claim, or null. */
  find(teamId: string, id: string): Promise<ClaimRow | null>;
  /** Every event of a claim, oldest first (NotFoundError for an unknown claim). */
  events(teamId: string, id: string): Promise<ClaimEvent[]>;
  /** One page of the ledger, oldest first; `q` matches id, text or key (case-insensitive substring). */
  list(
    teamId: string,
    filter: { status?: ClaimStatus; q?: string; limit: number; after?: readonly [string, string] | null },
  ): Promise<ClaimPage>;
  /** Imports JSON Lines in one transaction: new ids added, changed statuses become events, bad lines reported. */
  importText(teamId: string, text: string): Promise<ImportReport>;
  /** The whole ledger as JSON Lines (current state), which importText reads back unchanged. */
  exportText(teamId: string): Promise<string>;
}

/** Options of one evaluation besides its input. */
export type EvaluateOptions = {
  /** Base settings (defaults, or a thresholds.toml over them); the input's own `settings` go on top. */
  settings?: Settings;
  /** False: decide against history but write nothing. */
  record?: boolean;
  /** Ledger lines for this evaluation only (a file ledger), over the stored ledger. */
  extraLedger?: readonly LedgerLine[];
  watchCache?: WatchCache;
  /** For `evidence.check_paths`: whether a file source exists. */
  pathExists?: (path: string) => boolean;
  /** False: leave ledger locators unresolved (no real ledger behind this store); default true. */
  resolveLedger?: boolean;
};

/** Readings and their revisions (API.md "Readings and their revisions"); detection itself runs inside calls.result. */
export interface RevisionsRepo {
  /** Declares a revision of a stored return value; NotFoundError, ConflictError or a domain error (422). */
  declare(
    teamId: string,
    crossingId: number,
    input: { value: number; unit: string; quality?: string | null; reason: string; revised_by: string },
  ): Promise<Revision>;
  /** One revision, or NotFoundError. */
  get(teamId: string, id: string): Promise<Revision>;
  /** A page of revisions, newest first. */
  list(
    teamId: string,
    filter: { source?: string; since?: string; limit: number; before?: readonly [string, string] | null },
  ): Promise<{ items: Revision[]; next_cursor: readonly [string, string] | null }>;
  /** The released evaluations and claims resting on a crossing, oldest first; NotFoundError for none of the team's. */
  claimsOf(
    teamId: string,
    crossingId: number,
    page: { limit: number; after?: number | null },
  ): Promise<{ items: CrossingClaim[]; next_cursor: number | null }>;
  /**
   * Released claims resting on a revised crossing (claim_status): each link of a released evaluation's claim whose
   * normalised key is one of `match.keys`, or whose text contains one of `match.texts` or lies within it (ASCII case
   * ignored), to a crossing that was revised; with the revision and the reading the crossing stands at now. Newest
   * revision first, at most `limit`; only the team's rows.
   */
  revisedSources(teamId: string, match: RevisedSourceMatch, limit: number): Promise<RevisedSource[]>;
}

/** A reading the revision watch re-reads: a non-approved USGS reading a released evaluation rests on. */
export type WatchedReading = {
  team_id: string;
  crossing_id: number;
  tool: string;
  source: string;
  observed_at: string;
  observed_utc: string;
  value: number;
  unit: string;
  quality: string | null;
  /** Its qualifier flags as stored (flagsKey), null when unknown. */
  flags: string | null;
  created_at: string;
};

/** The watch's state of one team's (site, collection, parameter, statistic): table revision_watch. */
export type WatchState = {
  team_id: string;
  series_key: string;
  site: string;
  collection: string;
  parameter: string;
  statistic: string | null;
  session_id: string;
  last_look: string | null;
  last_run: string | null;
  next_run: string | null;
  requests: number;
};

/** What the revision watch reads and keeps (API.md "USGS Water Data OGC API"). */
export interface WatchRepo {
  /**
   * The watched readings, of one team or of every team, oldest first: USGS OGC readings (source `usgs:<site>:<param>:<series>`)
   * that released evaluations rest on, not approved, and not since re-read approved (detected or declared). `page` reads
   * the readings of `limit` evaluation links after link `after`; `next` is the cursor of the following page (null at
   * the end). A reading linked twice may come in two pages.
   */
  watched(
    teamId?: string,
    page?: { after: number; limit: number },
  ): Promise<{ rows: WatchedReading[]; next: number | null }>;
  /** Changes whenever a released evaluation links a new reading (the largest evaluation_sources id): new readings to watch. */
  marker(): Promise<number>;
  /** The state rows, of one team or of every team. */
  states(teamId?: string): Promise<WatchState[]>;
  /** Inserts or replaces state rows, in one transaction. */
  save(rows: readonly WatchState[]): Promise<void>;
}

/** Gated evaluations (runs): the claim-history snapshot is fetched, the pure gates decide, the run is recorded. */
export interface EvaluationsRepo {
  /** Decides an input against the team's ledger and earlier runs and records it; SettingsError for invalid settings. */
  evaluate(
    teamId: string,
    input: unknown,
    options?: EvaluateOptions,
  ): Promise<{ evaluation: Evaluation; settings: Settings; recorded: boolean }>;
  /** One stored evaluation, or NotFoundError. */
  get(teamId: string, id: string): Promise<StoredEvaluation>;
  /** A page of evaluations, newest first. */
  list(
    teamId: string,
    filter: {
      task?: string;
      status?: "released" | "blocked";
      since?: string;
      limit: number;
      before?: readonly [string, string] | null;
    },
  ): Promise<{ items: EvaluationSummary[]; next_cursor: readonly [string, string] | null }>;
}

/** What a store says about itself and its schema. */
export type StoreInfo = {
  engine: StoreEngine;
  /** The file, ":memory:", or the server URL without its password. */
  where: string;
  /** Migrations applied by this open (0 when the schema was current). */
  appliedNow: number;
  /** Migrations recorded in the database. */
  migrations: number;
};

/** The whole store: its repositories (declared once, in common/store-repos.ts), the dashboard's, and its state. */
export interface LedgerStore extends StoreRepos {
  readonly engine: StoreEngine;
  /** Where the rows live, for log lines: a file, ":memory:", or a URL without its password. */
  readonly where: string;
  /** Migrations this open applied. */
  readonly applied: number;
  /** The dashboard's reads and login sessions. */
  readonly dashboard: DashboardRepo;
  /** Engine, location and schema state. */
  info(): Promise<StoreInfo>;
  /** Seeds the default team and the README's examples; running it again changes nothing. */
  seed(): Promise<SeedSummary>;
  /**
   * Moves the store's upkeep off the request thread while `serve` runs (SQLite: WAL checkpoints on a worker thread);
   * `close` ends it. A store with no such upkeep leaves it out.
   */
  startBackground?(): void;
  /** Releases the database (a store built over a caller's handle leaves it open). */
  close(): Promise<void>;
}

/** Graded harness runs, one beside each run's session (a LedgerStore repository). */
export interface BenchRunsRepo {
  /** Stores a run beside its session: NotFoundError for a session not in the team, ConflictError when it holds one. */
  insert(teamId: string, run: BenchRun): Promise<void>;
  /** The team's runs whose sessions carry every label (and of one batch), oldest first. */
  list(teamId: string, filter: { labels?: readonly LabelFilter[]; batch?: string }): Promise<BenchRun[]>;
}

/** Pins and drifts of the gateway's upstreams; every method is scoped to a team. */
export interface UpstreamsRepo {
  /** Checks a new tools/list against the upstream's pins in one transaction, stores new pins and drifts, answers the check. */
  observe(teamId: string, upstream: string, mode: PinMode, listed: readonly ToolDefinition[]): Promise<PinCheck>;
  /** Approves the open drifts of one tool (or all of the upstream's): the new definitions become the pins. */
  approve(teamId: string, upstream: string, tool?: string): Promise<Approval>;
  /** Every upstream of the team with pins or drifts, by name; tools by name, drifts oldest first. */
  list(teamId: string): Promise<UpstreamState[]>;
}

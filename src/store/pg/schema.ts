// The PostgreSQL twin of ../schema.ts: the same tables, columns and index names, so one contract suite runs on both.
// Type choices keep values as SQLite stores them: double precision (not the 4-byte `real`) for magnitudes, bigint
// identities read as numbers, booleans, raw JSON as text (jsonb would reorder keys), ISO timestamps as text that sort
// as they do today. Ids and cursors compare as bytes because the database is created with the C collation (see open.ts).
import { type SQL, sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/** The SQLite default `strftime('%Y-%m-%dT%H:%M:%fZ','now')`: UTC, milliseconds, a trailing Z. */
const now = sql`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** JSON stored as the text it was written as (SQLite's `text({ mode: "json" })`). */
const jsonText = customType<{ data: unknown; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => JSON.parse(value) as unknown,
});

/** A row id SQLite numbers with AUTOINCREMENT: a bigint identity, read as a JS number. */
const rowId = (name: string) => bigint(name, { mode: "number" }).primaryKey().generatedByDefaultAsIdentity();

const emptyObject: SQL = sql`'{}'`;
const emptyArray: SQL = sql`'[]'`;

// --- teams and auth ---------------------------------------------------------------------------

export const teams = pgTable(
  "teams",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("teams_name_idx").on(t.name)],
);

export const tokens = pgTable(
  "tokens",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    name: text("name").notNull().default(""),
    /** The token's keyed digest (src/store/token-key.ts), or its bare SHA-256 hex in older rows; never the token. */
    hash: text("hash").notNull(),
    isAdmin: boolean("is_admin").notNull().default(false),
    createdAt: text("created_at").notNull().default(now),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("tokens_hash_idx").on(t.hash), index("tokens_team_idx").on(t.teamId)],
);

// --- datum registry ---------------------------------------------------------------------------

export const datums = pgTable(
  "datums",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    name: text("name").notNull(),
    kind: text("kind").notNull().default("vertical"),
    description: text("description").notNull().default(""),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("datums_team_name_idx").on(t.teamId, t.name)],
);

export const stationOffsets = pgTable(
  "station_offsets",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    fromDatum: text("from_datum").notNull(),
    toDatum: text("to_datum").notNull(),
    /** value_on_to = value_on_from + offset_m */
    offsetM: doublePrecision("offset_m").notNull(),
    offsetValue: doublePrecision("offset_value").notNull(),
    offsetUnit: text("offset_unit").notNull(),
    source: text("source"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("station_offsets_team_from_to_idx").on(t.teamId, t.fromDatum, t.toDatum)],
);

// --- tools and sessions -----------------------------------------------------------------------

export const tools = pgTable(
  "tools",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    /** Canonical JSON of the declaration, compared to decide whether a PUT is a new version. */
    declaration: jsonText("declaration").$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("tools_team_name_version_idx").on(t.teamId, t.name, t.version)],
);

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    context: text("context").notNull().default(""),
    enforcement: text("enforcement", { enum: ["enforce", "warn"] })
      .notNull()
      .default("enforce"),
    labels: jsonText("labels").$type<Record<string, string>>().notNull().default(emptyObject),
    callCount: integer("call_count").notNull().default(0),
    violationCount: integer("violation_count").notNull().default(0),
    blockedCount: integer("blocked_count").notNull().default(0),
    // Every write to the session (a call, a result) adds one on PostgreSQL: an instance trusts its cached copy of the
    // session only while this equals the count it read (see src/store/pg/call-cache.ts). SQLite, one process, leaves it 0.
    writeCount: integer("write_count").notNull().default(0),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("sessions_team_created_idx").on(t.teamId, t.createdAt)],
);

export const sessionLabels = pgTable(
  "session_labels",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    teamId: text("team_id").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
  },
  (t) => [
    index("session_labels_team_kv_session_idx").on(t.teamId, t.key, t.value, t.sessionId),
    uniqueIndex("session_labels_session_key_idx").on(t.sessionId, t.key),
  ],
);

export const calls = pgTable(
  "calls",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    seq: integer("seq").notNull(),
    tool: text("tool").notNull(),
    toolVersion: integer("tool_version"),
    guarded: boolean("guarded").notNull(),
    /** The arguments exactly as sent. */
    argsRaw: jsonText("args_raw").$type<unknown>().notNull(),
    ok: boolean("ok").notNull(),
    violations: jsonText("violations").$type<unknown[]>().notNull().default(emptyArray),
    /** The result exactly as sent, null until posted. */
    resultRaw: jsonText("result_raw").$type<unknown>(),
    resultOk: boolean("result_ok"),
    resultViolations: jsonText("result_violations").$type<unknown[]>(),
    createdAt: text("created_at").notNull().default(now),
    resultAt: text("result_at"),
    /** SHA-256 of the upstream tool definition (RFC 8785) the call was checked against; null off the gateway. */
    toolDigest: text("tool_digest"),
  },
  (t) => [
    uniqueIndex("calls_session_seq_idx").on(t.sessionId, t.seq),
    index("calls_team_tool_session_idx").on(t.teamId, t.tool, t.sessionId),
    index("calls_team_created_idx").on(t.teamId, t.createdAt, t.ok),
  ],
);

/** A crossing usable as a source of later values: a scalar return with a unit. */
const OUTPUT = sql`direction = 'return' AND value IS NOT NULL AND unit IS NOT NULL`;

export const crossings = pgTable(
  "crossings",
  {
    id: rowId("id"),
    teamId: text("team_id").notNull(),
    sessionId: text("session_id").notNull(),
    callId: text("call_id").notNull(),
    /** The call's sequence number within its session. */
    seq: integer("seq").notNull(),
    tool: text("tool").notNull(),
    direction: text("direction", { enum: ["param", "return"] }).notNull(),
    param: text("param").notNull(),
    /** The value exactly as it crossed, JSON. */
    raw: text("raw").notNull(),
    /** Magnitude in `unit` (the declared unit after conversion); null for a series or non-quantity. */
    value: doublePrecision("value"),
    unit: text("unit"),
    /** Magnitude in SI base units; null for a series, a non-quantity or an offset unit. */
    valueSi: doublePrecision("value_si"),
    dimension: text("dimension"),
    isSeries: boolean("is_series").notNull().default(false),
    datum: text("datum"),
    crs: text("crs"),
    tz: text("tz"),
    quality: text("quality"),
    source: text("source"),
    observedAt: text("observed_at"),
    observedUtc: text("observed_utc"),
    /** As SQLite's: a reading's qualifier flags (sorted JSON array), NULL when unknown. */
    flags: text("flags"),
    outcome: text("outcome", { enum: ["ok", "converted", "refused", "warned", "passed"] }).notNull(),
    violation: text("violation"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("crossings_session_seq_idx").on(t.sessionId, t.seq),
    index("crossings_outputs_idx").on(t.sessionId).where(OUTPUT),
    index("crossings_outputs_value_idx").on(t.sessionId, t.value).where(OUTPUT),
    index("crossings_outputs_si_idx").on(t.sessionId, t.dimension, t.valueSi).where(OUTPUT),
    index("crossings_team_dim_si_idx").on(t.teamId, t.dimension, t.valueSi).where(sql`value_si IS NOT NULL`),
    index("crossings_team_violation_session_idx")
      .on(t.teamId, t.violation, t.sessionId)
      .where(sql`violation IS NOT NULL`),
    index("crossings_team_created_violation_idx")
      .on(t.teamId, t.createdAt, t.violation, t.outcome)
      .where(sql`violation IS NOT NULL`),
    index("crossings_team_converted_idx")
      .on(t.teamId, t.createdAt, t.callId)
      .where(sql`outcome = 'converted' AND direction = 'param'`),
    // The crossings list by tool and by code, newest first: each walks its index in id order, so a page reads its
    // rows and no more (the id is explicit for PostgreSQL; SQLite carries the rowid in every index anyway).
    index("crossings_team_tool_idx").on(t.teamId, t.tool, t.id),
    index("crossings_team_code_idx").on(t.teamId, t.violation, t.id).where(sql`violation IS NOT NULL`),
    index("crossings_team_code_tool_idx").on(t.teamId, t.violation, t.tool, t.id).where(sql`violation IS NOT NULL`),
    index("crossings_session_violation_idx").on(t.sessionId, t.violation).where(sql`violation IS NOT NULL`),
    index("crossings_team_reading_idx")
      .on(t.teamId, t.source, t.observedUtc)
      .where(sql`source IS NOT NULL AND observed_utc IS NOT NULL`),
  ],
);

// --- answer audits ----------------------------------------------------------------------------

export const audits = pgTable(
  "audits",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    answer: text("answer").notNull(),
    context: text("context").notNull().default(""),
    ok: boolean("ok").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("audits_session_idx").on(t.sessionId), index("audits_team_created_idx").on(t.teamId, t.createdAt)],
);

export const auditItems = pgTable(
  "audit_items",
  {
    id: rowId("id"),
    auditId: text("audit_id")
      .notNull()
      .references(() => audits.id),
    teamId: text("team_id").notNull(),
    position: integer("position").notNull(),
    text: text("text").notNull(),
    value: doublePrecision("value").notNull(),
    unit: text("unit"),
    status: text("status").notNull(),
    sourceCallId: text("source_call_id"),
    source: text("source"),
    explanation: text("explanation").notNull(),
  },
  (t) => [index("audit_items_audit_idx").on(t.auditId), index("audit_items_team_status_idx").on(t.teamId, t.status)],
);

// --- claim ledger -----------------------------------------------------------------------------

/** A claim of a team's ledger. Its id is the team's own (e.g. "CLM-1"), unique within the team; status lives in claim_events. */
export const claims = pgTable(
  "claims",
  {
    id: text("id").notNull(),
    teamId: text("team_id").notNull(),
    text: text("text").notNull(),
    /** Normalised with normaliseKey, so `key IN (...)` uses claims_team_key_idx. */
    key: text("key"),
    value: jsonText("value").$type<unknown>(),
    /** Ids of the claims this one replaces. */
    supersedes: jsonText("supersedes").$type<string[]>(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.id] }),
    index("claims_team_key_idx").on(t.teamId, t.key),
    index("claims_team_created_idx").on(t.teamId, t.createdAt, t.id),
  ],
);

/** Append-only: each event carries the claim's full state after it, so the latest event is the current state. */
export const claimEvents = pgTable(
  "claim_events",
  {
    id: rowId("id"),
    teamId: text("team_id").notNull(),
    claimId: text("claim_id").notNull(),
    kind: text("kind", { enum: ["created", "demoted", "superseded", "restored"] }).notNull(),
    /** Status after this event. */
    status: text("status", { enum: ["live", "demoted", "superseded"] }).notNull(),
    reason: text("reason"),
    demotedBy: text("demoted_by"),
    watch: text("watch"),
    supersededBy: text("superseded_by"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    foreignKey({ columns: [t.teamId, t.claimId], foreignColumns: [claims.teamId, claims.id] }),
    index("claim_events_team_claim_idx").on(t.teamId, t.claimId, t.id),
    index("claim_events_team_status_idx").on(t.teamId, t.status),
  ],
);

// --- gated runs -------------------------------------------------------------------------------

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    task: text("task"),
    status: text("status", { enum: ["released", "blocked"] }).notNull(),
    overallScore: doublePrecision("overall_score").notNull(),
    report: jsonText("report").$type<Record<string, unknown>>().notNull(),
    input: jsonText("input").$type<unknown>().notNull(),
    /** The complete settings the decision used (defaults, file and request merged). */
    settings: jsonText("settings").$type<Record<string, unknown>>(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("runs_team_task_created_idx").on(t.teamId, t.task, t.createdAt),
    // With the status, the overview's evaluations per day read the index alone (a busy day holds tens of thousands).
    index("runs_team_created_idx").on(t.teamId, t.createdAt, t.status),
  ],
);

export const runClaims = pgTable(
  "run_claims",
  {
    id: rowId("id"),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id),
    teamId: text("team_id").notNull(),
    task: text("task").notNull(),
    /** Normalised with normaliseKey. */
    key: text("key").notNull(),
    value: jsonText("value").$type<unknown>(),
    text: text("text").notNull().default(""),
    /** The claim's own id in its result, so a later `supersedes` can retire it. */
    claimId: text("claim_id"),
    /** Which repeat of the evaluation (1 for a single result). */
    runIndex: integer("run_index").notNull().default(1),
    /** Copied from the run (runs are immutable): only released runs are the record stability compares with. */
    released: boolean("released").notNull().default(false),
    /** What the claim named in `supersedes`, or null. */
    supersedes: jsonText("supersedes").$type<string[]>(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("run_claims_team_task_key_idx").on(t.teamId, t.task, t.key),
    // (its newest values first, walked in order, so the page reads at most the values it plots).
    index("run_claims_team_key_idx").on(t.teamId, t.key, t.createdAt, t.id),
  ],
);

/** The stability summary (see ../schema.ts): one row per distinct (key, value, claim id) of a task's history. */
export const runKeyValues = pgTable(
  "run_key_values",
  {
    teamId: text("team_id").notNull(),
    task: text("task").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
    claimId: text("claim_id").notNull().default(""),
    firstId: bigint("first_id", { mode: "number" }).notNull(),
    lastRunId: text("last_run_id").notNull(),
    text: text("text").notNull(),
    lastCreatedAt: text("last_created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.task, t.key, t.value, t.claimId] }),
    index("run_key_values_team_task_key_first_idx").on(t.teamId, t.task, t.key, t.firstId),
  ],
);

// --- dashboard ------------------------------------------------------------------------------

/** A dashboard login: the cookie's value is never stored, only its SHA-256; it ends at expiry, logout or token revocation. */
export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    /** SHA-256 of the cookie value, hex. */
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    /** The token exchanged at login: revoking it ends this session. */
    tokenId: text("token_id")
      .notNull()
      .references(() => tokens.id),
    createdAt: text("created_at").notNull().default(now),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("dashboard_sessions_token_idx").on(t.tokenId), index("dashboard_sessions_expires_idx").on(t.expiresAt)],
);

// --- cache versions ---------------------------------------------------------------------------

/** One counter per team and cached thing, bumped in the transaction of the write it covers (see ../schema.ts). */
export const teamVersions = pgTable(
  "team_versions",
  {
    teamId: text("team_id").notNull(),
    kind: text("kind").notNull(),
    version: bigint("version", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.kind] })],
);

// --- evaluation harness runs ----------------------------------------------------------------------

/** One graded harness run, beside the ledger session that recorded its tool calls (one row per session). */
export const benchRuns = pgTable(
  "bench_runs",
  {
    sessionId: text("session_id")
      .primaryKey()
      .references(() => sessions.id),
    teamId: text("team_id").notNull(),
    batch: text("batch").notNull(),
    suite: text("suite").notNull(),
    task: text("task").notNull(),
    condition: text("condition").notNull(),
    model: text("model").notNull(),
    replicate: integer("replicate").notNull(),
    /** The corpus run a recorded replay came from (`--provider recorded`), else null. */
    recordedId: text("recorded_id"),
    outcome: text("outcome", { enum: ["correct", "wrong", "blocked", "error"] }).notNull(),
    /** The value of the last ANSWER: line, or null when there was none. */
    stated: text("stated"),
    detail: text("detail").notNull().default(""),
    violations: integer("violations").notNull().default(0),
    auditUnsourced: integer("audit_unsourced").notNull().default(0),
    auditMislabelled: integer("audit_mislabelled").notNull().default(0),
    auditFlagged: boolean("audit_flagged").notNull().default(false),
    undetected: boolean("undetected").notNull().default(false),
    silentError: boolean("silent_error").notNull().default(false),
    toolCalls: integer("tool_calls").notNull().default(0),
    turns: integer("turns").notNull().default(0),
    promptTokens: integer("prompt_tokens"),
    completionTokens: integer("completion_tokens"),
    /** The carry-over labels of corpus README section 4, computed from the run's calls. */
    derived: jsonText("derived").$type<Record<string, unknown>>().notNull(),
    /** The final assistant text, or null when the run ended before one. */
    answer: text("answer"),
    /** Why the provider cut the run off (outcome `error`), else null. */
    error: text("error"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("bench_runs_team_batch_idx").on(t.teamId, t.batch, t.task, t.condition, t.model, t.replicate),
    index("bench_runs_team_created_idx").on(t.teamId, t.createdAt),
  ],
);

/** Crossings per violation code of a team over all its history (see ../schema.ts), kept by triggers on crossings. */
export const violationCounts = pgTable(
  "violation_counts",
  {
    teamId: text("team_id").notNull(),
    code: text("code").notNull(),
    crossings: bigint("crossings", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.code] })],
);

// --- readings and their revisions ---------------------------------------------------------------

export const revisions = pgTable(
  "revisions",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    kind: text("kind", { enum: ["detected", "declared"] }).notNull(),
    source: text("source"),
    observedAt: text("observed_at"),
    reason: text("reason").notNull(),
    revisedBy: text("revised_by").notNull(),
    beforeCrossingId: bigint("before_crossing_id", { mode: "number" }).notNull(),
    beforeSessionId: text("before_session_id").notNull(),
    beforeValue: doublePrecision("before_value").notNull(),
    beforeUnit: text("before_unit").notNull(),
    beforeQuality: text("before_quality"),
    afterCrossingId: bigint("after_crossing_id", { mode: "number" }),
    afterSessionId: text("after_session_id"),
    afterValue: doublePrecision("after_value").notNull(),
    afterUnit: text("after_unit").notNull(),
    afterQuality: text("after_quality"),
    detectedAt: text("detected_at").notNull(),
  },
  (t) => [
    index("revisions_team_detected_idx").on(t.teamId, t.detectedAt, t.id),
    index("revisions_team_source_detected_idx").on(t.teamId, t.source, t.detectedAt, t.id),
    index("revisions_before_idx").on(t.beforeCrossingId, t.id),
  ],
);

export const evaluationSources = pgTable(
  "evaluation_sources",
  {
    id: rowId("id"),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id),
    teamId: text("team_id").notNull(),
    task: text("task"),
    runIndex: integer("run_index").notNull().default(1),
    claimId: text("claim_id"),
    claimText: text("claim_text").notNull().default(""),
    locator: text("locator").notNull(),
    status: text("status").notNull(),
    crossingId: bigint("crossing_id", { mode: "number" }),
    sessionId: text("session_id"),
    seq: integer("seq"),
    tool: text("tool"),
    value: doublePrecision("value"),
    unit: text("unit"),
    quality: text("quality"),
    observedAt: text("observed_at"),
    match: text("match"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("evaluation_sources_run_idx").on(t.runId),
    index("evaluation_sources_team_crossing_idx").on(t.teamId, t.crossingId).where(sql`crossing_id IS NOT NULL`),
  ],
);

// --- gateway upstreams: pinned tool definitions and their drifts ----------------------------------

export const upstreamPins = pgTable(
  "upstream_pins",
  {
    teamId: text("team_id").notNull(),
    upstream: text("upstream").notNull(),
    tool: text("tool").notNull(),
    definition: jsonText("definition").$type<Record<string, unknown>>().notNull(),
    digest: text("digest").notNull(),
    pinnedAt: text("pinned_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.upstream, t.tool] })],
);

export const upstreamDrifts = pgTable(
  "upstream_drifts",
  {
    id: rowId("id"),
    teamId: text("team_id").notNull(),
    upstream: text("upstream").notNull(),
    tool: text("tool").notNull(),
    kind: text("kind", { enum: ["changed", "removed", "added"] }).notNull(),
    before: jsonText("before").$type<Record<string, unknown>>(),
    after: jsonText("after").$type<Record<string, unknown>>(),
    detectedAt: text("detected_at").notNull(),
    approvedAt: text("approved_at"),
  },
  (t) => [index("upstream_drifts_team_upstream_idx").on(t.teamId, t.upstream, t.approvedAt)],
);

/** The revision watch's state per team and (site, collection, parameter, statistic), as in SQLite. */
export const revisionWatch = pgTable(
  "revision_watch",
  {
    teamId: text("team_id").notNull(),
    seriesKey: text("series_key").notNull(),
    site: text("site").notNull(),
    collection: text("collection").notNull(),
    parameter: text("parameter").notNull(),
    statistic: text("statistic"),
    sessionId: text("session_id").notNull(),
    lastLook: text("last_look"),
    lastRun: text("last_run"),
    nextRun: text("next_run"),
    requests: integer("requests").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.seriesKey] })],
);

// --- the ledger chain (docs/DESIGN-NOTES.md "Ledger chain") --------------------------------------

/** One entry per appended row, per team, in commit order: the row's digest chained to the team's previous entry. */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    teamId: text("team_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    tbl: text("tbl").notNull(),
    rowId: text("row_id").notNull(),
    rowDigest: text("row_digest").notNull(),
    prev: text("prev").notNull(),
    digest: text("digest").notNull(),
    fp: text("fp").notNull(),
    at: text("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.seq] })],
);

/** Each team's latest entry, locked and updated in the entry's transaction. */
export const ledgerHeads = pgTable("ledger_heads", {
  teamId: text("team_id").primaryKey(),
  seq: bigint("seq", { mode: "number" }).notNull(),
  digest: text("digest").notNull(),
  at: text("at").notNull(),
  backfilled: bigint("backfilled", { mode: "number" }).notNull().default(0),
  beganAt: text("began_at"),
  /** Entries 1..base_seq were archived (`agent-ledger archive`); base_digest is the last one's digest. */
  baseSeq: bigint("base_seq", { mode: "number" }).notNull().default(0),
  baseDigest: text("base_digest").notNull().default("0000000000000000000000000000000000000000000000000000000000000000"),
});

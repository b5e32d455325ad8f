// The one drizzle schema. Every row belongs to a team; events are append-only; state is derived by query.
import { sql } from "drizzle-orm";
import {
  blob,
  foreignKey,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

// --- teams and auth ---------------------------------------------------------------------------

export const teams = sqliteTable(
  "teams",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("teams_name_idx").on(t.name)],
);

export const tokens = sqliteTable(
  "tokens",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    name: text("name").notNull().default(""),
    /** The token's keyed digest (src/store/token-key.ts), or its bare SHA-256 hex in older rows; never the token. */
    hash: text("hash").notNull(),
    isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull().default(now),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("tokens_hash_idx").on(t.hash), index("tokens_team_idx").on(t.teamId)],
);

// --- datum registry ---------------------------------------------------------------------------

export const datums = sqliteTable(
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

export const stationOffsets = sqliteTable(
  "station_offsets",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    fromDatum: text("from_datum").notNull(),
    toDatum: text("to_datum").notNull(),
    /** value_on_to = value_on_from + offset_m */
    offsetM: real("offset_m").notNull(),
    offsetValue: real("offset_value").notNull(),
    offsetUnit: text("offset_unit").notNull(),
    source: text("source"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("station_offsets_team_from_to_idx").on(t.teamId, t.fromDatum, t.toDatum)],
);

// --- tools and sessions -----------------------------------------------------------------------

export const tools = sqliteTable(
  "tools",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    /** Canonical JSON of the declaration, compared to decide whether a PUT is a new version. */
    declaration: text("declaration", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("tools_team_name_version_idx").on(t.teamId, t.name, t.version)],
);

export const sessions = sqliteTable(
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
    labels: text("labels", { mode: "json" }).$type<Record<string, string>>().notNull().default({}),
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

export const sessionLabels = sqliteTable(
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
    // Session ids sort as their creation times (ULIDs), so a label's sessions come newest first from the index.
    index("session_labels_team_kv_session_idx").on(t.teamId, t.key, t.value, t.sessionId),
    uniqueIndex("session_labels_session_key_idx").on(t.sessionId, t.key),
  ],
);

export const calls = sqliteTable(
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
    guarded: integer("guarded", { mode: "boolean" }).notNull(),
    /** The arguments exactly as sent. */
    argsRaw: text("args_raw", { mode: "json" }).$type<unknown>().notNull(),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    violations: text("violations", { mode: "json" }).$type<unknown[]>().notNull().default([]),
    /** The result exactly as sent, null until posted. */
    resultRaw: text("result_raw", { mode: "json" }).$type<unknown>(),
    resultOk: integer("result_ok", { mode: "boolean" }),
    resultViolations: text("result_violations", { mode: "json" }).$type<unknown[]>(),
    createdAt: text("created_at").notNull().default(now),
    resultAt: text("result_at"),
    /** SHA-256 of the upstream tool definition (RFC 8785) the call was checked against; null off the gateway. */
    toolDigest: text("tool_digest"),
  },
  (t) => [
    uniqueIndex("calls_session_seq_idx").on(t.sessionId, t.seq),
    index("calls_team_tool_session_idx").on(t.teamId, t.tool, t.sessionId),
    // The dashboard's calls per day and refusal rate: a covering range scan over (team, time).
    index("calls_team_created_idx").on(t.teamId, t.createdAt, t.ok),
  ],
);

/** A crossing usable as a source of later values: a scalar return with a unit. */
const OUTPUT = sql`direction = 'return' AND value IS NOT NULL AND unit IS NOT NULL`;

export const crossings = sqliteTable(
  "crossings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
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
    value: real("value"),
    unit: text("unit"),
    /** Magnitude in SI base units; null for a series, a non-quantity or an offset unit. */
    valueSi: real("value_si"),
    dimension: text("dimension"),
    isSeries: integer("is_series", { mode: "boolean" }).notNull().default(false),
    datum: text("datum"),
    crs: text("crs"),
    tz: text("tz"),
    quality: text("quality"),
    source: text("source"),
    /** The time the value describes, as sent (ISO 8601 with the publisher's offset). */
    observedAt: text("observed_at"),
    /** The same instant in UTC, so two spellings of one observation time are one reading. */
    observedUtc: text("observed_utc"),
    /** A reading's qualifier flags (flagsKey: sorted JSON array); NULL for rows from before flags were kept, and unknown. */
    flags: text("flags"),
    outcome: text("outcome", { enum: ["ok", "converted", "refused", "warned", "passed"] }).notNull(),
    violation: text("violation"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    // Every crossing of a session in order (the rowid rides along in every SQLite index).
    index("crossings_session_seq_idx").on(t.sessionId, t.seq),
    // The look-ups on a session's outputs are partial indexes over returns only, so a parameter crossing
    // (most rows) touches none of them on insert.
    index("crossings_outputs_idx").on(t.sessionId).where(OUTPUT),
    index("crossings_outputs_value_idx").on(t.sessionId, t.value).where(OUTPUT),
    index("crossings_outputs_si_idx").on(t.sessionId, t.dimension, t.valueSi).where(OUTPUT),
    // History: where has this magnitude crossed before; which sessions hit a violation code.
    index("crossings_team_dim_si_idx").on(t.teamId, t.dimension, t.valueSi).where(sql`value_si IS NOT NULL`),
    index("crossings_team_violation_session_idx")
      .on(t.teamId, t.violation, t.sessionId)
      .where(sql`violation IS NOT NULL`),
    // The dashboard: violations by code over time, converted calls per day.
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
    // The session list's code filter, checked per session when another filter drives the query.
    index("crossings_session_violation_idx").on(t.sessionId, t.violation).where(sql`violation IS NOT NULL`),
    // Readings: the latest earlier reading of (source, observation time), for revision detection. Partial, so a crossing
    // that is not a reading (most rows) touches it on no insert.
    index("crossings_team_reading_idx")
      .on(t.teamId, t.source, t.observedUtc)
      .where(sql`source IS NOT NULL AND observed_utc IS NOT NULL`),
  ],
);

// --- answer audits ----------------------------------------------------------------------------

export const audits = sqliteTable(
  "audits",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    answer: text("answer").notNull(),
    context: text("context").notNull().default(""),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("audits_session_idx").on(t.sessionId), index("audits_team_created_idx").on(t.teamId, t.createdAt)],
);

export const auditItems = sqliteTable(
  "audit_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    auditId: text("audit_id")
      .notNull()
      .references(() => audits.id),
    teamId: text("team_id").notNull(),
    position: integer("position").notNull(),
    text: text("text").notNull(),
    value: real("value").notNull(),
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
export const claims = sqliteTable(
  "claims",
  {
    id: text("id").notNull(),
    teamId: text("team_id").notNull(),
    text: text("text").notNull(),
    /** Normalised with normaliseKey, so `key IN (...)` uses claims_team_key_idx. */
    key: text("key"),
    value: text("value", { mode: "json" }).$type<unknown>(),
    /** Ids of the claims this one replaces. */
    supersedes: text("supersedes", { mode: "json" }).$type<string[]>(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.id] }),
    index("claims_team_key_idx").on(t.teamId, t.key),
    index("claims_team_created_idx").on(t.teamId, t.createdAt, t.id),
  ],
);

/** Append-only: each event carries the claim's full state after it, so the latest event is the current state. */
export const claimEvents = sqliteTable(
  "claim_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
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

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    task: text("task"),
    status: text("status", { enum: ["released", "blocked"] }).notNull(),
    overallScore: real("overall_score").notNull(),
    report: text("report", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    input: text("input", { mode: "json" }).$type<unknown>().notNull(),
    /** The complete settings the decision used (defaults, file and request merged). */
    settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("runs_team_task_created_idx").on(t.teamId, t.task, t.createdAt),
    // With the status, the overview's evaluations per day read the index alone (a busy day holds tens of thousands).
    index("runs_team_created_idx").on(t.teamId, t.createdAt, t.status),
  ],
);

export const runClaims = sqliteTable(
  "run_claims",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id),
    teamId: text("team_id").notNull(),
    task: text("task").notNull(),
    /** Normalised with normaliseKey. */
    key: text("key").notNull(),
    value: text("value", { mode: "json" }).$type<unknown>(),
    text: text("text").notNull().default(""),
    /** The claim's own id in its result, so a later `supersedes` can retire it. */
    claimId: text("claim_id"),
    /** Which repeat of the evaluation (1 for a single result). */
    runIndex: integer("run_index").notNull().default(1),
    /** Copied from the run (runs are immutable): only released runs are the record stability compares with. */
    released: integer("released", { mode: "boolean" }).notNull().default(false),
    /** What the claim named in `supersedes`, or null. */
    supersedes: text("supersedes", { mode: "json" }).$type<string[]>(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("run_claims_team_task_key_idx").on(t.teamId, t.task, t.key),
    // The dashboard's claim page: a key's values across every task's released runs.
    // (its newest values first, walked in order, so the page reads at most the values it plots).
    index("run_claims_team_key_idx").on(t.teamId, t.key, t.createdAt, t.id),
  ],
);

// --- dashboard ------------------------------------------------------------------------------

/** A dashboard login: the cookie's value is never stored, only its SHA-256; it ends at expiry, logout or token revocation. */
export const dashboardSessions = sqliteTable(
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

/**
 * One counter per team and cached thing ("registry": datums and offsets; "claims": claim events), bumped in the same
 * transaction as the write it covers. A process holding a cache compares the counter instead of re-reading the rows;
 * the PostgreSQL store relies on it where SQLite has PRAGMA data_version, and several instances share one database.
 */
export const teamVersions = sqliteTable(
  "team_versions",
  {
    teamId: text("team_id").notNull(),
    kind: text("kind").notNull(),
    version: integer("version").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.kind] })],
);

// --- evaluation harness runs ----------------------------------------------------------------------

/** One graded harness run, beside the ledger session that recorded its tool calls (one row per session). */
export const benchRuns = sqliteTable(
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
    auditFlagged: integer("audit_flagged", { mode: "boolean" }).notNull().default(false),
    undetected: integer("undetected", { mode: "boolean" }).notNull().default(false),
    silentError: integer("silent_error", { mode: "boolean" }).notNull().default(false),
    toolCalls: integer("tool_calls").notNull().default(0),
    turns: integer("turns").notNull().default(0),
    promptTokens: integer("prompt_tokens"),
    completionTokens: integer("completion_tokens"),
    /** The carry-over labels of corpus README section 4, computed from the run's calls. */
    derived: text("derived", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
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

/**
 * The stability summary: one row per distinct (key, value, claim id) of a task's released runs since the key's
 * history last started (a released run whose claim for the key names `supersedes` starts it afresh), kept in the
 * evaluation's transaction, so the stability read is one row per distinct value however long the task's history.
 */
export const runKeyValues = sqliteTable(
  "run_key_values",
  {
    teamId: text("team_id").notNull(),
    task: text("task").notNull(),
    /** Normalised with normaliseKey. */
    key: text("key").notNull(),
    /** JSON of the value, as run_claims stores it. */
    value: text("value").notNull(),
    /** The claim's own id, '' when it has none (so the unique index sees one none). */
    claimId: text("claim_id").notNull().default(""),
    /** The run_claims id of the value's first appearance in the key's current history (the read's order). */
    firstId: integer("first_id").notNull(),
    /** The latest released run that stated the value. */
    lastRunId: text("last_run_id").notNull(),
    /** The smallest claim text of the value (the history query's min(text)). */
    text: text("text").notNull(),
    lastCreatedAt: text("last_created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.task, t.key, t.value, t.claimId] }),
    index("run_key_values_team_task_key_first_idx").on(t.teamId, t.task, t.key, t.firstId),
  ],
);

/**
 * How many crossings of a team carry each violation code, over all its history: the dashboard's code facet. Kept by
 * triggers on crossings (migration 0015), so every write path, the archive's delete and a copy keep it exact in the
 * same transaction, and reading it is one row per code however long the history.
 */
export const violationCounts = sqliteTable(
  "violation_counts",
  {
    teamId: text("team_id").notNull(),
    code: text("code").notNull(),
    crossings: integer("crossings").notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.code] })],
);

// --- readings and their revisions ---------------------------------------------------------------

/** Append-only: a reading whose value or quality changed, detected from a later reading or declared by a person. */
export const revisions = sqliteTable(
  "revisions",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id").notNull(),
    kind: text("kind", { enum: ["detected", "declared"] }).notNull(),
    source: text("source"),
    observedAt: text("observed_at"),
    reason: text("reason").notNull(),
    revisedBy: text("revised_by").notNull(),
    beforeCrossingId: integer("before_crossing_id").notNull(),
    beforeSessionId: text("before_session_id").notNull(),
    beforeValue: real("before_value").notNull(),
    beforeUnit: text("before_unit").notNull(),
    beforeQuality: text("before_quality"),
    /** Null for a declared revision: no crossing holds the new value. */
    afterCrossingId: integer("after_crossing_id"),
    afterSessionId: text("after_session_id"),
    afterValue: real("after_value").notNull(),
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

/** The ledger sources of each released evaluation: which claim rests on which crossing (API.md `sources`). */
export const evaluationSources = sqliteTable(
  "evaluation_sources",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
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
    crossingId: integer("crossing_id"),
    sessionId: text("session_id"),
    seq: integer("seq"),
    tool: text("tool"),
    value: real("value"),
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

/** The definition of an upstream tool as approved (first seen, or approved since), with its digest. */
export const upstreamPins = sqliteTable(
  "upstream_pins",
  {
    teamId: text("team_id").notNull(),
    upstream: text("upstream").notNull(),
    tool: text("tool").notNull(),
    definition: text("definition", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    digest: text("digest").notNull(),
    pinnedAt: text("pinned_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.upstream, t.tool] })],
);

/** A difference between a later tools/list and the pins (append-only; approval stamps approved_at). */
export const upstreamDrifts = sqliteTable(
  "upstream_drifts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: text("team_id").notNull(),
    upstream: text("upstream").notNull(),
    tool: text("tool").notNull(),
    kind: text("kind", { enum: ["changed", "removed", "added"] }).notNull(),
    before: text("before", { mode: "json" }).$type<Record<string, unknown>>(),
    after: text("after", { mode: "json" }).$type<Record<string, unknown>>(),
    detectedAt: text("detected_at").notNull(),
    approvedAt: text("approved_at"),
  },
  (t) => [index("upstream_drifts_team_upstream_idx").on(t.teamId, t.upstream, t.approvedAt)],
);

// --- the revision watch --------------------------------------------------------------------------

/**
 * The revision watch's state per team and (site, collection, parameter, statistic): when it last asked USGS, from
 * which `last_modified` the next request asks, when it may ask again, and how many requests it has made.
 */
export const revisionWatch = sqliteTable(
  "revision_watch",
  {
    teamId: text("team_id").notNull(),
    /** `<monitoring_location_id>|<collection>|<parameter>|<statistic>`. */
    seriesKey: text("series_key").notNull(),
    site: text("site").notNull(),
    collection: text("collection").notNull(),
    parameter: text("parameter").notNull(),
    statistic: text("statistic"),
    /** The session the watch records its re-reads in (one per team). */
    sessionId: text("session_id").notNull(),
    /** ISO instant: the next request asks for records modified since then; null before the first look. */
    lastLook: text("last_look"),
    lastRun: text("last_run"),
    nextRun: text("next_run"),
    requests: integer("requests").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.seriesKey] })],
);

// --- the ledger chain (docs/DESIGN-NOTES.md "Ledger chain") --------------------------------------

/** One entry per appended row, per team, in commit order: the row's digest chained to the team's previous entry. */
export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    teamId: text("team_id").notNull(),
    /** Position in the team's chain, from 1, without gaps. */
    seq: integer("seq").notNull(),
    /** The chained table (`results` is a call's result columns). */
    tbl: text("tbl").notNull(),
    rowId: text("row_id").notNull(),
    /**
     * SHA-256 of the row's canonical form, 32 bytes. The four digest columns are BLOBs since migration
     * 0022_chain_bytes; entries written before it keep their hex text, and readers take either (chain-bytes.ts).
     */
    rowDigest: blob("row_digest", { mode: "buffer" }).notNull(),
    /** The previous entry's digest (32 zero bytes for the first). */
    prev: blob("prev", { mode: "buffer" }).notNull(),
    /** SHA-256 over prev and row_digest, 32 bytes. */
    digest: blob("digest", { mode: "buffer" }).notNull(),
    /** A 16-bit fingerprint per canonical column (2 bytes each, big-endian), so verify can name the column that changed. */
    fp: blob("fp", { mode: "buffer" }).notNull(),
    at: text("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.seq] })],
);

/** Each team's latest entry, updated in the entry's transaction; `began_seq` is the first entry chained by the backfill. */
export const ledgerHeads = sqliteTable("ledger_heads", {
  teamId: text("team_id").primaryKey(),
  seq: integer("seq").notNull(),
  digest: text("digest").notNull(),
  at: text("at").notNull(),
  /** Entries 1..backfilled chained rows that were there before chaining began (in id order, at `began_at`). */
  backfilled: integer("backfilled").notNull().default(0),
  beganAt: text("began_at"),
  /** Entries 1..base_seq were archived (`agent-ledger archive`); base_digest is the last one's digest. */
  baseSeq: integer("base_seq").notNull().default(0),
  baseDigest: text("base_digest").notNull().default("0000000000000000000000000000000000000000000000000000000000000000"),
});

// What the ledger chain covers: each chained table, the row key it is read back by, and its canonical columns (the
// columns fixed at append time, in this order). A column that later changes legitimately is left out and chained
// on its own: a call's result columns are the virtual table `results`. Session counters are derived, not chained.

/** How a stored column's value is normalised for the canonical form, so both engines give the same bytes. */
export type ColumnKind = "text" | "num" | "bool";

/** A chained table: where its rows live, how one is found, its canonical columns. */
export type ChainTable = {
  /** The SQL table the row is read from. */
  source: string;
  /** The key column (claims are keyed by team_id and id; the team is always bound as well). */
  key: "id";
  columns: readonly (readonly [name: string, kind: ColumnKind])[];
};

const t = (name: string): readonly [string, ColumnKind] => [name, "text"];
const n = (name: string): readonly [string, ColumnKind] => [name, "num"];
const b = (name: string): readonly [string, ColumnKind] => [name, "bool"];

/** Every chained table by its chain name (the `tbl` of an entry). */
export const CHAIN_TABLES = {
  sessions: {
    source: "sessions",
    key: "id",
    columns: [t("id"), t("team_id"), t("context"), t("enforcement"), t("labels"), t("created_at")],
  },
  tools: {
    source: "tools",
    key: "id",
    columns: [t("id"), t("team_id"), t("name"), n("version"), t("declaration"), t("created_at")],
  },
  calls: {
    source: "calls",
    key: "id",
    columns: [
      t("id"),
      t("team_id"),
      t("session_id"),
      n("seq"),
      t("tool"),
      n("tool_version"),
      b("guarded"),
      t("args_raw"),
      b("ok"),
      t("violations"),
      t("created_at"),
      t("tool_digest"),
    ],
  },
  results: {
    source: "calls",
    key: "id",
    columns: [t("id"), t("team_id"), t("result_raw"), b("result_ok"), t("result_violations"), t("result_at")],
  },
  crossings: {
    source: "crossings",
    key: "id",
    columns: [
      n("id"),
      t("team_id"),
      t("session_id"),
      t("call_id"),
      n("seq"),
      t("tool"),
      t("direction"),
      t("param"),
      t("raw"),
      n("value"),
      t("unit"),
      n("value_si"),
      t("dimension"),
      b("is_series"),
      t("datum"),
      t("crs"),
      t("tz"),
      t("quality"),
      t("source"),
      t("observed_at"),
      t("observed_utc"),
      t("outcome"),
      t("violation"),
      t("created_at"),
      t("flags"),
    ],
  },
  audits: {
    source: "audits",
    key: "id",
    columns: [t("id"), t("team_id"), t("session_id"), t("answer"), t("context"), b("ok"), t("created_at")],
  },
  audit_items: {
    source: "audit_items",
    key: "id",
    columns: [
      n("id"),
      t("audit_id"),
      t("team_id"),
      n("position"),
      t("text"),
      n("value"),
      t("unit"),
      t("status"),
      t("source_call_id"),
      t("source"),
      t("explanation"),
    ],
  },
  claims: {
    source: "claims",
    key: "id",
    columns: [t("id"), t("team_id"), t("text"), t("key"), t("value"), t("supersedes"), t("created_at")],
  },
  claim_events: {
    source: "claim_events",
    key: "id",
    columns: [
      n("id"),
      t("team_id"),
      t("claim_id"),
      t("kind"),
      t("status"),
      t("reason"),
      t("demoted_by"),
      t("watch"),
      t("superseded_by"),
      t("created_at"),
    ],
  },
  runs: {
    source: "runs",
    key: "id",
    columns: [
      t("id"),
      t("team_id"),
      t("task"),
      t("status"),
      n("overall_score"),
      t("report"),
      t("input"),
      t("settings"),
      t("created_at"),
    ],
  },
  run_claims: {
    source: "run_claims",
    key: "id",
    columns: [
      n("id"),
      t("run_id"),
      t("team_id"),
      t("task"),
      t("key"),
      t("value"),
      t("text"),
      t("claim_id"),
      n("run_index"),
      b("released"),
      t("supersedes"),
      t("created_at"),
    ],
  },
  evaluation_sources: {
    source: "evaluation_sources",
    key: "id",
    columns: [
      n("id"),
      t("run_id"),
      t("team_id"),
      t("task"),
      n("run_index"),
      t("claim_id"),
      t("claim_text"),
      t("locator"),
      t("status"),
      n("crossing_id"),
      t("session_id"),
      n("seq"),
      t("tool"),
      n("value"),
      t("unit"),
      t("quality"),
      t("observed_at"),
      t("match"),
      t("created_at"),
    ],
  },
  revisions: {
    source: "revisions",
    key: "id",
    columns: [
      t("id"),
      t("team_id"),
      t("kind"),
      t("source"),
      t("observed_at"),
      t("reason"),
      t("revised_by"),
      n("before_crossing_id"),
      t("before_session_id"),
      n("before_value"),
      t("before_unit"),
      t("before_quality"),
      n("after_crossing_id"),
      t("after_session_id"),
      n("after_value"),
      t("after_unit"),
      t("after_quality"),
      t("detected_at"),
    ],
  },
} as const satisfies Record<string, ChainTable>;

/** The name of a chained table. */
export type ChainTableName = keyof typeof CHAIN_TABLES;

/** The chained tables in backfill order (a row's parents before it). */
export const CHAIN_ORDER: readonly ChainTableName[] = [
  "tools",
  "sessions",
  "calls",
  "crossings",
  "results",
  "audits",
  "audit_items",
  "claims",
  "claim_events",
  "runs",
  "run_claims",
  "evaluation_sources",
  "revisions",
];

/**
 * Which rows of a table's source are its chained rows, as an SQL condition, where not every row is: a call's result is
 * chained only once the call has one.
 */
export const CHAINED_ROWS: Partial<Record<ChainTableName, string>> = {
  results: "result_raw IS NOT NULL OR result_at IS NOT NULL",
};

/** The condition of CHAINED_ROWS as a suffix of a WHERE clause (` AND (...)`), or "" for a table whose every row counts. */
export const andChainedRows = (name: ChainTableName): string => {
  const where = CHAINED_ROWS[name];
  return where === undefined ? "" : ` AND (${where})`;
};

/** True for a name of a chained table. */
export const isChainTable = (name: string): name is ChainTableName => Object.hasOwn(CHAIN_TABLES, name);

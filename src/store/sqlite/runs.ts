// Gated evaluations: decide against the team's history, then record the run, its report and its keyed claims.
import type { Database, Statement } from "better-sqlite3";
import type { Clock } from "../../clock.js";
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from "../../gates/settings.js";
import { NotFoundError } from "../common/errors.js";
import { evaluationSummary, type RawRun, storedEvaluation } from "../common/run-rows.js";
import { newId } from "../common/ids.js";
import type { Evaluation, EvaluationSummary, StoredEvaluation } from "../model.js";
import { type EvaluationRows, evaluationRows, parseEvaluation } from "../common/evaluation-rows.js";
import type { ChainTableName } from "../common/chain-tables.js";
import { type RowKey, sqliteChain } from "./chain.js";
import { withParseMemo } from "../../gates/contract.js";
import { splitEvaluationInput } from "../../gates/contracts.js";
import { claimCount, LARGE_COUNT } from "../../limits.js";
import { decideStored, type DecisionOptions, historyVersion } from "./run-decision.js";
import { type GatesPool, gatesPool } from "./gates-pool.js";
import { MultiInsert } from "./multi-insert.js";

/** What `evaluate` needs besides the input. */
export type EvaluateOptions = DecisionOptions & {
  clock: Clock;
  /** Base settings (defaults, or a thresholds.toml merged over them); the input's own `settings` go on top. */
  settings?: Settings;
  /** False: decide against history but write nothing. */
  record?: boolean;
  /** Where a large evaluation is decided: `auto` (a worker when it can), `loop` (always here), `worker` (any size). */
  decideIn?: "auto" | "loop" | "worker";
};

/** Times a worker's decision is made afresh when history moved before it could be written; then it is made here. */
const WORKER_ATTEMPTS = 2;

/** Repository and service of gated runs. Every method is scoped to a team. */
export class RunStore {
  private readonly s: Record<"insertRun" | "insertSource" | "get" | "list" | "listByTask" | "restartKey", Statement>;
  /** Whether the database is a file in WAL mode, read once. */
  private wal: boolean | undefined;
  /** run_claims, a hundred rows per statement. */
  private readonly claimRows: MultiInsert;
  /** run_key_values, each released value merged into its row, a hundred rows per statement (rows merge in order). */
  private readonly keyValueRows: MultiInsert;

  constructor(private readonly sqlite: Database) {
    const p = (sql: string) => sqlite.prepare(sql);
    this.claimRows = new MultiInsert(
      sqlite,
      "INSERT INTO run_claims (run_id, team_id, task, key, value, text, claim_id, run_index, released, supersedes, created_at)",
      11,
    );
    this.keyValueRows = new MultiInsert(
      sqlite,
      "INSERT INTO run_key_values (team_id, task, key, value, claim_id, first_id, last_run_id, text, last_created_at)",
      9,
      `ON CONFLICT (team_id, task, key, value, claim_id) DO UPDATE SET first_id = min(first_id, excluded.first_id),
      last_run_id = max(last_run_id, excluded.last_run_id), text = min(text, excluded.text),
      last_created_at = max(last_created_at, excluded.last_created_at)`,
    );
    this.s = {
      insertRun: p(
        "INSERT INTO runs (id, team_id, task, status, overall_score, report, input, settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      insertSource:
        p(`INSERT INTO evaluation_sources (run_id, team_id, task, run_index, claim_id, claim_text, locator, status,
        crossing_id, session_id, seq, tool, value, unit, quality, observed_at, match, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      restartKey: p("DELETE FROM run_key_values WHERE team_id = ? AND task = ? AND key = ?"),
      get: p(
        "SELECT id, task, status, overall_score, report, input, settings, created_at FROM runs WHERE team_id = ? AND id = ?",
      ),
      list: p(`SELECT id, task, status, overall_score, report, created_at FROM runs
               WHERE team_id = @team AND (@status IS NULL OR status = @status)
               AND (@since IS NULL OR created_at >= @since) AND (@before_at IS NULL OR (created_at, id) < (@before_at, @before_id))
               ORDER BY created_at DESC, id DESC LIMIT @limit`),
      // A task's runs from runs_team_task_created_idx: walking every run of the team for one task grew with history.
      listByTask: p(`SELECT id, task, status, overall_score, report, created_at FROM runs
               WHERE team_id = @team AND task = @task AND (@status IS NULL OR status = @status)
               AND (@since IS NULL OR created_at >= @since) AND (@before_at IS NULL OR (created_at, id) < (@before_at, @before_id))
               ORDER BY created_at DESC, id DESC LIMIT @limit`),
    };
  }

  /**
   * Decides an input (a result, {task, result} or {task, runs}, optionally with settings) against the team's
   * ledger and earlier runs, and records it, all in one immediate transaction, so two evaluations of one task
   * never miss each other. Throws SettingsError for invalid settings; every other problem is a finding.
   */
  evaluate(
    teamId: string,
    input: unknown,
    options: EvaluateOptions,
  ): { evaluation: Evaluation; settings: Settings; recorded: boolean } {
    const parsed = parseEvaluation(input);
    const settings = mergeSettings(options.settings ?? DEFAULT_SETTINGS, parsed.settings);
    const run = () => {
      const now = options.clock.now();
      const stamp = { id: newId(now.getTime()), at: now, task: parsed.taskId };
      const evaluation = decideStored(this.sqlite, teamId, input, settings, options, stamp);
      if (options.record !== false) this.write(teamId, evaluationRows(evaluation, parsed, settings));
      return evaluation;
    };
    // The memo lets `evaluationRows` reuse the contract parse `decide` made of the same input.
    const evaluation = withParseMemo(() =>
      options.record === false ? run() : this.sqlite.transaction(run).immediate(),
    );
    return { evaluation, settings, recorded: options.record !== false };
  }

  /**
   * The same as `evaluate`, with a large evaluation decided in a worker (gates-pool.ts) so the event loop only
   * writes: the worker reads history and decides over its own connection, and the rows are
   * written here in an IMMEDIATE transaction when the history version it read is unchanged. Otherwise it decides
   * again from fresh history, at most WORKER_ATTEMPTS times, then here inside the transaction as `evaluate` does.
   * Small evaluations, an in-memory database, and the options a worker cannot take (functions, caches, a file
   * ledger, nothing recorded) stay on the loop.
   */
  async evaluateOffLoop(
    teamId: string,
    input: unknown,
    options: EvaluateOptions,
    pool: GatesPool = gatesPool,
  ): Promise<{ evaluation: Evaluation; settings: Settings; recorded: boolean }> {
    const mode = options.decideIn ?? "auto";
    const offload =
      mode !== "loop" &&
      pool.usable &&
      !this.sqlite.memory &&
      this.walFile() &&
      options.record !== false &&
      options.watchCache === undefined &&
      options.pathExists === undefined &&
      (options.extraLedger ?? []).length === 0 &&
      options.resolveLedger !== false &&
      (mode === "worker" || claimCount(input) >= LARGE_COUNT);
    if (!offload) return this.evaluate(teamId, input, options);
    // Invalid settings are refused here, as `evaluate` refuses them, before any work is posted.
    const settings = mergeSettings(options.settings ?? DEFAULT_SETTINGS, splitEvaluationInput(input).settings);
    const datums = [...(options.datums ?? [])];
    for (let attempt = 0; attempt < WORKER_ATTEMPTS; attempt++) {
      const now = options.clock.now();
      const job = {
        file: this.sqlite.name,
        teamId,
        input,
        settings,
        datums,
        id: newId(now.getTime()),
        at: now.getTime(),
      };
      const answer = await pool.decide(job).catch(() => null);
      if (answer === null) break;
      const written = this.sqlite
        .transaction(() => {
          if (historyVersion(this.sqlite, teamId, answer.evaluation.task) !== answer.version) return false;
          this.write(teamId, answer.rows);
          return true;
        })
        .immediate();
      if (written) return { evaluation: answer.evaluation, settings, recorded: true };
    }
    return this.evaluate(teamId, input, options);
  }

  /**
   * Whether the file is in WAL mode (every file openDb opens is): only then does the worker's read transaction leave
   * the writer alone; in a rollback journal it would hold a shared lock the loop's write would wait on.
   */
  private walFile(): boolean {
    this.wal ??= this.sqlite.pragma("journal_mode", { simple: true }) === "wal";
    return this.wal;
  }

  /** Writes the rows an evaluation produces (common/evaluation-rows.ts): the run, its source links, its keyed claims. */
  private write(teamId: string, rows: EvaluationRows): void {
    const [id, task, ...rest] = rows.run;
    const at = rows.run[7];
    this.s.insertRun.run(id, teamId, task, ...rest);
    // The run, its sources and its keyed claims are chained in one append, in that order: one head read and write
    // and a few multi-row entry INSERTs for a largest evaluation, instead of one of each per row.
    const chained: [ChainTableName, RowKey][] = [["runs", id]];
    for (const columns of rows.sources) {
      const info = this.s.insertSource.run(id, teamId, task, ...columns, at);
      chained.push(["evaluation_sources", info.lastInsertRowid]);
    }
    if (task === null || rows.claims.length === 0) {
      sqliteChain(this.sqlite).appendRows(teamId, chained);
      return;
    }
    const released = rows.released ? 1 : 0;
    const rowIds = this.claimRows.insert(
      rows.claims.map((c) => [
        id,
        teamId,
        task,
        c.key,
        c.value,
        c.text,
        c.claimId,
        c.runIndex,
        released,
        c.supersedes,
        at,
      ]),
    );
    const stored = rows.claims.map((c, i) => {
      const rowId = rowIds[i]!;
      chained.push(["run_claims", rowId]);
      return { ...c, rowId };
    });
    sqliteChain(this.sqlite).appendRows(teamId, chained);
    if (rows.released) this.summarise(teamId, task, id, at, stored, rows.restartedKeys);
  }

  /**
   * Keeps run_key_values equal to what PRIOR_RUN_CLAIMS_SQL derives from run_claims: a key whose claim in this
   * released run names `supersedes` starts its history afresh at this run; every value is merged into its row.
   */
  private summarise(
    teamId: string,
    task: string,
    runId: string,
    at: string,
    stored: readonly { key: string; value: string; claimId: string | null; text: string; rowId: number }[],
    restarted: Iterable<string>,
  ): void {
    for (const key of restarted) this.s.restartKey.run(teamId, task, key);
    this.keyValueRows.insert(
      stored.map((c) => [teamId, task, c.key, c.value, c.claimId ?? "", c.rowId, runId, c.text, at]),
    );
  }

  /** One stored evaluation, or 404. */
  get(teamId: string, id: string): StoredEvaluation {
    const r = this.s.get.get(teamId, id) as RawRun | undefined;
    if (!r) throw new NotFoundError(`no evaluation '${id}'`);
    return storedEvaluation(r);
  }

  /** A page of evaluations, newest first, filtered by task, status and a `since` time. */
  list(
    teamId: string,
    filter: {
      task?: string;
      status?: "released" | "blocked";
      since?: string;
      limit: number;
      before?: readonly [string, string] | null;
    },
  ): { items: EvaluationSummary[]; next_cursor: readonly [string, string] | null } {
    const rows = (filter.task === undefined ? this.s.list : this.s.listByTask).all({
      team: teamId,
      ...(filter.task === undefined ? {} : { task: filter.task }),
      status: filter.status ?? null,
      since: filter.since ?? null,
      before_at: filter.before?.[0] ?? null,
      before_id: filter.before?.[1] ?? null,
      limit: filter.limit + 1,
    }) as RawRun[];
    const items = rows.slice(0, filter.limit).map(evaluationSummary);
    const last = items[items.length - 1];
    return { items, next_cursor: rows.length > filter.limit && last ? [last.created_at, last.id] : null };
  }
}

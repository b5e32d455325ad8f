// Graded harness runs (bench_runs) on PostgreSQL: the same rows and order as ../bench-runs.ts.
import type pg from "pg";
import { ConflictError, NotFoundError } from "../common/errors.js";
import { isPgUniqueViolation, queryOn } from "./tx.js";
import type { BenchRun, LabelFilter } from "../model.js";
import { BENCH_RUN_COLUMNS } from "../common/bench-runs.js";
import type { BenchRunsRepo } from "../port.js";

const COLUMNS = BENCH_RUN_COLUMNS;

/** The harness runs of a PostgreSQL ledger; every method is scoped to a team. */
export class PgBenchRuns implements BenchRunsRepo {
  constructor(private readonly pool: pg.Pool) {}

  /** Stores a run's grading beside its session (once: a session holds one run). */
  async insert(teamId: string, run: BenchRun): Promise<void> {
    const state = await this.sessionState(teamId, run.session_id);
    if (state === "missing")
      throw new NotFoundError(`no session '${run.session_id}' in this team; open it with POST /v1/sessions first`);
    if (state === "taken")
      throw new ConflictError(`session '${run.session_id}' already holds a harness run; a run is stored once`);
    const row: Record<string, unknown> = { ...run, derived: JSON.stringify(run.derived) };
    try {
      await queryOn(this.pool)(
        `INSERT INTO bench_runs (team_id, ${COLUMNS.join(", ")}) VALUES ($1, ${COLUMNS.map((_, i) => `$${i + 2}`).join(", ")})`,
        [teamId, ...COLUMNS.map((c) => row[c] ?? null)],
      );
    } catch (e) {
      // Another instance stored this session's run between the check and the insert.
      if (isPgUniqueViolation(e))
        throw new ConflictError(`session '${run.session_id}' already holds a harness run; a run is stored once`);
      throw e;
    }
  }

  /** The team's runs whose sessions carry every label, oldest first; `batch` narrows to one batch. */
  async list(teamId: string, f: { labels?: readonly LabelFilter[]; batch?: string } = {}): Promise<BenchRun[]> {
    const where = ["r.team_id = $1"];
    const params: unknown[] = [teamId];
    if (f.batch !== undefined) {
      params.push(f.batch);
      where.push(`r.batch = $${params.length}`);
    }
    for (const l of f.labels ?? []) {
      params.push(l.key, l.value);
      where.push(
        `EXISTS (SELECT 1 FROM session_labels l WHERE l.session_id = r.session_id AND l.key = $${params.length - 1} AND l.value = $${params.length})`,
      );
    }
    const rows = await queryOn(this.pool)<BenchRun & { derived: string }>(
      `SELECT ${COLUMNS.map((c) => `r.${c}`).join(", ")} FROM bench_runs r WHERE ${where.join(" AND ")} ORDER BY r.created_at, r.session_id`,
      params,
    );
    return rows.map((r) => ({ ...r, derived: JSON.parse(r.derived) as Record<string, unknown> }));
  }

  /** Whether the session exists in the team and has no run yet. */
  async sessionState(teamId: string, sessionId: string): Promise<"missing" | "free" | "taken"> {
    const q = queryOn(this.pool);
    const s = await q("SELECT 1 FROM sessions WHERE id = $1 AND team_id = $2", [sessionId, teamId]);
    if (s.length === 0) return "missing";
    return (await q("SELECT 1 FROM bench_runs WHERE session_id = $1", [sessionId])).length > 0 ? "taken" : "free";
  }
}

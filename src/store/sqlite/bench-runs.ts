// Graded evaluation-harness runs, one row beside each run's ledger session (table bench_runs).
import type { Database, Statement } from "better-sqlite3";
import { ConflictError, NotFoundError } from "../common/errors.js";
import type { BenchRun, LabelFilter } from "../model.js";
import { BENCH_RUN_COLUMNS } from "../common/bench-runs.js";
import type { BenchRunsRepo } from "../port.js";

type Raw = Omit<BenchRun, "audit_flagged" | "undetected" | "silent_error" | "derived"> & {
  audit_flagged: number;
  undetected: number;
  silent_error: number;
  derived: string;
};

const toRun = (r: Raw): BenchRun => ({
  ...r,
  audit_flagged: r.audit_flagged === 1,
  undetected: r.undetected === 1,
  silent_error: r.silent_error === 1,
  derived: JSON.parse(r.derived) as Record<string, unknown>,
});

/** Repository of graded harness runs; every method is scoped to a team. */
export class BenchRunStore {
  private readonly insertStmt: Statement;

  constructor(private readonly sqlite: Database) {
    this.insertStmt = sqlite.prepare(
      `INSERT INTO bench_runs (team_id, ${BENCH_RUN_COLUMNS.join(", ")}) VALUES (?, ${BENCH_RUN_COLUMNS.map(() => "?").join(", ")})`,
    );
  }

  /** Stores a run's grading beside its session (once: a session holds one run). */
  insert(teamId: string, run: BenchRun): void {
    const row: Record<string, unknown> = {
      ...run,
      audit_flagged: run.audit_flagged ? 1 : 0,
      undetected: run.undetected ? 1 : 0,
      silent_error: run.silent_error ? 1 : 0,
      derived: JSON.stringify(run.derived),
    };
    this.insertStmt.run(teamId, ...BENCH_RUN_COLUMNS.map((c) => row[c] ?? null));
  }

  /** The team's runs whose sessions carry every label, oldest first; `batch` narrows to one batch. */
  list(teamId: string, f: { labels?: readonly LabelFilter[]; batch?: string } = {}): BenchRun[] {
    const where = ["r.team_id = ?"];
    const params: unknown[] = [teamId];
    if (f.batch !== undefined) {
      where.push("r.batch = ?");
      params.push(f.batch);
    }
    for (const l of f.labels ?? []) {
      where.push(
        "EXISTS (SELECT 1 FROM session_labels l WHERE l.session_id = r.session_id AND l.key = ? AND l.value = ?)",
      );
      params.push(l.key, l.value);
    }
    const sql =
      `SELECT ${BENCH_RUN_COLUMNS.map((c) => `r.${c}`).join(", ")} FROM bench_runs r ` +
      `WHERE ${where.join(" AND ")} ORDER BY r.created_at, r.session_id`;
    return (this.sqlite.prepare(sql).all(...params) as Raw[]).map(toRun);
  }

  /** Whether the session exists in the team and has no run yet (a run is stored once per session). */
  sessionState(teamId: string, sessionId: string): "missing" | "free" | "taken" {
    const s = this.sqlite.prepare("SELECT 1 FROM sessions WHERE id = ? AND team_id = ?").get(sessionId, teamId);
    if (!s) return "missing";
    return this.sqlite.prepare("SELECT 1 FROM bench_runs WHERE session_id = ?").get(sessionId) ? "taken" : "free";
  }
}

/** The BenchRunsRepo of a SQLite store. */
export function sqliteBenchRuns(sqlite: Database): BenchRunsRepo {
  const runs = new BenchRunStore(sqlite);
  return {
    insert: async (teamId, run) => {
      const state = runs.sessionState(teamId, run.session_id);
      if (state === "missing")
        throw new NotFoundError(`no session '${run.session_id}' in this team; open it with POST /v1/sessions first`);
      if (state === "taken")
        throw new ConflictError(`session '${run.session_id}' already holds a harness run; a run is stored once`);
      runs.insert(teamId, run);
    },
    list: async (teamId, filter) => runs.list(teamId, filter),
  };
}

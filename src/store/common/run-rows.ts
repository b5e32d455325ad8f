// A stored evaluation as both engines read it back: the run row, its report and input kept as JSON text.
import { type Result, splitEvaluationInput } from "../../gates/contracts.js";
import type { SourceLink } from "../../gates/ledger-evidence.js";
import type { Decision } from "../../gates/decision.js";
import type { Settings } from "../../gates/settings.js";
import type { EvaluationSummary, StoredEvaluation } from "../model.js";

/** A run row as stored. */
export type RawRun = {
  id: string;
  task: string | null;
  status: "released" | "blocked";
  overall_score: number;
  report: string;
  input: string;
  settings: string | null;
  created_at: string;
};

/** The task id the input names, when it names one as a string (kept even when the contract fails, for listing). */
export function taskIdOf(input: unknown): string | null {
  return taskIdOfTask(splitEvaluationInput(input).task);
}

/** The id of an input's `task` (as splitEvaluationInput gives it), when it is a non-blank string. */
export function taskIdOfTask(given: unknown): string | null {
  const task = given as { id?: unknown } | undefined;
  return task && typeof task.id === "string" && task.id.trim() !== "" ? task.id : null;
}

/** A stored run as GET /v1/evaluations/{id} answers it. */
export function storedEvaluation(r: RawRun): StoredEvaluation {
  const report = JSON.parse(r.report) as Decision;
  return {
    id: r.id,
    task: r.task,
    created_at: r.created_at,
    ...report,
    // Reports stored before sources existed have none.
    sources: (report as Partial<Decision>).sources ?? [],
    input: JSON.parse(r.input) as unknown,
    settings: r.settings === null ? null : (JSON.parse(r.settings) as Settings),
  };
}

/** A stored run as a list row (the report is read for blocked_by only). */
export function evaluationSummary(r: Omit<RawRun, "input" | "settings">): EvaluationSummary {
  const d = JSON.parse(r.report) as Decision;
  return {
    id: r.id,
    task: r.task,
    status: r.status,
    blocked_by: d.blocked_by,
    overall_score: r.overall_score,
    created_at: r.created_at,
  };
}

/** One source link's stored columns, run through match, in the evaluation_sources column order of both engines. */
export function sourceColumns(l: SourceLink, runs: readonly Result[]) {
  const run = runs[(l.run ?? 1) - 1];
  const text = l.claim_id === null ? "" : (run?.claims.find((c) => c.id === l.claim_id)?.text ?? "");
  return [
    l.run ?? 1,
    l.claim_id,
    text,
    l.locator,
    l.status,
    l.crossing_id,
    l.session_id,
    l.seq,
    l.tool,
    l.value,
    l.unit,
    l.quality,
    l.observed_at,
    l.match,
  ] as const;
}

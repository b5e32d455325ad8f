// The rows an evaluation writes, computed once from the decided evaluation and its input (pure: no I/O, so it can run
// anywhere, a worker thread included); each engine only writes them, in its own SQL, in the evaluation's transaction.
import { type ContractVerdict, contractGate } from "../../gates/contract.js";
import { splitEvaluationInput } from "../../gates/contracts.js";
import { keyedClaims } from "../../gates/contradiction.js";
import type { Settings } from "../../gates/settings.js";
import type { Evaluation } from "../model.js";
import { sourceColumns, taskIdOfTask } from "./run-rows.js";

/** One keyed claim of a run, as run_claims stores it (value and supersedes as JSON text). */
export type RunClaimRow = {
  key: string;
  value: string;
  text: string;
  claimId: string | null;
  /** 1-based position of the run in the input. */
  runIndex: number;
  /** The ids the claim supersedes as JSON, or null when it names none. */
  supersedes: string | null;
};

/** Everything an evaluation writes besides its team: the run row, its source links and its keyed claims. */
export type EvaluationRows = {
  /** runs: id, task, status, overall_score, report, input, settings, created_at. */
  run: readonly [string, string | null, Evaluation["status"], number, string, string, string, string];
  /** evaluation_sources (a released evaluation's links to the sources its claims cite), in report order. */
  sources: ReturnType<typeof sourceColumns>[];
  /** run_claims (a task with an id whose input meets the contract), in run and claim order. */
  claims: RunClaimRow[];
  /** Keys whose claim in this released run names `supersedes`: their history starts afresh at this run. */
  restartedKeys: string[];
  released: boolean;
};

/** An evaluation's input split and checked against the result contract once, for every step of the store that reads it. */
export type ParsedEvaluation = {
  input: unknown;
  /** The input's own settings, merged over the store's base settings by the caller. */
  settings: unknown;
  /** The task id the input names (kept even when the contract fails, for listing), or null. */
  taskId: string | null;
  contract: ContractVerdict;
};

/** Splits an evaluation's input and runs the contract gate over it, once. */
export function parseEvaluation(input: unknown): ParsedEvaluation {
  const raw = splitEvaluationInput(input);
  return { input, settings: raw.settings, taskId: taskIdOfTask(raw.task), contract: contractGate(raw) };
}

/** The rows of a decided evaluation, from its input as parseEvaluation split and checked it. */
export function evaluationRows(e: Evaluation, parsed: ParsedEvaluation, settings: Settings): EvaluationRows {
  const { input, contract } = parsed;
  const { id, task, created_at: at, ...decision } = e;
  const run = [
    id,
    task,
    e.status,
    e.overall_score,
    JSON.stringify(decision),
    JSON.stringify(input),
    JSON.stringify(settings),
    at,
  ] as const;
  const released = e.status === "released";
  if (!contract.ok) return { run, sources: [], claims: [], restartedKeys: [], released };
  const sources = released ? e.sources.map((l) => sourceColumns(l, contract.runs)) : [];
  if (task === null) return { run, sources, claims: [], restartedKeys: [], released };
  const claims: RunClaimRow[] = [];
  contract.runs.forEach((r, i) => {
    // The same claims claimsToRecord gives, with what each names in supersedes (which retires earlier values).
    for (const c of keyedClaims(r)) {
      const named =
        c.supersedes === undefined || c.supersedes === null
          ? []
          : Array.isArray(c.supersedes)
            ? c.supersedes
            : [c.supersedes];
      claims.push({
        key: c.key,
        value: JSON.stringify(c.value ?? null),
        text: c.text,
        claimId: c.id ?? null,
        runIndex: i + 1,
        supersedes: named.length > 0 ? JSON.stringify(named) : null,
      });
    }
  });
  const restartedKeys = [...new Set(claims.filter((c) => c.supersedes !== null).map((c) => c.key))];
  return { run, sources, claims, restartedKeys, released };
}

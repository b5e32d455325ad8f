// A batch: every (task, condition, model, replicate) cell run once as a ledger session, graded and stored beside it,
// a concurrency limit at a time; cells already stored in the batch (with an outcome other than `error`) are skipped.
import { deriveLabels } from "./derived.js";
import { gradeAnswer } from "./grade.js";
import type { HarnessLedger } from "./ledger.js";
import { runAgent } from "./loop.js";
import type { Progress } from "./progress.js";
import type { ModelProvider } from "./providers/types.js";
import { CONDITIONS, type Condition, type Task, type TaskData } from "./suites.js";
import { definitionsOf, taskDatums } from "./tools.js";
import { DatumRegistry } from "../quantity/datums.js";
import { convertMagnitude } from "../quantity/units.js";
import type { BenchRun } from "../store/model.js";

/** One run to make. */
export type Cell = { task: Task; condition: Condition; model: string; replicate: number; recordedId?: string };

/** How a batch runs. */
export type BatchOptions = {
  batch: string;
  cells: readonly Cell[];
  data: TaskData;
  provider: ModelProvider;
  ledger: HarnessLedger;
  concurrency: number;
  maxTurns: number;
  maxTokens: number;
  progress?: Progress;
  now?: () => Date;
};

/** What a batch did. */
export type BatchResult = {
  /** Runs made now, in cell order. */
  runs: BenchRun[];
  /** Cells skipped because the batch already holds them. */
  skipped: number;
  /** Why the batch stopped early (the provider is unreachable or refuses every request), or null. */
  stopped: string | null;
};

/** The key a cell is stored under within a batch. */
export const cellKey = (c: {
  task: string;
  condition: string;
  model: string;
  replicate: number;
  recorded_id?: string | null;
}) => [c.task, c.condition, c.model, c.replicate, c.recorded_id ?? ""].join("\u0000");

/** The model's datum registry for schemas: built-ins plus the task datums and offsets. */
function schemaRegistry(data: TaskData): DatumRegistry {
  const d = taskDatums(data);
  return new DatumRegistry(
    d.datums,
    d.offsets.map((o) => ({ from: o.from, to: o.to, offsetM: convertMagnitude(o.value, o.unit, "m"), source: null })),
  );
}

/** Grades a transcript into the stored run. */
function graded(
  cell: Cell,
  batch: string,
  sessionId: string,
  data: TaskData,
  t: Awaited<ReturnType<typeof runAgent>>,
  audit: { ok: boolean; unsourced: number; mislabelled: number } | null,
  now: Date,
): BenchRun {
  const g = t.error === null && !t.blocked ? gradeAnswer(cell.task, t.answer) : null;
  const outcome = t.error !== null ? "error" : t.blocked ? "blocked" : g!.outcome;
  const stated = g?.stated ?? null;
  const undetected = outcome === "wrong" && !!stated && !/unavailable/i.test(stated) && t.violations === 0;
  const flagged = audit !== null && !audit.ok;
  const last = t.calls.at(-1);
  const detail =
    t.error ?? (t.blocked ? `blocked: ${last?.error?.code ?? "violation"} on ${last?.tool ?? "a call"}` : g!.detail);
  return {
    session_id: sessionId,
    batch,
    suite: cell.task.suite,
    task: cell.task.name,
    condition: cell.condition,
    model: cell.model,
    replicate: cell.replicate,
    recorded_id: cell.recordedId ?? null,
    outcome,
    stated,
    detail,
    violations: t.violations,
    audit_unsourced: audit?.unsourced ?? 0,
    audit_mislabelled: audit?.mislabelled ?? 0,
    audit_flagged: flagged,
    undetected,
    silent_error: undetected && !flagged,
    tool_calls: t.calls.length,
    turns: t.turns,
    prompt_tokens: t.usage.prompt,
    completion_tokens: t.usage.completion,
    derived: deriveLabels(cell.task, data, t.calls, outcome === "wrong" ? (g?.ratio ?? null) : null),
    answer: t.answer,
    error: t.error,
    created_at: now.toISOString(),
  };
}

const offered = new WeakMap<DatumRegistry, Map<string, ReturnType<typeof definitionsOf>>>();

/** The tools a cell's model is offered, compiled once per task and condition. */
function definitions(cell: Cell, registry: DatumRegistry): ReturnType<typeof definitionsOf> {
  let m = offered.get(registry);
  if (!m) offered.set(registry, (m = new Map()));
  const key = `${cell.task.name}\u0000${cell.condition}`;
  let d = m.get(key);
  if (!d) m.set(key, (d = definitionsOf(cell.task, cell.condition, registry)));
  return d;
}

/** Runs one cell as a session of its own, and stores its grading. */
async function runCell(
  o: BatchOptions,
  cell: Cell,
  registry: DatumRegistry,
): Promise<{ run: BenchRun; stopsBatch: boolean }> {
  const labels: Record<string, string> = {
    "bench.suite": cell.task.suite,
    "bench.task": cell.task.name,
    "bench.condition": cell.condition,
    "bench.model": cell.model.slice(0, 256),
    "bench.replicate": String(cell.replicate),
    "bench.batch": o.batch,
  };
  if (cell.recordedId) labels["bench.recorded"] = cell.recordedId;
  const enforce = CONDITIONS[cell.condition].enforce;
  const sessionId = await o.ledger.openSession(cell.task.question, enforce ? "enforce" : "warn", labels);
  const t = await runAgent({
    task: cell.task,
    condition: cell.condition,
    model: cell.model,
    data: o.data,
    provider: o.provider,
    ledger: o.ledger,
    sessionId,
    tools: definitions(cell, registry),
    maxTurns: o.maxTurns,
    maxTokens: o.maxTokens,
    run: {
      task: cell.task.name,
      condition: cell.condition,
      model: cell.model,
      replicate: cell.replicate,
      recordedId: cell.recordedId,
    },
  });
  // The audit ran only on runs that reached a final answer (README section 2).
  const audit = t.answer !== null && t.error === null && !t.blocked ? await o.ledger.audit(sessionId, t.answer) : null;
  const run = graded(cell, o.batch, sessionId, o.data, t, audit, (o.now ?? (() => new Date()))());
  await o.ledger.saveRun(run);
  return { run, stopsBatch: t.stopsBatch };
}

/** Runs every cell the batch does not hold yet, `concurrency` at a time; stops starting runs when the provider is gone. */
export async function runBatch(o: BatchOptions): Promise<BatchResult> {
  const t = taskDatums(o.data);
  await o.ledger.prepare(t.datums, t.offsets);
  const stored = await o.ledger.listRuns({ batch: o.batch });
  const done = new Set(stored.filter((r) => r.outcome !== "error").map(cellKey));
  const todo = o.cells.filter((c) => !done.has(cellKey({ ...c, task: c.task.name, recorded_id: c.recordedId })));
  const registry = schemaRegistry(o.data);
  const results: (BenchRun | undefined)[] = new Array(todo.length);
  let next = 0;
  let stopped: string | null = null;
  const worker = async () => {
    while (stopped === null && next < todo.length) {
      const i = next++;
      const cell = todo[i]!;
      const { run, stopsBatch } = await runCell(o, cell, registry);
      results[i] = run;
      o.progress?.tick(run.outcome, `${cell.task.name} ${cell.condition} ${cell.model} r${cell.replicate}`);
      if (stopsBatch && stopped === null) stopped = run.error;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, todo.length)) }, worker));
  if (stopped !== null) o.progress?.end();
  return {
    runs: results.filter((r): r is BenchRun => r !== undefined),
    skipped: o.cells.length - todo.length,
    stopped,
  };
}

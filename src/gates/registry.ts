// Hooks and reviewers (library API), evaluation with them, and `gate(agent, { repeats })` for in-process use.
import type { ReviewOutcome } from "./adversarial.js";
import { contractGate } from "./contract.js";
import {
  ResultSchema,
  SEVERITIES,
  TaskSchema,
  splitEvaluationInput,
  type Finding,
  type Result,
  type Severity,
  type Task,
} from "./contracts.js";
import { blockedBeforeRun, conclude, decide, type DecideOptions } from "./decide.js";
import type { Decision } from "./decision.js";
import { GATE_NAMES, skipped, type GateName, type GateOutcome } from "./outcome-kit.js";
import { DEFAULT_SETTINGS } from "./settings.js";

/** A finding as a hook may write it: severity defaults to `error`. */
export interface HookFinding {
  code: string;
  message: string;
  severity?: Severity;
}
type Awaitable<T> = T | Promise<T>;
/** Runs before the agent; an error finding stops the agent from running. */
export type PreRunHook = (task: Task) => Awaitable<HookFinding[]>;
/** Runs after each run; its findings feed the adversarial gate. */
export type PostRunHook = (task: Task, result: Result) => Awaitable<HookFinding[]>;
/** A reviewer (deterministic or model-based) may only add objections; it can never turn a blocked gate into a pass. */
export type Reviewer = (task: Task, result: Result) => Awaitable<HookFinding[]>;

interface Named<F> {
  name: string;
  fn: F;
}

/** Hooks and reviewers in registration order. Each `add*` returns the function, so it reads well as a wrapper. */
export class HookRegistry {
  readonly preRun: Named<PreRunHook>[] = [];
  readonly postRun: Named<PostRunHook>[] = [];
  readonly reviewers: Named<Reviewer>[] = [];

  /** Registers a hook that runs on the task before the agent. */
  addPreRun<F extends PreRunHook>(fn: F, name = fn.name || `pre_run_${this.preRun.length + 1}`): F {
    this.preRun.push({ name, fn });
    return fn;
  }

  /** Registers a hook that runs on each result after the agent. */
  addPostRun<F extends PostRunHook>(fn: F, name = fn.name || `post_run_${this.postRun.length + 1}`): F {
    this.postRun.push({ name, fn });
    return fn;
  }

  /** Registers a reviewer whose objections feed the adversarial gate. */
  addReviewer<F extends Reviewer>(fn: F, name = fn.name || `reviewer_${this.reviewers.length + 1}`): F {
    this.reviewers.push({ name, fn });
    return fn;
  }
}

function toFindings(out: unknown, name: string): Finding[] {
  if (!Array.isArray(out))
    throw new TypeError(`returned ${out === null ? "null" : typeof out}, not a list of findings`);
  return out.map((f: unknown) => {
    const o = f as Partial<HookFinding> | null;
    if (o === null || typeof o !== "object" || typeof o.code !== "string" || typeof o.message !== "string") {
      throw new TypeError("returned an item without a string code and message");
    }
    const severity =
      o.severity !== undefined && (SEVERITIES as readonly string[]).includes(o.severity) ? o.severity : "error";
    return { code: o.code, message: `${o.message} (${name})`, severity };
  });
}

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Runs the pre-run hooks in order; a hook that throws or answers nonsense yields HOOK_ERROR (fail closed). */
export async function runPreRun(registry: HookRegistry, task: Task): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const h of registry.preRun) {
    try {
      out.push(...toFindings(await h.fn(task), h.name));
    } catch (e) {
      out.push({
        code: "HOOK_ERROR",
        message: `The pre-run hook "${h.name}" failed: ${reason(e)}.`,
        severity: "error",
      });
    }
  }
  return out;
}

/** Runs post-run hooks and reviewers on every run, one after another, capturing failures as data. */
export async function collectReviews(
  registry: HookRegistry,
  task: Task,
  runs: readonly Result[],
): Promise<ReviewOutcome[][]> {
  const all: ReviewOutcome[][] = [];
  for (const run of runs) {
    const outcomes: ReviewOutcome[] = [];
    const steps = [
      ...registry.postRun.map((h) => ({ ...h, kind: "post_run" as const })),
      ...registry.reviewers.map((h) => ({ ...h, kind: "reviewer" as const })),
    ];
    for (const s of steps) {
      try {
        outcomes.push({ name: s.name, kind: s.kind, findings: toFindings(await s.fn(task, run), s.name) });
      } catch (e) {
        outcomes.push({ name: s.name, kind: s.kind, findings: [], error: reason(e) });
      }
    }
    all.push(outcomes);
  }
  return all;
}

/** Options of `evaluate` and `gate`: the decision's options plus the hook registry. */
export interface EvaluateOptions extends Omit<DecideOptions, "reviews"> {
  registry?: HookRegistry;
}

/** Evaluates any input shape with post-run hooks and reviewers (not pre-run hooks: the agent already ran). */
export async function evaluate(input: unknown, options: EvaluateOptions = {}): Promise<Decision> {
  const { registry, ...rest } = options;
  if (!registry) return decide(input, rest);
  const contract = contractGate(splitEvaluationInput(input));
  const reviews = contract.ok ? await collectReviews(registry, contract.task, contract.runs) : [];
  return decide(input, { ...rest, reviews });
}

/** Thrown by a gated agent whose release is blocked; `report` holds the full decision. */
export class ReleaseBlocked extends Error {
  readonly code = "release_blocked";
  readonly report: Decision;
  constructor(report: Decision) {
    super(`Release blocked by ${report.blocked_by.join(", ")} (overall score ${report.overall_score}).`);
    this.name = "ReleaseBlocked";
    this.report = report;
  }
}

/** Options of `gate`. */
export interface GateOptions extends EvaluateOptions {
  /** How many times the agent runs; the runs are compared for stability. Default 1. */
  repeats?: number;
}

function taskBlocked(task: unknown): Decision {
  const contract = contractGate({ task, runs: [], settings: undefined, findings: [] });
  const gates = Object.fromEntries(
    GATE_NAMES.map((g) => [g, skipped("Not evaluated: the task does not match the contract.")]),
  ) as Record<GateName, GateOutcome>;
  gates.contract = contract.outcome;
  return conclude(gates, DEFAULT_SETTINGS);
}

/**
 * Wraps an agent: pre-run hooks, then `repeats` runs one after another, then the decision.
 * Returns the first run's result when released; throws ReleaseBlocked carrying the full report otherwise.
 * An agent that throws is a crash, not a verdict: its error propagates unchanged.
 * @example const safe = gate(myAgent, { repeats: 3, history }); const result = await safe({ id: "weekly" });
 */
export function gate<T = unknown>(
  agent: (task: Task) => Awaitable<T>,
  options: GateOptions = {},
): (task?: unknown) => Promise<T> {
  const repeats = options.repeats ?? 1;
  if (!Number.isInteger(repeats) || repeats < 1)
    throw new RangeError(`repeats must be a whole number of at least 1; received ${repeats}.`);
  const { repeats: _r, ...evalOptions } = options;
  return async (rawTask: unknown = {}) => {
    const parsed = TaskSchema.safeParse(rawTask);
    if (!parsed.success) throw new ReleaseBlocked(taskBlocked(rawTask));
    const task = parsed.data;
    const pre = options.registry ? await runPreRun(options.registry, task) : [];
    if (pre.some((f) => f.severity === "error")) throw new ReleaseBlocked(blockedBeforeRun(pre));
    const results: T[] = [];
    for (let i = 0; i < repeats; i += 1) results.push(await agent(task));
    const decision = await evaluate({ task: rawTask, runs: results }, evalOptions);
    decision.findings.push(...pre);
    if (decision.status === "blocked") throw new ReleaseBlocked(decision);
    return results[0] as T;
  };
}

/** True when a value parses as a result (for callers that want to check an agent's answer before gating). */
export function isResult(value: unknown): value is Result {
  return ResultSchema.safeParse(value).success;
}

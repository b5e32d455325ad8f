// Test builders: a result that passes every gate, and variations of it.
import { ResultSchema, TaskSchema, type Result, type Task } from "../../src/gates/contracts.js";
import { DEFAULT_SETTINGS, mergeSettings, type PartialSettings, type Settings } from "../../src/gates/settings.js";

const TESTS = ["paired t", "Wilcoxon signed-rank", "sign"];

/** A result every gate passes: sourced verified fact, naive comparison with three tests, reasoned recommendation. */
export function goodInput(): Record<string, unknown> {
  return {
    output: "The thompson scheduler beats uniform rotation by +3.94x on fund multiple.",
    claims: [
      {
        id: "F1",
        kind: "fact",
        text: "Thompson improves fund multiple by +3.94x over uniform rotation.",
        key: "thompson gain",
        value: "+3.94x",
        source: "runs/2026-08-06/RUN_REPORT.md:24",
        confidence: 0.9,
        verified: true,
        sample_size: 40,
        tests: [...TESTS],
      },
      {
        id: "R1",
        kind: "recommendation",
        text: "Adopt the thompson scheduler.",
        rationale: "It beats the naive uniform rotation baseline across 40 paired simulations.",
        based_on: ["F1"],
      },
    ],
    comparisons: [
      {
        subject: "thompson scheduler",
        baseline: "uniform rotation",
        baseline_kind: "naive",
        metric: "fund multiple",
        effect: "+3.94x",
        sample_size: 40,
        tests: [...TESTS],
      },
    ],
    exposed_controls: 5,
    required_decisions: 3,
    configuration_steps: 1,
  };
}

/** Parses a raw result (applying defaults), failing the test if it does not match the contract. */
export function result(raw: Record<string, unknown> = goodInput()): Result {
  return ResultSchema.parse(raw);
}

/** The good result with some fields replaced. */
export function withFields(fields: Record<string, unknown>): Result {
  return result({ ...goodInput(), ...fields });
}

/** A claim of the good result with fields replaced (index 0 = the fact F1, 1 = the recommendation R1). */
export function withClaim(index: number, fields: Record<string, unknown>): Result {
  const raw = goodInput();
  const claims = (raw.claims as Record<string, unknown>[]).map((c, i) => (i === index ? { ...c, ...fields } : c));
  return result({ ...raw, claims });
}

/** Parses a task with defaults. */
export function task(raw: Record<string, unknown> = {}): Task {
  return TaskSchema.parse(raw);
}

/** The defaults with some settings replaced. */
export function settings(partial: PartialSettings = {}): Settings {
  return mergeSettings(DEFAULT_SETTINGS, partial);
}

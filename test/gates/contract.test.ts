import { describe, expect, it } from "vitest";
import { contractGate } from "../../src/gates/contract.js";
import { ContractError, normaliseEvaluationInput, splitEvaluationInput } from "../../src/gates/contracts.js";
import { goodInput } from "./build.js";

const codes = (input: unknown): string[] => {
  const v = contractGate(splitEvaluationInput(input));
  return v.outcome.findings.map((f) => f.code);
};

describe("input shapes", () => {
  it("accepts a bare result, {task, result} and {task, runs} alike", () => {
    const bare = normaliseEvaluationInput(goodInput());
    const env = normaliseEvaluationInput({ task: { id: "t1" }, result: goodInput() });
    const runs = normaliseEvaluationInput({ task: { id: "t1" }, runs: [goodInput(), goodInput()] });
    expect(bare.runs).toHaveLength(1);
    expect(bare.task.id).toBe("");
    expect(env.task).toEqual({ id: "t1", objective: "", required_deliverables: [], required_keys: [], metadata: {} });
    expect(env.runs[0]?.claims[0]?.id).toBe("F1");
    expect(runs.runs).toHaveLength(2);
  });

  it("applies the result defaults", () => {
    const { runs } = normaliseEvaluationInput({ output: "done" });
    expect(runs[0]).toEqual({
      output: "done",
      claims: [],
      comparisons: [],
      exposed_controls: 0,
      required_decisions: 0,
      configuration_steps: 0,
      deliverables: {},
      metadata: {},
    });
  });

  it("throws ContractError with every violation for a bad result", () => {
    let caught: unknown;
    try {
      normaliseEvaluationInput({ result: { output: 3, sources: "x" } });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ContractError);
    expect((caught as ContractError).code).toBe("contract_invalid");
    expect((caught as ContractError).findings.map((f) => f.code).sort()).toEqual([
      "CONTRACT_INVALID_RESULT",
      "CONTRACT_UNKNOWN_FIELD",
    ]);
  });

  it("refuses an envelope with both result and runs, or with empty runs", () => {
    expect(codes({ result: goodInput(), runs: [goodInput()] })).toEqual(["CONTRACT_INVALID_RESULT"]);
    expect(codes({ runs: [] })).toEqual(["CONTRACT_INVALID_RESULT"]);
    expect(codes({ result: goodInput(), extra: 1 })).toEqual(["CONTRACT_INVALID_RESULT"]);
    expect(codes("just text")).toEqual(["CONTRACT_INVALID_RESULT"]);
  });
});

describe("contract gate", () => {
  it("passes a result that matches the contract with score 100", () => {
    const v = contractGate(splitEvaluationInput(goodInput()));
    expect(v.ok).toBe(true);
    expect(v.outcome).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks a result without output", () => {
    const v = contractGate(splitEvaluationInput({ claims: [] }));
    expect(v.outcome.status).toBe("blocked");
    expect(v.outcome.score).toBe(0);
    expect(v.outcome.findings.map((f) => f.code)).toEqual(["CONTRACT_INVALID_RESULT"]);
  });

  it("catches typos of field names (sources, baseline_knd) as unknown fields", () => {
    const raw = goodInput();
    const claims = raw.claims as Record<string, unknown>[];
    claims[0] = { ...claims[0], sources: "x" };
    const comparisons = raw.comparisons as Record<string, unknown>[];
    comparisons[0] = { ...comparisons[0], baseline_knd: "naive" };
    const v = contractGate(splitEvaluationInput(raw));
    expect(v.outcome.findings.map((f) => [f.code, f.message])).toEqual([
      [
        "CONTRACT_UNKNOWN_FIELD",
        "result.claims.0 has unknown field(s) `sources`; check the spelling against the contract.",
      ],
      [
        "CONTRACT_UNKNOWN_FIELD",
        "result.comparisons.0 has unknown field(s) `baseline_knd`; check the spelling against the contract.",
      ],
    ]);
  });

  it("reports wrong types, unknown kinds and out-of-range values with their own codes", () => {
    const raw = goodInput();
    const claims = raw.claims as Record<string, unknown>[];
    claims[0] = { ...claims[0], sample_size: "40", verified: "yes", confidence: 1.5 };
    claims[1] = { ...claims[1], kind: "opinion" };
    expect(codes(raw).sort()).toEqual([
      "CONTRACT_FIELD_TYPE",
      "CONTRACT_FIELD_TYPE",
      "CONTRACT_RANGE",
      "CONTRACT_UNKNOWN_KIND",
    ]);
    expect(codes({ output: "x", exposed_controls: -1 })).toEqual(["CONTRACT_RANGE"]);
  });

  it("reports duplicate ids, unknown based_on references and keys without values", () => {
    const raw = goodInput();
    const claims = raw.claims as Record<string, unknown>[];
    claims[1] = { ...claims[1], id: "F1", based_on: ["F9"], key: "choice" };
    expect(codes(raw)).toEqual(["CONTRACT_DUPLICATE_ID", "CONTRACT_UNKNOWN_REFERENCE", "CONTRACT_KEY_WITHOUT_VALUE"]);
  });

  it("requires the claim keys the task lists, compared after normalisation", () => {
    expect(codes({ task: { required_keys: ["Thompson  Gain"] }, result: goodInput() })).toEqual([]);
    expect(codes({ task: { required_keys: ["latency"] }, result: goodInput() })).toEqual([
      "CONTRACT_REQUIRED_KEY_MISSING",
    ]);
  });

  it("tags each finding with its run when several runs are sent", () => {
    const v = contractGate(splitEvaluationInput({ runs: [goodInput(), { output: 1 }] }));
    expect(v.outcome.findings).toEqual([
      {
        code: "CONTRACT_INVALID_RESULT",
        message: "result.output: Invalid input: expected string, received number.",
        severity: "error",
        run: 2,
      },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import type { PriorRunClaim } from "../../src/gates/ports.js";
import { stabilityGate, type StabilityHistory } from "../../src/gates/stability.js";
import { createValueMatcher, type QuantityComparer } from "../../src/gates/values.js";
import { result, settings } from "./build.js";

const same = createValueMatcher();
const none: StabilityHistory = { prior: [], demoted: [] };
const run = (claims: [string, unknown, Record<string, unknown>?][]) =>
  result({
    output: "x",
    claims: claims.map(([key, value, extra], i) => ({
      id: `C${i + 1}`,
      kind: "inference",
      text: `${key} is ${String(value)}`,
      key,
      value,
      rationale: "from the logs",
      ...extra,
    })),
  });
const prior = (runId: string, key: string, value: unknown, createdAt: string): PriorRunClaim => ({
  run_id: runId,
  key,
  value,
  text: "",
  created_at: createdAt,
});

describe("stability across the repeats of one evaluation", () => {
  it("passes the same value in other words", () => {
    const o = stabilityGate([run([["latency", "420 ms"]]), run([["Latency", "420ms"]])], settings(), none, same);
    expect(o).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks the same key with a different value as drift", () => {
    const o = stabilityGate([run([["latency", "420 ms"]]), run([["latency", "380 ms"]])], settings(), none, same);
    expect(o.status).toBe("blocked");
    expect(o.findings).toEqual([
      {
        code: "VALUE_DRIFT",
        severity: "error",
        message:
          'The key "latency" is "420 ms" in run 1 but "380 ms" in run 2; repeated runs must give the same value.',
      },
    ]);
  });

  it("is not_comparable (blocking, score 0) for repeats where one run has no keyed claims", () => {
    const o = stabilityGate([run([["latency", "420 ms"]]), run([])], settings(), none, same);
    expect(o).toEqual({
      status: "not_comparable",
      score: 0,
      findings: [
        {
          code: "NOT_COMPARABLE",
          severity: "error",
          message: "Not comparable: run(s) 2 of 2 have no keyed claims, so the repeats cannot be compared.",
        },
      ],
    });
  });

  it("is not_comparable, not stable, for repeats with no keyed claims at all: a run that cannot be measured has not passed", () => {
    const o = stabilityGate([run([]), run([])], settings(), none, same);
    expect(o).toEqual({
      status: "not_comparable",
      score: 0,
      findings: [
        {
          code: "NOT_COMPARABLE",
          severity: "error",
          message:
            "Not comparable: the result has no keyed claims (key and value), so its content cannot be compared across " +
            "its 2 runs; a run that cannot be measured has not passed. Give the claims that carry its figures a key and a value.",
        },
      ],
    });
  });

  it("is not_comparable for one run with no keyed claims when the task has earlier released runs", () => {
    const o = stabilityGate([run([])], settings(), { ...none, priorRuns: 3 }, same);
    expect(o.status).toBe("not_comparable");
    expect(o.score).toBe(0);
    expect(o.findings.map((f) => f.message)).toEqual([
      "Not comparable: the result has no keyed claims (key and value), so its content cannot be compared with the 3 " +
        "earlier released run(s) of this task; a run that cannot be measured has not passed. Give the claims that carry " +
        "its figures a key and a value.",
    ]);
  });

  it("is not_applicable, never passed, for one run with no keyed claims and nothing to measure it against", () => {
    const o = stabilityGate([run([])], settings(), none, same);
    expect(o).toEqual({
      status: "not_applicable",
      score: null,
      findings: [
        {
          code: "NOT_COMPARABLE",
          severity: "info",
          message:
            "Not comparable: the result has no keyed claims (key and value), so its content cannot be compared across " +
            "runs. It is not stable either: stability is not measured for it.",
        },
      ],
    });
    const required = stabilityGate([run([])], settings({ stability: { require_repeats: true } }), none, same);
    expect([required.status, required.score]).toEqual(["not_comparable", 0]);
  });

  it("warns when a key is missing from one repeat", () => {
    const o = stabilityGate(
      [
        run([
          ["a", 1],
          ["b", 2],
        ]),
        run([["a", 1]]),
      ],
      settings(),
      none,
      same,
    );
    expect(o.status).toBe("passed");
    expect(o.score).toBe(95);
    expect(o.findings.map((f) => f.message)).toEqual(['The key "b" is missing from run(s) 2 of 2.']);
  });

  it("has nothing to compare for one run without history, and is not_comparable when repeats are required", () => {
    expect(stabilityGate([run([["a", 1]])], settings(), none, same).status).toBe("not_applicable");
    expect(
      stabilityGate([run([["a", 1]])], settings({ stability: { require_repeats: true } }), none, same).status,
    ).toBe("not_comparable");
  });
});

describe("stability against earlier runs of the task", () => {
  const history = (values: unknown[]): StabilityHistory => ({
    prior: values.map((v, i) => prior(`RUN-${i + 1}`, "stage", v, `2026-0${i + 3}-01T00:00:00Z`)),
    demoted: [],
  });

  it("passes a value every earlier run agreed with, reworded", () => {
    expect(stabilityGate([run([["Stage", "17.10 FT"]])], settings(), history(["17.1 ft", "17.1ft"]), same).status).toBe(
      "passed",
    );
  });

  it("blocks drift against earlier runs, naming how many and the latest", () => {
    const o = stabilityGate(
      [run([["stage", "18.6 ft"]])],
      settings(),
      history(["17.1 ft", "17.1 ft", "18.6 ft"]),
      same,
    );
    expect(o.findings).toEqual([
      {
        code: "VALUE_DRIFT",
        severity: "error",
        message:
          'The key "stage" is "18.6 ft" now but was "17.1 ft" in 2 of 3 earlier run(s) of this task (latest: run RUN-2 at 2026-04-01T00:00:00Z). Correct it, or name the replaced claim in supersedes if the value has really changed.',
      },
    ]);
  });

  it("compares quantities physically: 5.212 m is not drift from 17.1 ft, another datum is", () => {
    const comparer: QuantityComparer = (a, b) => {
      const m = (v: unknown) => (v === "17.1 ft" || v === "5.212 m" ? 5.212 : v === "17.1 ft NGVD29" ? -1 : null);
      const x = m(a);
      const y = m(b);
      return x === null || y === null ? "not_quantities" : x === y ? "same" : "different";
    };
    const physical = createValueMatcher(comparer);
    expect(stabilityGate([run([["stage", "5.212 m"]])], settings(), history(["17.1 ft"]), physical).status).toBe(
      "passed",
    );
    expect(stabilityGate([run([["stage", "17.1 ft NGVD29"]])], settings(), history(["17.1 ft"]), physical).status).toBe(
      "blocked",
    );
  });

  it("does not count a value the ledger demoted as the value to keep", () => {
    const h: StabilityHistory = {
      ...history(["2.08x"]),
      demoted: [
        { id: "CLM-1", text: "gain 2.08x", key: "stage", value: "2.08x", reason: null, demoted_by: null, watch: null },
      ],
    };
    expect(stabilityGate([run([["stage", "0.66x"]])], settings(), h, same).status).toBe("not_applicable");
  });

  it("lets an explicitly superseding claim change the value, with a note", () => {
    const o = stabilityGate(
      [run([["stage", "18.6 ft", { supersedes: "CLM-9" }]])],
      settings(),
      history(["17.1 ft"]),
      same,
    );
    expect(o.status).toBe("passed");
    expect(o.findings.map((f) => [f.code, f.severity])).toEqual([["DRIFT_SUPERSEDED", "info"]]);
  });

  it("drops an earlier claim the result supersedes by its id", () => {
    const h: StabilityHistory = {
      prior: [{ ...prior("RUN-1", "stage", "17.1 ft", "2026-03-01T00:00:00Z"), claim_id: "S-OLD" }],
      demoted: [],
    };
    const r = result({
      output: "x",
      claims: [
        {
          id: "S-NEW",
          kind: "inference",
          text: "stage",
          key: "stage",
          value: "18.6 ft",
          rationale: "new gauge survey data",
        },
        { id: "N", kind: "inference", text: "note", rationale: "the old gauge reading was wrong", supersedes: "S-OLD" },
      ],
    });
    expect(stabilityGate([r], settings(), h, same).status).toBe("not_applicable");
  });
});

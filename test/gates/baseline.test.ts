import { describe, expect, it } from "vitest";
import { baselineGate, comparativePhrase } from "../../src/gates/baseline.js";
import { result, settings, withFields } from "./build.js";

const cmp = (fields: Record<string, unknown>) => ({
  subject: "thompson",
  baseline: "uniform rotation",
  baseline_kind: "naive",
  metric: "fund multiple",
  effect: "+3.94x",
  sample_size: 40,
  tests: ["a", "b"],
  ...fields,
});

describe("baseline gate", () => {
  it("passes a comparison against a named naive baseline", () => {
    expect(baselineGate(withFields({}), settings())).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks a result whose only comparison is against greedy (the 2.08x case)", () => {
    const o = baselineGate(
      withFields({ comparisons: [cmp({ baseline: "greedy", baseline_kind: "alternative" })] }),
      settings(),
    );
    expect(o.status).toBe("blocked");
    expect(o.score).toBe(50);
    expect(o.findings.map((f) => f.code)).toEqual(["NO_NAIVE_BASELINE"]);
  });

  it("passes a greedy-only comparison when baseline.require_naive is off", () => {
    const o = baselineGate(
      withFields({ comparisons: [cmp({ baseline: "greedy", baseline_kind: "alternative" })] }),
      settings({ baseline: { require_naive: false } }),
    );
    expect(o.status).toBe("passed");
  });

  it("blocks a baseline that names nothing, and does not count it as the naive one", () => {
    const o = baselineGate(withFields({ comparisons: [cmp({ baseline: "N/A" })] }), settings());
    expect(o.findings.map((f) => f.code)).toEqual(["BASELINE_NOT_NAMED", "NO_NAIVE_BASELINE"]);
    expect(o.findings[0]?.message).toBe(
      'Comparison 1 ("thompson") names the baseline "N/A", which names nothing; say what it was compared against, such as "uniform rotation" or "base rate".',
    );
  });

  it("warns when baseline_kind is not declared, costing the warning penalty", () => {
    const o = baselineGate(
      withFields({ comparisons: [cmp({}), cmp({ baseline: "greedy", baseline_kind: null })] }),
      settings(),
    );
    expect(o.status).toBe("passed");
    expect(o.score).toBe(95);
    expect(o.findings.map((f) => [f.code, f.severity])).toEqual([["BASELINE_KIND_MISSING", "warning"]]);
  });

  it("blocks a claimed win with no declared comparison", () => {
    const o = baselineGate(result({ output: "Our model outperforms the old one." }), settings());
    expect(o.status).toBe("blocked");
    expect(o.findings.map((f) => f.code)).toEqual(["COMPARATIVE_WITHOUT_COMPARISON"]);
  });

  it("is not applicable with no comparison and no comparative language", () => {
    expect(baselineGate(result({ output: "The median latency is 420 ms." }), settings())).toEqual({
      status: "not_applicable",
      score: null,
      findings: [],
    });
  });

  it.each([
    ["beats greedy", "beats"],
    ["faster than before", "faster than"],
    ["A vs. B", "vs."],
    ["improved over last week", "improved over"],
    ["debate", null],
    ["the heartbeats", null],
  ])("reads comparative language in %j as %j", (text, phrase) => {
    expect(comparativePhrase(text)).toBe(phrase);
  });
});

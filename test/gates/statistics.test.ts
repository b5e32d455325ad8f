import { describe, expect, it } from "vitest";
import { distinctTests, statisticsGate } from "../../src/gates/statistics.js";
import { result, settings, withFields } from "./build.js";

const cmp = (fields: Record<string, unknown>) => ({
  subject: "thompson",
  baseline: "uniform rotation",
  baseline_kind: "naive",
  effect: "+3.94x",
  sample_size: 40,
  tests: ["paired t", "sign"],
  ...fields,
});

describe("statistics gate", () => {
  it("passes an effect with a sample size and several distinct tests", () => {
    expect(statisticsGate(withFields({}), settings())).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks significance that rests on a single test", () => {
    const o = statisticsGate(
      withFields({ claims: [], comparisons: [cmp({ tests: ["paired t-test", "Paired T"] })] }),
      settings(),
    );
    expect(o.status).toBe("blocked");
    expect(o.findings.map((f) => f.code)).toEqual(["SINGLE_TEST"]);
  });

  it("blocks an effect with no sample size and no test at all", () => {
    const o = statisticsGate(
      withFields({ claims: [], comparisons: [cmp({ sample_size: null, tests: [] })] }),
      settings(),
    );
    expect(o.findings.map((f) => f.code)).toEqual(["NO_SAMPLE_SIZE", "TOO_FEW_TESTS"]);
  });

  it("checks a claim that states significance in words", () => {
    const claims = [
      {
        id: "S1",
        kind: "inference",
        text: "The gain is statistically significant (p < 0.05).",
        rationale: "two tests agree here",
      },
    ];
    const o = statisticsGate(result({ output: "x", claims }), settings());
    expect(o.findings.map((f) => [f.code, f.claim_id])).toEqual([
      ["NO_SAMPLE_SIZE", "S1"],
      ["TOO_FEW_TESTS", "S1"],
    ]);
  });

  it("honours a raised min_sample_size", () => {
    const o = statisticsGate(
      withFields({ claims: [], comparisons: [cmp({ sample_size: 12 })] }),
      settings({ statistics: { min_sample_size: 30 } }),
    );
    expect(o.findings.map((f) => f.message)).toEqual([
      'The effect +3.94x of comparison 1 ("thompson") has sample_size 12, below the minimum 30.',
    ]);
  });

  it("is not applicable without effects or statistical claims", () => {
    expect(statisticsGate(result({ output: "x" }), settings()).status).toBe("not_applicable");
  });

  it("counts paired t-test, Paired T and paired t as one test and ignores a bare 'test'", () => {
    expect(distinctTests(["paired t-test", "Paired T", "paired_t", "test", "Wilcoxon signed-rank test"])).toEqual([
      "paired t",
      "wilcoxon signed rank",
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { decide, overallScore } from "../../src/gates/decide.js";
import { DecisionSchema } from "../../src/gates/decision.js";
import { GATE_NAMES } from "../../src/gates/outcome-kit.js";
import { SettingsError } from "../../src/gates/settings.js";
import { goodInput, settings } from "./build.js";

/** A keyed, sourced fact added to one repeat only: stability passes with a KEY_MISSING_IN_RUN warning. */
const EXTRA_KEYED = {
  id: "F2",
  kind: "fact",
  text: "The comparison ran 40 paired simulations.",
  key: "simulations",
  value: "40",
  source: "runs/2026-08-06/RUN_REPORT.md:25",
  confidence: 0.9,
  verified: true,
};

describe("release decision", () => {
  it("releases a result every gate passes, in the API.md shape with all eleven gates in order", () => {
    const d = decide({ task: { id: "weekly" }, result: goodInput() });
    expect(DecisionSchema.parse(d)).toEqual(d);
    expect(d.status).toBe("released");
    expect(d.blocked_by).toEqual([]);
    expect(d.overall_score).toBe(100);
    expect(Object.keys(d.gates)).toEqual([...GATE_NAMES]);
    expect(Object.fromEntries(GATE_NAMES.map((g) => [g, d.gates[g].status]))).toEqual({
      contract: "passed",
      outcome: "passed",
      evidence: "passed",
      provenance: "passed",
      baseline: "passed",
      statistics: "passed",
      simplicity: "passed",
      explainability: "passed",
      contradiction: "passed",
      stability: "not_applicable",
      adversarial: "passed",
    });
  });

  it("blocks on any one gate while conjunctive, whatever the overall score", () => {
    const input = goodInput();
    input.exposed_controls = 8;
    const d = decide(input);
    expect(d.status).toBe("blocked");
    expect(d.blocked_by).toEqual(["simplicity"]);
    expect(d.overall_score).toBe(96.7);
  });

  it("with conjunctive = false a blocked gate still blocks although the overall score reaches min_score", () => {
    const input = { ...goodInput(), exposed_controls: 8 };
    const d = decide(input, { settings: settings({ global: { conjunctive: false } }) });
    expect(d.overall_score).toBe(96.7);
    expect(d.status).toBe("blocked");
    expect(d.blocked_by).toEqual(["simplicity"]);
    expect(d.findings).toEqual([]);
  });

  it("with conjunctive = false a score under min_score blocks as well as the blocked gate", () => {
    const input = { ...goodInput(), exposed_controls: 8 };
    const d = decide({ result: input, settings: { global: { conjunctive: false, min_score: 98 } } });
    expect(d.status).toBe("blocked");
    expect(d.blocked_by).toEqual(["simplicity", "overall_score"]);
    expect(d.findings).toEqual([
      {
        code: "OVERALL_BELOW_MIN",
        severity: "error",
        message:
          "The overall score 96.7 is below global.min_score 98; with conjunctive = false the score blocks as well as " +
          "the gates. Raise the gates' scores, or lower global.min_score.",
      },
    ]);
  });

  it("with conjunctive = false a score under min_score blocks a result whose every gate passes", () => {
    const input = goodInput();
    const runs = [input, { ...input, claims: [...(input.claims as unknown[]), EXTRA_KEYED] }];
    const d = decide({ task: { id: "t" }, runs, settings: { global: { conjunctive: false, min_score: 99.9 } } });
    expect(GATE_NAMES.filter((g) => d.gates[g].status !== "passed")).toEqual([]);
    expect(d.overall_score).toBe(99.5);
    expect([d.status, d.blocked_by]).toEqual(["blocked", ["overall_score"]]);
    expect(d.findings.map((f) => f.code)).toEqual(["OVERALL_BELOW_MIN"]);
    // The same result with conjunctive gates is released: the score never blocks by itself there.
    expect(decide({ task: { id: "t" }, runs }).status).toBe("released");
  });

  it("blocks on a not_comparable stability gate in both modes: repeats with no keyed claims", () => {
    const plain = {
      ...goodInput(),
      claims: (goodInput().claims as Record<string, unknown>[]).map(({ key, value, ...c }) => c),
    };
    for (const conjunctive of [true, false]) {
      const d = decide({
        task: { id: "t" },
        runs: [plain, plain],
        settings: { global: { conjunctive, min_score: 0 } },
      });
      expect(d.gates.stability.status).toBe("not_comparable");
      expect(d.gates.stability.score).toBe(0);
      expect([d.status, d.blocked_by]).toEqual(["blocked", ["stability"]]);
    }
  });

  it("skips every other gate when the contract fails, scoring 0 overall", () => {
    const d = decide({ result: { output: "x", claims: [{ kind: "rumour", text: "y" }] } });
    expect(d.status).toBe("blocked");
    expect(d.blocked_by).toEqual(["contract"]);
    expect(d.overall_score).toBe(0);
    expect(d.gates.evidence).toEqual({
      status: "not_applicable",
      score: null,
      findings: [
        {
          code: "GATE_SKIPPED",
          severity: "info",
          message: "Not evaluated: the input does not match the result contract.",
        },
      ],
    });
  });

  it("weights the overall score by settings", () => {
    const d = decide({ ...goodInput(), exposed_controls: 8 });
    expect(overallScore(d.gates, settings({ weights: { simplicity: 0 } }))).toBe(100);
    expect(overallScore(d.gates, settings({ weights: { simplicity: 8 } }))).toBe(84.3);
  });

  it("takes the worst status and the lowest score across runs, tagging findings with their run", () => {
    const bad = { ...goodInput(), exposed_controls: 9 };
    const d = decide({ runs: [goodInput(), bad] });
    expect(d.gates.simplicity.status).toBe("blocked");
    expect(d.gates.simplicity.score).toBe(66.7);
    expect(d.gates.simplicity.findings.map((f) => f.run)).toEqual([2]);
    expect(d.gates.stability.status).toBe("passed");
  });

  it("throws SettingsError for a request whose settings name an unknown key", () => {
    expect(() => decide({ result: goodInput(), settings: { simplicity: { max_controls: 1 } } })).toThrow(SettingsError);
  });
});

import { describe, expect, it } from "vitest";
import { adversarialGate } from "../../src/gates/adversarial.js";
import { settings, withFields } from "./build.js";

describe("adversarial gate", () => {
  it("passes when neither critic objects", () => {
    expect(adversarialGate(withFields({}), settings())).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks certainty language", () => {
    const o = adversarialGate(
      withFields({ output: "The scheduler is guaranteed to win, beyond doubt, by +3.94x." }),
      settings(),
    );
    expect(o.status).toBe("blocked");
    expect(o.score).toBe(50);
    expect(o.findings.map((f) => f.message)).toEqual([
      'The output states "guaranteed"; evidence supports a measured claim, not certainty. Replace it with the measured figure and its source.',
      'The output states "beyond doubt"; evidence supports a measured claim, not certainty. Replace it with the measured figure and its source.',
    ]);
  });

  it("blocks a figure in the output that no claim or comparison carries, ignoring years and plain numbers", () => {
    const o = adversarialGate(
      withFields({ output: "In 2026 the scheduler gained +3.94x and cut cost by 12% over 40 runs." }),
      settings(),
    );
    expect(o.findings.map((f) => [f.code, f.message])).toEqual([
      [
        "UNSUPPORTED_FIGURE",
        'The output states the figure "12%", which no claim or comparison carries. Add a claim whose text or value states it, with its source, or remove it.',
      ],
    ]);
  });

  it("matches figures across sign, spacing and the × sign", () => {
    expect(adversarialGate(withFields({ output: "A gain of 3.94 × over rotation." }), settings()).status).toBe(
      "passed",
    );
  });

  it("runs only the critics settings enable", () => {
    const off = settings({ adversarial: { critics: [] } });
    expect(adversarialGate(withFields({ output: "guaranteed 99%" }), off)).toEqual({
      status: "not_applicable",
      score: null,
      findings: [],
    });
  });

  it("counts a reviewer's error objection as a failed check and its warning against the score only", () => {
    const o = adversarialGate(withFields({}), settings(), [
      {
        name: "owner",
        kind: "reviewer",
        findings: [{ code: "OWNER", message: "Task owner missing", severity: "error" }],
      },
      { name: "tone", kind: "post_run", findings: [{ code: "TONE", message: "Hedging", severity: "warning" }] },
    ]);
    expect(o.status).toBe("blocked");
    expect(o.score).toBe(70);
    expect(o.findings.map((f) => f.code)).toEqual(["OWNER", "TONE"]);
  });

  it("fails closed when a reviewer threw", () => {
    const o = adversarialGate(withFields({}), settings(), [
      { name: "llm", kind: "reviewer", findings: [], error: "timeout" },
    ]);
    expect(o.findings).toEqual([
      {
        code: "REVIEWER_ERROR",
        severity: "error",
        message: 'The reviewer "llm" failed: timeout. The gate fails closed until it runs.',
      },
    ]);
  });
});

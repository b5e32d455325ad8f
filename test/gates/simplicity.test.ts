import { describe, expect, it } from "vitest";
import { simplicityGate } from "../../src/gates/simplicity.js";
import { result, settings } from "./build.js";

describe("simplicity gate", () => {
  it("passes values at the limits (7 controls, 5 decisions, 3 steps)", () => {
    const r = result({ output: "x", exposed_controls: 7, required_decisions: 5, configuration_steps: 3 });
    expect(simplicityGate(r, settings())).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks 8 controls with a message naming the limit and the setting", () => {
    const o = simplicityGate(result({ output: "x", exposed_controls: 8 }), settings());
    expect(o.status).toBe("blocked");
    expect(o.score).toBe(66.7);
    expect(o.findings).toEqual([
      {
        code: "TOO_MANY_CONTROLS",
        severity: "error",
        message:
          "The result has 8 exposed controls; the limit is 7 (simplicity.max_exposed_controls). Remove 1 or raise the limit in thresholds.toml.",
      },
    ]);
  });

  it("reads the limits from settings", () => {
    const r = result({ output: "x", required_decisions: 6, configuration_steps: 4 });
    expect(simplicityGate(r, settings()).findings.map((f) => f.code)).toEqual([
      "TOO_MANY_DECISIONS",
      "TOO_MANY_SETUP_STEPS",
    ]);
    expect(
      simplicityGate(r, settings({ simplicity: { max_required_decisions: 6, max_configuration_steps: 4 } })).status,
    ).toBe("passed");
  });
});

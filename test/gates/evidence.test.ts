import { describe, expect, it } from "vitest";
import { evidenceGate } from "../../src/gates/evidence.js";
import { result, settings, withClaim } from "./build.js";

describe("evidence gate", () => {
  it("passes a fact with a locator, a confidence and a verified flag", () => {
    expect(evidenceGate(withClaim(0, {}), settings())).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks the source x with score 0 (the regression that once scored 100)", () => {
    const o = evidenceGate(withClaim(0, { source: "x" }), settings());
    expect(o.status).toBe("blocked");
    expect(o.score).toBe(0);
    expect(o.findings).toEqual([
      {
        code: "SOURCE_NOT_LOCATOR",
        severity: "error",
        claim_id: "F1",
        message:
          'Fact F1 cites "x", which is not a locator; send a URL, a file path, a commit, a command ("$ ..."), a position ("sheet 12") or a registry number.',
      },
    ]);
  });

  it("blocks a circular source, a missing source, a missing confidence and a missing verified flag", () => {
    expect(evidenceGate(withClaim(0, { source: "as stated above" }), settings()).findings.map((f) => f.code)).toEqual([
      "SOURCE_CIRCULAR",
    ]);
    const o = evidenceGate(withClaim(0, { source: undefined, confidence: undefined, verified: undefined }), settings());
    expect(o.findings.map((f) => f.code)).toEqual(["FACT_NO_SOURCE", "FACT_NO_CONFIDENCE", "FACT_NO_VERIFIED_FLAG"]);
  });

  it("blocks a fact below evidence.min_confidence", () => {
    const o = evidenceGate(withClaim(0, { confidence: 0.4 }), settings({ evidence: { min_confidence: 0.5 } }));
    expect(o.findings.map((f) => f.message)).toEqual(["Fact F1 has confidence 0.4, below the minimum 0.5."]);
  });

  it("scores the share of facts that pass", () => {
    const facts = [
      { kind: "fact", text: "A", source: "docs/a.md", confidence: 1, verified: true },
      { kind: "fact", text: "B", source: "trust me", confidence: 1, verified: true },
      { kind: "fact", text: "C", source: "sheet 3", confidence: 1, verified: true },
      { kind: "fact", text: "D", source: "page 9", confidence: 1, verified: true },
    ];
    const o = evidenceGate(result({ output: "x", claims: facts }), settings());
    expect(o.score).toBe(75);
    expect(o.status).toBe("blocked");
  });

  it("is not applicable without facts", () => {
    expect(evidenceGate(result({ output: "Nothing factual." }), settings())).toEqual({
      status: "not_applicable",
      score: null,
      findings: [],
    });
  });

  it("checks file sources on disk only through the injected check when check_paths is on", () => {
    const on = settings({ evidence: { check_paths: true } });
    const r = withClaim(0, { source: "runs/2026-08-06/RUN_REPORT.md:24" });
    expect(evidenceGate(r, on, { pathExists: (p) => p === "runs/2026-08-06/RUN_REPORT.md" }).status).toBe("passed");
    expect(evidenceGate(r, on, { pathExists: () => false }).findings.map((f) => f.code)).toEqual([
      "SOURCE_PATH_MISSING",
    ]);
    const unchecked = evidenceGate(r, on);
    expect(unchecked.status).toBe("passed");
    expect(unchecked.score).toBe(95);
    expect(unchecked.findings.map((f) => [f.code, f.severity])).toEqual([["PATHS_NOT_CHECKED", "warning"]]);
  });
});

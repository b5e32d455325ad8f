import { describe, expect, it } from "vitest";
import { provenanceGate } from "../../src/gates/provenance.js";
import { result, settings, withClaim } from "./build.js";

const fact = (id: string, verified: boolean | undefined) => ({
  id,
  kind: "fact",
  text: `Fact ${id}`,
  source: "docs/a.md",
  confidence: 1,
  verified,
});

describe("provenance gate", () => {
  it("passes verified evidence with score 100", () => {
    expect(provenanceGate(withClaim(0, {}), settings())).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks circular evidence on any kind of claim", () => {
    const o = provenanceGate(withClaim(1, { source: "our earlier draft" }), settings());
    expect(o.status).toBe("blocked");
    expect(o.findings.map((f) => [f.code, f.claim_id])).toEqual([["EVIDENCE_CIRCULAR", "R1"]]);
  });

  it("allows exactly half recalled facts and blocks a recalled majority", () => {
    const half = result({ output: "x", claims: [fact("A", true), fact("B", false)] });
    const o = provenanceGate(half, settings());
    expect(o.status).toBe("passed");
    expect(o.score).toBe(50);
    const most = result({ output: "x", claims: [fact("A", true), fact("B", false), fact("C", undefined)] });
    expect(provenanceGate(most, settings()).findings.map((f) => f.message)).toEqual([
      "2 of 3 facts are recalled or inherited (verified is not true), a share of 0.67 above the limit 0.5; measure more of them in this run.",
    ]);
  });

  it("blocks a recommendation whose support was not checked in this run", () => {
    const claims = [
      fact("A", true),
      fact("B", false),
      { id: "R", kind: "recommendation", text: "Do it", rationale: "Because B says so strongly", based_on: ["B"] },
    ];
    const o = provenanceGate(result({ output: "x", claims }), settings());
    expect(o.findings.map((f) => [f.code, f.claim_id])).toEqual([["RECOMMENDATION_UNVERIFIED", "R"]]);
  });

  it("blocks a recommendation in a result with no facts at all", () => {
    const o = provenanceGate(
      result({ output: "x", claims: [{ id: "R", kind: "recommendation", text: "Do it", rationale: "a b c" }] }),
      settings(),
    );
    expect(o.findings.map((f) => f.message)).toEqual([
      "Recommendation R rests on no fact at all; add the facts it is based on, measured in this run (verified: true).",
    ]);
  });

  it("is not applicable with no facts, recommendations or sources", () => {
    expect(provenanceGate(result({ output: "x" }), settings()).status).toBe("not_applicable");
  });
});

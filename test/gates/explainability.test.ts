import { describe, expect, it } from "vitest";
import { contentWords, explainabilityGate } from "../../src/gates/explainability.js";
import { result, settings, withClaim } from "./build.js";

const claim = (fields: Record<string, unknown>) =>
  result({ output: "x", claims: [{ id: "J1", kind: "judgment", text: "The new flow is better.", ...fields }] });

describe("explainability gate", () => {
  it("passes an interpreted claim with a reasoned rationale", () => {
    expect(explainabilityGate(withClaim(1, {}), settings())).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks a judgment without rationale", () => {
    const o = explainabilityGate(claim({}), settings());
    expect(o.findings).toEqual([
      {
        code: "NO_RATIONALE",
        severity: "error",
        claim_id: "J1",
        message: "Judgment J1 gives no rationale; say what it was inferred from and why.",
      },
    ]);
  });

  it("blocks a rationale that is only filler and self-reference", () => {
    const o = explainabilityGate(claim({ rationale: "Obviously, as stated above." }), settings());
    expect(o.findings.map((f) => f.message)).toEqual([
      'Judgment J1 has the rationale "Obviously, as stated above.", which has 0 word(s) of content once filler and self-references are removed; at least 3 are required.',
    ]);
  });

  it("blocks a rationale that repeats the claim text", () => {
    const o = explainabilityGate(claim({ rationale: "the new flow is better" }), settings());
    expect(o.findings.map((f) => f.code)).toEqual(["WEAK_RATIONALE"]);
  });

  it("does not ask facts for a rationale", () => {
    const r = result({
      output: "x",
      claims: [{ kind: "fact", text: "A", source: "docs/a.md", confidence: 1, verified: true }],
    });
    expect(explainabilityGate(r, settings()).status).toBe("not_applicable");
  });

  it("removes longer circular phrases before shorter ones", () => {
    expect(contentWords("see our earlier draft because clearly conversion rose")).toEqual(["conversion", "rose"]);
  });
});

// withParseMemo: within it, the contract gate parses each input object once; outside it, every call parses afresh.
import { describe, expect, it } from "vitest";
import { contractGate, withParseMemo } from "../../src/gates/contract.js";
import { splitEvaluationInput } from "../../src/gates/contracts.js";

const input = () => ({
  task: { id: "memo" },
  result: { output: "Two lengths.", claims: [{ id: "A", kind: "fact", text: "Length.", key: "length", value: "5 m" }] },
});

const verdict = (i: unknown) => contractGate(splitEvaluationInput(i));

describe("contract parses shared within one evaluation", () => {
  it("answers the same parsed result object to a second reading of the same input inside withParseMemo", () => {
    const i = input();
    const [first, second] = withParseMemo(() => [verdict(i), verdict(i)]);
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(second.runs[0]).toBe(first.runs[0]);
    expect(second.outcome).not.toBe(first.outcome);
  });

  it("parses afresh outside withParseMemo, so a changed input is read as changed", () => {
    const i = input();
    expect(verdict(i).ok).toBe(true);
    (i.result.claims[0] as Record<string, unknown>).kind = "guess";
    expect(verdict(i).outcome.findings.map((f) => f.code)).toEqual(["CONTRACT_UNKNOWN_KIND"]);
  });

  it("forgets its parses when withParseMemo returns", () => {
    const i = input();
    withParseMemo(() => verdict(i));
    (i.result.claims[0] as Record<string, unknown>).kind = "guess";
    expect(withParseMemo(() => verdict(i)).ok).toBe(false);
  });

  it("answers fn's value and keeps the outer memo when nested", () => {
    const i = input();
    const same = withParseMemo(() => {
      const a = verdict(i);
      const b = withParseMemo(() => verdict(i));
      return a.ok && b.ok && a.runs[0] === b.runs[0];
    });
    expect(same).toBe(true);
  });
});

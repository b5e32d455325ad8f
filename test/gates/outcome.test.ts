import { describe, expect, it } from "vitest";
import { findPlaceholders, outcomeGate } from "../../src/gates/outcome.js";
import { result, settings, task, withFields } from "./build.js";

describe("outcome gate", () => {
  it("passes a non-empty output with every required deliverable filled", () => {
    const r = withFields({ deliverables: { summary: "Three schedulers compared over 40 seeds." } });
    expect(outcomeGate(task({ required_deliverables: ["summary"] }), r, settings())).toEqual({
      status: "passed",
      score: 100,
      findings: [],
    });
  });

  it("blocks a missing deliverable and an empty one, naming each", () => {
    const r = withFields({ deliverables: { summary: "  " } });
    const o = outcomeGate(task({ required_deliverables: ["summary", "table"] }), r, settings());
    expect(o.status).toBe("blocked");
    expect(o.score).toBe(50);
    expect(o.findings.map((f) => [f.code, f.message])).toEqual([
      ["DELIVERABLE_MISSING", 'The deliverable "summary" is empty; send its content.'],
      [
        "DELIVERABLE_MISSING",
        'The task requires the deliverable "table"; the result\'s deliverables have no entry "table".',
      ],
    ]);
  });

  it("reports a required deliverable named like an Object property (constructor, toString) as missing instead of throwing", () => {
    const o = outcomeGate(
      task({ required_deliverables: ["constructor", "toString"] }),
      withFields({ deliverables: { toString: "The table." } }),
      settings(),
    );
    expect([o.status, o.score]).toEqual(["blocked", 75]);
    expect(o.findings.map((f) => [f.code, f.message])).toEqual([
      [
        "DELIVERABLE_MISSING",
        'The task requires the deliverable "constructor"; the result\'s deliverables have no entry "constructor".',
      ],
    ]);
  });

  it("blocks an empty output", () => {
    const o = outcomeGate(task(), result({ output: " \n" }), settings());
    expect(o.findings.map((f) => f.code)).toEqual(["OUTPUT_EMPTY"]);
  });

  it("blocks placeholders left in the output or a deliverable, one finding per distinct match", () => {
    const r = withFields({
      output: "Latency is TODO ms. TODO: check. Rate is ???.",
      deliverables: { notes: "Lorem ipsum [insert chart here]" },
    });
    const o = outcomeGate(task(), r, settings());
    expect(o.status).toBe("blocked");
    expect(o.findings.map((f) => f.message)).toEqual([
      'The output still contains the placeholder "TODO"; replace it with the finished content.',
      'The output still contains the placeholder "???"; replace it with the finished content.',
      'Deliverable "notes" still contains the placeholder "Lorem ipsum"; replace it with the finished content.',
      'Deliverable "notes" still contains the placeholder "[insert chart here]"; replace it with the finished content.',
    ]);
  });

  it("does not take the Spanish word todo or a single question mark for a placeholder", () => {
    expect(findPlaceholders("Todo el equipo está de acuerdo. ¿Listo? {{name}}")).toEqual(["{{name}}"]);
    expect(findPlaceholders("todo el equipo?")).toEqual([]);
  });
});

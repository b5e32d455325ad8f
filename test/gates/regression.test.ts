// Each fixture is a case an earlier design passed when it should have blocked. If one starts to pass, a gate was weakened.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decide } from "../../src/gates/decide.js";
import type { GateName } from "../../src/gates/outcome-kit.js";
import { MemoryHistory, type LedgerLine } from "./memory-history.js";

const DIR = new URL("../../fixtures/regression/", import.meta.url);

/** The gate that must block each fixture, and the finding code it must give. */
const EXPECTED: Record<string, { gate: GateName; code: string }> = {
  "junk_source.json": { gate: "evidence", code: "SOURCE_NOT_LOCATOR" },
  "circular_source.json": { gate: "provenance", code: "EVIDENCE_CIRCULAR" },
  "no_baseline.json": { gate: "baseline", code: "COMPARATIVE_WITHOUT_COMPARISON" },
  "single_test.json": { gate: "statistics", code: "SINGLE_TEST" },
  "demoted_repeated.json": { gate: "contradiction", code: "LEDGER_DEMOTED_REAPPEARS" },
  "unkeyed_repeats.json": { gate: "stability", code: "NOT_COMPARABLE" },
  "compensated_gate.json": { gate: "simplicity", code: "TOO_MANY_CONTROLS" },
};

const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort();

describe("regression fixtures", () => {
  it("has an expectation for every fixture file and a file for every expectation", () => {
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(files)("%s is blocked by its named gate", (file) => {
    const { ledger, ...input } = JSON.parse(readFileSync(new URL(file, DIR), "utf8")) as { ledger?: LedgerLine[] };
    const expected = EXPECTED[file];
    const d = decide(input, { history: new MemoryHistory(ledger ?? []) });
    expect(d.status).toBe("blocked");
    expect(d.blocked_by).toContain(expected?.gate);
    expect(d.gates[expected?.gate ?? "contract"].findings.map((f) => f.code)).toContain(expected?.code);
  });

  it("junk_source.json scores 0 on evidence, not 100", () => {
    const input = JSON.parse(readFileSync(new URL("junk_source.json", DIR), "utf8")) as unknown;
    expect(decide(input).gates.evidence.score).toBe(0);
  });

  it("circular_source.json is rejected by both evidence and provenance", () => {
    const d = decide(JSON.parse(readFileSync(new URL("circular_source.json", DIR), "utf8")) as unknown);
    expect(d.blocked_by).toEqual(expect.arrayContaining(["evidence", "provenance"]));
    expect(d.gates.evidence.findings.map((f) => f.code)).toEqual(["SOURCE_CIRCULAR"]);
  });

  it("unkeyed_repeats.json is not_comparable on stability, never stable: its two runs disagree and nothing keyed shows it", () => {
    const d = decide(JSON.parse(readFileSync(new URL("unkeyed_repeats.json", DIR), "utf8")) as unknown);
    expect([d.gates.stability.status, d.gates.stability.score]).toEqual(["not_comparable", 0]);
    expect(d.blocked_by).toEqual(["stability"]);
  });

  it("compensated_gate.json stays blocked by simplicity with conjunctive = false although its score reaches min_score", () => {
    const d = decide(JSON.parse(readFileSync(new URL("compensated_gate.json", DIR), "utf8")) as unknown);
    expect(d.overall_score).toBeGreaterThanOrEqual(80);
    expect(d.blocked_by).toEqual(["simplicity"]);
  });

  it("demoted_repeated.json passes contradiction once the demoted claim is absent from the ledger", () => {
    const { ledger: _ledger, ...input } = JSON.parse(readFileSync(new URL("demoted_repeated.json", DIR), "utf8")) as {
      ledger?: LedgerLine[];
    };
    expect(decide(input, { history: new MemoryHistory([]) }).gates.contradiction.status).toBe("passed");
  });
});

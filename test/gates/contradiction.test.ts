import { describe, expect, it } from "vitest";
import { contradictionGate, publishedText, type LedgerSnapshot } from "../../src/gates/contradiction.js";
import type { DemotedClaim } from "../../src/gates/ports.js";
import { createValueMatcher, type QuantityComparer } from "../../src/gates/values.js";
import { WatchCache } from "../../src/gates/watch.js";
import { result, settings, withFields } from "./build.js";

const same = createValueMatcher();
const empty: LedgerSnapshot = { demoted: [], live: [] };
const keyed = (id: string, key: string, value: unknown, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "inference",
  text: `${key} is ${String(value)}`,
  key,
  value,
  rationale: "measured in the run logs",
  ...extra,
});
const demoted = (fields: Partial<DemotedClaim>): DemotedClaim => ({
  id: "CLM-1",
  text: "Thompson beats greedy by 2.08x",
  key: null,
  value: null,
  reason: "Never beats round-robin; the gain belongs to breadth",
  demoted_by: "review/verify_baseline.py",
  watch: "2\\.08x",
  ...fields,
});

describe("contradiction gate within one result", () => {
  it("passes one value per key, the same value in other words included", () => {
    const r = result({
      output: "x",
      claims: [keyed("A", "Median latency", "420 ms"), keyed("B", "median  latency", "420ms.")],
    });
    expect(contradictionGate(r, settings(), empty, same)).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks a key holding conflicting values, listing each value with its claims", () => {
    const r = result({ output: "x", claims: [keyed("A", "latency", "420 ms"), keyed("B", "latency", "380 ms")] });
    const o = contradictionGate(r, settings(), empty, same);
    expect(o.status).toBe("blocked");
    expect(o.findings).toEqual([
      {
        code: "CONFLICTING_VALUES",
        severity: "error",
        message:
          'The key "latency" holds conflicting values in this result: "420 ms" (A) and "380 ms" (B). Keep one value, or name the replaced claim in supersedes.',
      },
    ]);
  });

  it("ignores a claim the same result supersedes", () => {
    const r = result({
      output: "x",
      claims: [keyed("A", "latency", "420 ms"), keyed("B", "latency", "380 ms", { supersedes: "A" })],
    });
    expect(contradictionGate(r, settings(), empty, same).status).toBe("passed");
  });

  it("compares quantities physically when a comparer is injected", () => {
    const feetAndMetres: QuantityComparer = (a, b) =>
      (a === "17.1 ft" && b === "5.212 m") || (a === "5.212 m" && b === "17.1 ft") ? "same" : "not_quantities";
    const r = result({ output: "x", claims: [keyed("A", "stage", "17.1 ft"), keyed("B", "stage", "5.212 m")] });
    expect(contradictionGate(r, settings(), empty, createValueMatcher(feetAndMetres)).status).toBe("passed");
    expect(contradictionGate(r, settings(), empty, same).status).toBe("blocked");
  });

  it("is not applicable with no keyed claims and no demoted ledger entries", () => {
    expect(contradictionGate(result({ output: "x" }), settings(), empty, same)).toEqual({
      status: "not_applicable",
      score: null,
      findings: [],
    });
  });
});

describe("contradiction gate against the ledger", () => {
  it("blocks a value that contradicts a live ledger claim", () => {
    const live = [{ id: "CLM-7", text: "Median latency is 420 ms", key: "latency", value: "420 ms" }];
    const r = result({ output: "x", claims: [keyed("A", "Latency", "380 ms")] });
    const o = contradictionGate(r, settings(), { demoted: [], live }, same);
    expect(o.findings).toEqual([
      {
        code: "LEDGER_CONFLICT",
        severity: "error",
        claim_id: "A",
        message:
          'The key "latency" is "380 ms" here but "420 ms" in live ledger claim CLM-7 ("Median latency is 420 ms"); correct the value, or name CLM-7 in supersedes if this replaces it.',
      },
    ]);
    const replacing = result({ output: "x", claims: [keyed("A", "Latency", "380 ms", { supersedes: ["CLM-7"] })] });
    expect(contradictionGate(replacing, settings(), { demoted: [], live }, same).status).toBe("passed");
  });

  it("does not read a live ledger claim with a key but no value as a conflicting empty value", () => {
    // POST /v1/claims and an imported line may carry a key without a value; such a claim states no value to contradict.
    const live = [{ id: "CLM-8", text: "Latency was measured", key: "latency", value: null }];
    const r = result({ output: "x", claims: [keyed("A", "latency", "380 ms")] });
    expect(contradictionGate(r, settings(), { demoted: [], live }, same)).toEqual({
      status: "passed",
      score: 100,
      findings: [],
    });
  });

  it("blocks an output matching a demoted claim's watch, naming the claim, its reason and who demoted it", () => {
    const r = withFields({ output: "June: Thompson beats greedy by 2.08x." });
    const o = contradictionGate(r, settings(), { demoted: [demoted({})], live: [] }, same);
    expect(o.status).toBe("blocked");
    expect(o.findings).toEqual([
      {
        code: "LEDGER_DEMOTED_REAPPEARS",
        severity: "error",
        message:
          'The result repeats demoted claim CLM-1 ("Thompson beats greedy by 2.08x"), demoted by review/verify_baseline.py: Never beats round-robin; the gain belongs to breadth; it matches the watch pattern `2\\.08x`. Remove it, or name CLM-1 in supersedes on the claim that replaces it.',
      },
    ]);
  });

  it("lets the repeat through when a claim names the demoted claim in supersedes", () => {
    const r = result({
      output: "Earlier we said 2.08x; against round-robin the gain is +0.66x.",
      claims: [keyed("A", "thompson gain", "+0.66x", { supersedes: "CLM-1" })],
    });
    const o = contradictionGate(r, settings(), { demoted: [demoted({})], live: [] }, same);
    expect(o.status).toBe("passed");
    expect(o.score).toBe(100);
    expect(o.findings.map((f) => [f.code, f.severity])).toEqual([["LEDGER_SUPERSEDED", "info"]]);
  });

  it("finds a demoted claim hidden in a claim's value, not only in the output", () => {
    const r = result({ output: "See the table.", claims: [keyed("A", "gain", "2.08x")] });
    expect(publishedText(r)).toBe("See the table.\ngain is 2.08x\n2.08x");
    expect(contradictionGate(r, settings(), { demoted: [demoted({})], live: [] }, same).status).toBe("blocked");
  });

  it("finds a demoted key and value stated in other words, and a demoted text without watch or key", () => {
    const byValue = demoted({ watch: null, key: "thompson gain", value: "2.08 x" });
    const r = result({ output: "x", claims: [keyed("A", "Thompson Gain", "+2.08x")] });
    expect(contradictionGate(r, settings(), { demoted: [byValue], live: [] }, same).findings[0]?.message).toContain(
      'it states the demoted value "2.08 x" for the key "thompson gain" (claim A)',
    );
    const byText = demoted({ watch: null });
    const t = result({ output: "As before, thompson beats greedy by 2.08x!" });
    expect(contradictionGate(t, settings(), { demoted: [byText], live: [] }, same).findings.map((f) => f.code)).toEqual(
      ["LEDGER_DEMOTED_REAPPEARS"],
    );
  });

  it("notes a watch RE2 refuses and falls back to the demoted text", () => {
    const bad = demoted({ watch: "(2)\\1" });
    const r = result({ output: "Thompson beats greedy by 2.08x" });
    const o = contradictionGate(r, settings(), { demoted: [bad], live: [] }, same, new WatchCache());
    expect(o.findings.map((f) => [f.code, f.severity])).toEqual([
      ["LEDGER_DEMOTED_REAPPEARS", "error"],
      ["LEDGER_BAD_WATCH", "info"],
    ]);
  });

  it("counts the demoted ledger as one check, so one reappearance among many entries still scores low", () => {
    const many = Array.from({ length: 200 }, (_, i) =>
      demoted({ id: `D${i}`, text: `claim ${i}`, watch: `never-${i}-seen` }),
    );
    const o = contradictionGate(withFields({ output: "never-7-seen" }), settings(), { demoted: many, live: [] }, same);
    expect(o.status).toBe("blocked");
    expect(o.score).toBe(50);
  });

  it("checks every kind of demoted entry among thousands whose watches run clear, in ledger order, on a repeated list", () => {
    const quiet = Array.from({ length: 3_000 }, (_, i) =>
      demoted({ id: `Q${i}`, text: `quiet claim ${i}`, watch: `quiet-${i}-pattern` }),
    );
    const list: DemotedClaim[] = [
      ...quiet.slice(0, 1_000),
      demoted({ id: "KEYED", text: "gain is 2.08x", watch: "unrelated-words", key: "thompson gain", value: "2.08 x" }),
      ...quiet.slice(1_000, 2_000),
      demoted({ id: "TEXT", text: "greedy loses at noon", watch: null }),
      demoted({ id: "REFUSED", text: "thompson beats greedy", watch: "(t)\\1" }),
      ...quiet.slice(2_000),
      demoted({ id: "WATCHED", text: "w", watch: "at noon; all quiet" }),
    ];
    const r = result({
      output: "Thompson beats greedy; greedy loses at noon; all quiet.",
      claims: [keyed("A", "Thompson Gain", "+2.08x")],
    });
    const cache = new WatchCache();
    for (let round = 0; round < 2; round += 1) {
      const o = contradictionGate(r, settings(), { demoted: list, live: [] }, same, cache);
      expect(o.findings.map((f) => [f.code, /demoted claim (\w+)/.exec(f.message)?.[1]])).toEqual([
        ["LEDGER_DEMOTED_REAPPEARS", "KEYED"],
        ["LEDGER_DEMOTED_REAPPEARS", "TEXT"],
        ["LEDGER_DEMOTED_REAPPEARS", "REFUSED"],
        ["LEDGER_DEMOTED_REAPPEARS", "WATCHED"],
        ["LEDGER_BAD_WATCH", "REFUSED"],
      ]);
    }
  });
});

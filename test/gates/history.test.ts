// The June-report-against-March case and drift across stored runs, through the ClaimHistory port.
import { describe, expect, it } from "vitest";
import { claimsToRecord, decide } from "../../src/gates/decide.js";
import type { Decision } from "../../src/gates/decision.js";
import { MemoryHistory } from "./memory-history.js";

const CLM1 = {
  id: "CLM-1",
  text: "Thompson beats greedy by 2.08x",
  status: "demoted" as const,
  reason: "Never beats round-robin; the gain belongs to breadth",
  demoted_by: "review/verify_baseline.py",
  watch: "2\\.08x",
};

const report = (output: string, gain: string, extra: Record<string, unknown> = {}) => ({
  output,
  claims: [
    {
      id: "F1",
      kind: "fact",
      text: `Thompson fund multiple gain is ${gain}.`,
      key: "thompson gain",
      value: gain,
      source: "runs/2026-06-03/RUN_REPORT.md:12",
      confidence: 0.8,
      verified: true,
      ...extra,
    },
  ],
});

function evaluateAndRecord(
  history: MemoryHistory,
  taskId: string,
  runId: string,
  at: string,
  result: Record<string, unknown>,
): Decision {
  const input = { task: { id: taskId }, result };
  const d = decide(input, { history });
  history.record(
    taskId,
    runId,
    at,
    claimsToRecord([input.result as never]).map((c) => ({
      key: c.key,
      value: c.value,
      text: c.text,
      claim_id: c.claim_id,
    })),
  );
  return d;
}

describe("March demotion, June report", () => {
  it("blocks a June report that repeats the claim demoted in March", () => {
    const h = new MemoryHistory();
    const march = evaluateAndRecord(
      h,
      "scheduler-report",
      "RUN-MAR",
      "2026-03-02T09:00:00Z",
      report("Thompson gains 2.08x.", "2.08x"),
    );
    expect(march.status).toBe("released");
    h.ledger.push(CLM1);
    const june = decide(
      { task: { id: "scheduler-report" }, result: report("June: Thompson still gains 2.08x.", "2.08x") },
      { history: h },
    );
    expect(june.status).toBe("blocked");
    expect(june.blocked_by).toEqual(["contradiction"]);
    expect(june.gates.contradiction.findings.map((f) => f.code)).toEqual(["LEDGER_DEMOTED_REAPPEARS"]);
    expect(june.gates.contradiction.findings[0]?.message).toContain("demoted claim CLM-1");
  });

  it("releases the June report that names CLM-1 in supersedes, with the correction not counted as drift", () => {
    const h = new MemoryHistory();
    evaluateAndRecord(
      h,
      "scheduler-report",
      "RUN-MAR",
      "2026-03-02T09:00:00Z",
      report("Thompson gains 2.08x.", "2.08x"),
    );
    h.ledger.push(CLM1);
    const result = report("June: the 2.08x gain was against greedy; against round-robin it is +0.66x.", "+0.66x", {
      supersedes: "CLM-1",
    });
    result.claims.push({
      id: "I1",
      kind: "inference",
      text: "The March 2.08x gain was measured against greedy only.",
      rationale: "Against the round-robin baseline the gain disappears in every seed.",
    } as never);
    const june = decide({ task: { id: "scheduler-report" }, result }, { history: h });
    expect(june.status).toBe("released");
    expect(june.gates.contradiction.findings.map((f) => f.code)).toEqual(["LEDGER_SUPERSEDED"]);
    expect(june.gates.stability.status).toBe("passed");
    expect(june.gates.stability.findings.map((f) => f.code)).toEqual(["DRIFT_SUPERSEDED"]);
  });

  it("asks the port once for each kind of history, with normalised keys", () => {
    const h = new MemoryHistory([CLM1]);
    const keysAsked: string[][] = [];
    const spy = {
      ...h,
      demotedClaims: () => h.demotedClaims(),
      liveClaims: (k: readonly string[]) => {
        keysAsked.push([...k]);
        return h.liveClaims(k);
      },
      priorRunClaims: (t: string, k: readonly string[]) => h.priorRunClaims(t, k),
      priorRunCount: (t: string) => h.priorRunCount(t),
    };
    decide({ task: { id: "t" }, result: report("x", "1", { key: "Thompson  GAIN" }) }, { history: spy });
    // A keyed result never needs the count of earlier runs.
    expect(h.calls).toEqual({ demoted: 1, live: 1, prior: 1, count: 0 });
    expect(keysAsked).toEqual([["thompson gain"]]);
  });
});

describe("drift versus rewording across stored runs", () => {
  it("releases a later run stating the same value in other words", () => {
    const h = new MemoryHistory();
    evaluateAndRecord(h, "latency", "RUN-1", "2026-03-01T00:00:00Z", report("Median latency 420 ms.", "420 ms"));
    evaluateAndRecord(h, "latency", "RUN-2", "2026-04-01T00:00:00Z", report("Median latency 420 ms.", "420ms"));
    const d = decide({ task: { id: "latency" }, result: report("The median is 420 ms.", "420.0 ms") }, { history: h });
    expect(d.gates.stability).toEqual({ status: "passed", score: 100, findings: [] });
  });

  it("blocks a later run whose value drifted from the stored runs", () => {
    const h = new MemoryHistory();
    evaluateAndRecord(h, "latency", "RUN-1", "2026-03-01T00:00:00Z", report("Median latency 420 ms.", "420 ms"));
    const d = decide({ task: { id: "latency" }, result: report("Median latency 380 ms.", "380 ms") }, { history: h });
    expect(d.status).toBe("blocked");
    expect(d.blocked_by).toEqual(["stability"]);
    expect(d.gates.stability.findings.map((f) => f.code)).toEqual(["VALUE_DRIFT"]);
  });

  it("compares only runs of the same task, and none for a task without id", () => {
    const h = new MemoryHistory();
    evaluateAndRecord(h, "latency", "RUN-1", "2026-03-01T00:00:00Z", report("Median latency 420 ms.", "420 ms"));
    expect(
      decide({ task: { id: "other" }, result: report("Median latency 380 ms.", "380 ms") }, { history: h }).gates
        .stability.status,
    ).toBe("not_applicable");
    expect(decide({ result: report("Median latency 380 ms.", "380 ms") }, { history: h }).gates.stability.status).toBe(
      "not_applicable",
    );
  });
});

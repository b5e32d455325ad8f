// The harness end to end against a stub provider on a loopback port: each scripted model behaviour and the outcome,
// counts and labels each condition gives, with runs recorded as sessions in a real database.
import { afterEach, describe, expect, it } from "vitest";
import { type Cell, runBatch } from "../../src/harness/batch.js";
import { StoreHarnessLedger } from "../../src/harness/ledger.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";
import { anthropicProvider } from "../../src/harness/providers/anthropic.js";
import type { RetryPolicy } from "../../src/harness/providers/http.js";
import { openaiProvider } from "../../src/harness/providers/openai.js";
import { type Condition, taskData } from "../../src/harness/suites.js";
import type { LedgerDb } from "../../src/store/sqlite/db.js";
import { listSessions } from "../../src/store/sqlite/queries.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { createTestDb } from "../helpers/db.js";
import { type Script, type Stub, startStub } from "./stub-provider.js";
import type { BenchRun } from "../../src/store/model.js";

const data = taskData();
const task = (name: string) => data.tasks.find((t) => t.name === name)!;
const FAST: RetryPolicy = { retries: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 10_000 };

let stub: Stub | null = null;
let store: LedgerDb | null = null;
afterEach(async () => {
  await stub?.close();
  store?.close();
  stub = null;
  store = null;
});

type Options = {
  format?: "openai" | "anthropic";
  replicates?: number;
  batch?: string;
  dieAfter?: number;
  concurrency?: number;
};

async function bench(
  script: Script,
  taskName: string,
  conditions: Condition[],
  o: Options = {},
): Promise<{ runs: BenchRun[]; stopped: string | null; skipped: number }> {
  stub ??= await startStub(script, { dieAfter: o.dieAfter });
  store ??= createTestDb();
  const teamId = ensureDefaultTeam(store.db);
  const ledger = new StoreHarnessLedger(sqliteStore(store), teamId, "default");
  const provider =
    o.format === "anthropic"
      ? anthropicProvider(stub.anthropicUrl, "k", FAST)
      : openaiProvider(stub.openaiUrl, "k", FAST);
  const cells: Cell[] = conditions.flatMap((condition) =>
    Array.from({ length: o.replicates ?? 1 }, (_, replicate) => ({
      task: task(taskName),
      condition,
      model: "stub-model",
      replicate,
    })),
  );
  const r = await runBatch({
    batch: o.batch ?? "b1",
    cells,
    data,
    provider,
    ledger,
    concurrency: o.concurrency ?? 2,
    maxTurns: 8,
    maxTokens: 2048,
  });
  return { runs: r.runs, stopped: r.stopped, skipped: r.skipped };
}

/** The tool result text of the call named `tool` in this turn's results, parsed. */
const value = (text: string | undefined): number => {
  const v = JSON.parse(text ?? "null") as number | { value: number };
  return typeof v === "number" ? v : v.value;
};

/** Reads both retrievals, then sends `discharge` to runoff_depth every turn after; states what the tool returned. */
function runoffModel(discharge: (turn: number) => unknown): Script {
  return (s) => {
    if (s.turn === 0)
      return {
        calls: [
          { name: "read_discharge", args: { station: "07374000" } },
          { name: "read_drainage_area", args: { station: "07374000" } },
        ],
      };
    const last = s.results.at(-1) ?? "";
    if (s.turn === 1 || last.startsWith("["))
      return { calls: [{ name: "runoff_depth", args: { discharge: discharge(s.turn), area: 29000 } }] };
    return { text: `The runoff depth is ${value(last).toFixed(3)} mm/day.\nANSWER: ${value(last).toFixed(3)} mm/day` };
  };
}

const byCondition = (runs: BenchRun[]) => Object.fromEntries(runs.map((r) => [r.condition, r]));

describe("a model that passes the bare 1250 cfs into the m³/s parameter", () => {
  it("is wrong and silent unguarded, blocked guarded, refused on every try with repair, blocked with spelled-out units", async () => {
    const { runs } = await bench(
      runoffModel(() => 1250),
      "runoff_depth",
      ["baseline", "schema_only", "guarded", "guarded_repair", "guarded_expanded"],
    );
    const r = byCondition(runs);
    expect(r.baseline).toMatchObject({
      outcome: "wrong",
      stated: "3.724 mm/day",
      violations: 0,
      undetected: true,
      silent_error: true,
      tool_calls: 3,
      turns: 3,
    });
    expect(r.baseline!.derived).toMatchObject({
      unit_carry_over_sent: true,
      reached_hazard_tool: true,
      wrong_answer_signature: "unit_carry_over",
    });
    expect(r.schema_only).toMatchObject({
      outcome: "wrong",
      stated: "3.724 mm/day",
      violations: 0,
      silent_error: true,
    });
    expect(r.guarded).toMatchObject({
      outcome: "blocked",
      stated: null,
      violations: 1,
      tool_calls: 3,
      turns: 2,
      detail: "blocked: unconverted_carry_over on runoff_depth",
    });
    // The model resends the bare number after every repair until the 8 turns are spent: 7 refusals, no answer.
    expect(r.guarded_repair).toMatchObject({
      outcome: "wrong",
      stated: null,
      violations: 7,
      tool_calls: 9,
      turns: 8,
      undetected: false,
    });
    expect(r.guarded_expanded).toMatchObject({ outcome: "blocked", violations: 1 });
  });

  it("records every run as a labelled session of the default team, with what reached the tool", async () => {
    const { runs } = await bench(
      runoffModel(() => 1250),
      "runoff_depth",
      ["baseline", "guarded"],
    );
    const teamId = ensureDefaultTeam(store!.db);
    const sessions = listSessions(store!.sqlite, teamId, {
      labels: [{ key: "bench.condition", value: "guarded" }],
      limit: 10,
    });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.id).toBe(runs.find((r) => r.condition === "guarded")!.session_id);
    expect(sessions[0]!.labels).toEqual({
      "bench.suite": "core",
      "bench.task": "runoff_depth",
      "bench.condition": "guarded",
      "bench.model": "stub-model",
      "bench.replicate": "0",
      "bench.batch": "b1",
    });
    expect(sessions[0]).toMatchObject({ enforcement: "enforce", callCount: 3, blockedCount: 1 });
    const baseline = listSessions(store!.sqlite, teamId, {
      labels: [{ key: "bench.condition", value: "baseline" }],
      limit: 10,
    });
    // Unenforced, the carry-over is stored as would-have-been-blocked, and the body read 1250 at face value.
    expect(baseline[0]).toMatchObject({ enforcement: "warn", callCount: 3, blockedCount: 1 });
  });
});

describe("a model that converts", () => {
  it("is correct behind the guard; unguarded, the tool reads '1250 cfs' at face value as 1250 m³/s", async () => {
    const { runs } = await bench(
      runoffModel(() => "1250 cfs"),
      "runoff_depth",
      ["schema_only", "guarded"],
    );
    const r = byCondition(runs);
    expect(r.guarded).toMatchObject({
      outcome: "correct",
      stated: "0.105 mm/day",
      violations: 0,
      audit_flagged: false,
    });
    expect(r.guarded!.derived).toMatchObject({ unit_carry_over_sent: false });
    expect(r.schema_only).toMatchObject({ outcome: "wrong", stated: "3.724 mm/day" });
  });

  it("speaks Anthropic's messages format as well", async () => {
    const { runs } = await bench(
      runoffModel(() => ({ value: 1250, unit: "cfs" })),
      "runoff_depth",
      ["guarded"],
      { format: "anthropic" },
    );
    expect(runs[0]).toMatchObject({
      outcome: "correct",
      stated: "0.105 mm/day",
      tool_calls: 3,
      turns: 3,
      prompt_tokens: 300,
      completion_tokens: 30,
    });
    expect(stub!.requests[0]!.path).toBe("/v1/messages");
    expect(stub!.requests[0]!.headers["anthropic-version"]).toBe("2023-06-01");
  });
});

describe("a datum carry-over", () => {
  const freeboard: Script = (s) => {
    if (s.turn === 0)
      return {
        calls: [
          { name: "read_gage_height", args: { station: "07374000" } },
          { name: "read_flood_stage", args: { station: "07374000" } },
        ],
      };
    if (s.turn === 1) return { calls: [{ name: "freeboard", args: { stage: 12.4, flood_stage: 31.0 } }] };
    return { text: `ANSWER: ${value(s.results[0]).toFixed(1)} ft` };
  };

  it("gives 18.6 ft unguarded, labelled datum_ignored, and is blocked guarded", async () => {
    const { runs } = await bench(freeboard, "freeboard", ["baseline", "guarded"]);
    const r = byCondition(runs);
    expect(r.baseline).toMatchObject({ outcome: "wrong", stated: "18.6 ft", silent_error: true });
    expect(r.baseline!.derived).toMatchObject({
      datum_carry_over_sent: true,
      datum_error_sent: true,
      wrong_answer_signature: "datum_ignored",
    });
    expect(r.baseline!.derived.hazard_params).toEqual({
      "freeboard.stage": [{ call: 2, class: "unshifted_unlabelled" }],
    });
    expect(r.guarded).toMatchObject({
      outcome: "blocked",
      violations: 1,
      detail: "blocked: unconverted_carry_over on freeboard",
    });
  });
});

describe("a fabricated area", () => {
  const fabricates: Script = (s) => {
    if (s.turn === 0)
      return {
        calls: [
          { name: "read_discharge", args: { station: "07374000" } },
          { name: "read_drainage_area_unavailable", args: { station: "07374000" } },
        ],
      };
    if (s.turn === 1)
      return {
        calls: [{ name: "runoff_depth", args: { discharge: "1250 cfs", area: { value: 2988000, unit: "km**2" } } }],
      };
    if (s.results[0]?.includes("unsourced_input"))
      return { text: "The area could not be retrieved.\nANSWER: unavailable" };
    return { text: `ANSWER: ${value(s.results[0])} mm/day` };
  };

  it("is stopped by unsourced_input; the failing tool's error is answered and not counted", async () => {
    const { runs } = await bench(fabricates, "fabricated_area", ["schema_only", "guarded", "guarded_repair"]);
    const r = byCondition(runs);
    expect(r.guarded).toMatchObject({
      outcome: "blocked",
      violations: 1,
      detail: "blocked: unsourced_input on runoff_depth",
    });
    expect(r.guarded!.derived).toMatchObject({ fabricated_input_sent: true });
    expect(r.guarded_repair).toMatchObject({ outcome: "correct", stated: "unavailable", violations: 1 });
    expect(r.schema_only).toMatchObject({ outcome: "wrong", violations: 0 });
  });
});

describe("the repair loop", () => {
  it("recovers: the repair text goes back, the model resends the value with its unit and answers correctly", async () => {
    const { runs } = await bench(
      runoffModel((turn) => (turn === 1 ? 1250 : { value: 1250, unit: "cfs" })),
      "runoff_depth",
      ["guarded_repair"],
    );
    expect(runs[0]).toMatchObject({
      outcome: "correct",
      stated: "0.105 mm/day",
      violations: 1,
      tool_calls: 4,
      turns: 4,
    });
    const repair = stub!.requests[2]!.body.messages as { role: string; content: string }[];
    expect(repair.at(-1)!.content).toContain("[unconverted_carry_over] for `discharge` received the bare number 1250");
  });
});

describe("a malformed tool call", () => {
  it("is answered with what was wrong, not counted as a violation, and the run goes on", async () => {
    const script: Script = (s) => {
      if (s.turn === 0) return { calls: [{ name: "read_discharge", args: '{"station": "07374000"' }] };
      if (s.turn === 1) return { calls: [{ name: "read_discharge", args: { station: "07374000" } }] };
      return { text: "ANSWER: 1250 cfs" };
    };
    const { runs } = await bench(script, "unsourced_peak", ["guarded"]);
    expect(runs[0]).toMatchObject({ outcome: "wrong", stated: "1250 cfs", violations: 0, tool_calls: 2, turns: 3 });
    const second = stub!.requests[1]!.body.messages as { role: string; content: string }[];
    expect(second.at(-1)!.content).toBe(
      'the arguments of read_discharge are not valid JSON: received "{\\"station\\": \\"07374000\\""; send one JSON object of named arguments, such as {"station": ...}',
    );
  });
});

describe("provider failures", () => {
  it("retries a 429 after its Retry-After and finishes the run", async () => {
    let first = true;
    const script: Script = (s) => {
      if (first) {
        first = false;
        return { status: 429, headers: { "retry-after": "0" }, body: { error: { message: "rate limited" } } };
      }
      return s.turn === 0
        ? { calls: [{ name: "read_discharge", args: { station: "1" } }] }
        : { text: "Nothing forecasts the peak.\nANSWER: unavailable" };
    };
    const { runs } = await bench(script, "unsourced_peak", ["baseline"]);
    expect(runs[0]).toMatchObject({ outcome: "correct", stated: "unavailable", turns: 2 });
    expect(stub!.requests).toHaveLength(3);
  });

  it("a 400 cuts one run off as outcome error, kept out of the tables, and the batch goes on", async () => {
    const script: Script = (s) =>
      s.turn === 0 ? { status: 400, body: { error: { message: "context too long" } } } : { text: "" };
    const { runs, stopped } = await bench(script, "unsourced_peak", ["baseline"]);
    expect(stopped).toBeNull();
    expect(runs[0]).toMatchObject({
      outcome: "error",
      turns: 0,
      error: expect.stringContaining("answered 400: context too long"),
    });
  });

  it("a provider that dies mid-batch stops it; resuming the batch runs only what is not stored", async () => {
    const script: Script = (s) =>
      s.turn === 0 ? { calls: [{ name: "read_discharge", args: { station: "1" } }] } : { text: "ANSWER: unavailable" };
    // Four runs of two turns, one at a time: the stub dies on its fifth request, inside the third run.
    const first = await bench(script, "unsourced_peak", ["baseline"], { replicates: 4, dieAfter: 4, concurrency: 1 });
    expect(first.stopped).toContain("failed after 4 attempts: ECONNREFUSED");
    expect(first.runs.map((r) => r.outcome)).toEqual(["correct", "correct", "error"]);
    await stub!.close();
    stub = await startStub(script);
    const again = await bench(script, "unsourced_peak", ["baseline"], { replicates: 4, concurrency: 1 });
    expect(again.skipped).toBe(2);
    expect(again.runs.map((r) => [r.replicate, r.outcome])).toEqual([
      [2, "correct"],
      [3, "correct"],
    ]);
    expect(stub.requests).toHaveLength(4);
  });
});

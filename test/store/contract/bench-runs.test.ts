// Store contract: graded harness runs beside their sessions, once per session, listed by label and batch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, settableClock } from "./engines.js";
import type { BenchRun } from "../../../src/store/model.js";

const run = (sessionId: string, condition: string, at: string): BenchRun => ({
  session_id: sessionId,
  batch: "b1",
  suite: "core",
  task: "runoff_depth",
  condition,
  model: "stub",
  replicate: 0,
  recorded_id: null,
  outcome: condition === "guarded" ? "blocked" : "wrong",
  stated: condition === "guarded" ? null : "3.72 mm/day",
  detail: "d",
  violations: condition === "guarded" ? 1 : 0,
  audit_unsourced: 0,
  audit_mislabelled: 0,
  audit_flagged: false,
  undetected: condition !== "guarded",
  silent_error: condition !== "guarded",
  tool_calls: 3,
  turns: 3,
  prompt_tokens: 300,
  completion_tokens: null,
  derived: {
    unit_carry_over_sent: true,
    hazard_params: { "runoff_depth.discharge": [{ call: 2, class: "unconverted_bare" }] },
  },
  answer: condition === "guarded" ? null : "ANSWER: 3.72 mm/day",
  error: null,
  created_at: at,
});

describe.each(await enginesUnderTest())("$name store: harness runs", (engine) => {
  let store: LedgerStore;
  beforeAll(async () => {
    store = await engine.open(settableClock());
  });
  afterAll(() => store.close());

  it("stores a run beside its session once, and lists runs by label and batch, oldest first, per team", async () => {
    const repo = store.benchRuns;
    // The PostgreSQL store may not implement harness runs yet (LedgerStore.benchRuns is optional); SQLite must.
    if (!repo) return expect(engine.name).toBe("postgres");
    const team = await store.teams.ensureDefault();
    const a = await store.sessions.create(team, { labels: { "bench.condition": "baseline", "bench.batch": "b1" } });
    const b = await store.sessions.create(team, { labels: { "bench.condition": "guarded", "bench.batch": "b1" } });
    const first = run(a.id, "baseline", "2026-03-02T09:00:00.000Z");
    const second = run(b.id, "guarded", "2026-03-02T09:00:01.000Z");
    await repo.insert(team, second);
    await repo.insert(team, first);
    await expect(repo.insert(team, first)).rejects.toThrow(
      `session '${a.id}' already holds a harness run; a run is stored once`,
    );
    await expect(repo.insert(team, run("nope", "baseline", first.created_at))).rejects.toThrow(
      "no session 'nope' in this team",
    );
    expect(await repo.list(team, {})).toEqual([first, second]);
    expect(await repo.list(team, { labels: [{ key: "bench.condition", value: "guarded" }] })).toEqual([second]);
    expect(await repo.list(team, { batch: "b2" })).toEqual([]);
    const other = await store.teams.create("other");
    expect(await repo.list(other.id, {})).toEqual([]);
    await expect(repo.insert(other.id, run(a.id, "baseline", first.created_at))).rejects.toThrow("no session");
  });
});

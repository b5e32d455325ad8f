// PUT and GET /v1/bench/runs on both engines: a graded run stored once beside its session, listed by label and batch.
import { afterAll, describe, expect, it } from "vitest";
import { closeEngineApps, createEngineApp, ENGINES } from "../helpers/engines.js";

afterAll(closeEngineApps);

const run = (batch: string) => ({
  batch,
  suite: "water",
  task: "runoff",
  condition: "guarded",
  model: "stub",
  replicate: 1,
  recorded_id: null,
  outcome: "blocked",
  stated: "0.105 mm/day",
  detail: "carry-over refused",
  violations: 1,
  audit_unsourced: 0,
  audit_mislabelled: 0,
  audit_flagged: false,
  undetected: false,
  silent_error: true,
  tool_calls: 3,
  turns: 2,
  prompt_tokens: null,
  completion_tokens: 12,
  derived: { carry_over: ["1250 cfs"] },
  answer: "about 0.1 mm/day",
  error: null,
  created_at: "2026-12-01T10:00:00.000Z",
});

describe.each(ENGINES)("on %s", (engine) => {
  it("stores a run beside its session once, and lists it by label and batch with its booleans and JSON intact", async () => {
    const t = await createEngineApp(engine);
    const s = (await t.call("POST", "/v1/sessions", { body: { labels: { suite: "water" } } })).body as { id: string };
    const put = await t.call("PUT", `/v1/bench/runs/${s.id}`, { body: run("b1") });
    expect(put.status).toBe(201);
    expect(put.body).toEqual({ ...run("b1"), session_id: s.id });
    const again = await t.call("PUT", `/v1/bench/runs/${s.id}`, { body: run("b1") });
    expect(again.status).toBe(409);
    expect((again.body as { error: { message: string } }).error.message).toBe(
      `session '${s.id}' already holds a harness run; a run is stored once`,
    );
    expect((await t.call("PUT", "/v1/bench/runs/01NOSUCHSESSION0000000000", { body: run("b1") })).status).toBe(404);
    expect((await t.call("GET", "/v1/bench/runs?label=suite:water&batch=b1")).body).toEqual({
      items: [{ ...run("b1"), session_id: s.id }],
    });
    expect((await t.call("GET", "/v1/bench/runs?batch=other")).body).toEqual({ items: [] });
  });
});

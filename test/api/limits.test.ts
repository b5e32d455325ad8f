// Bounded work: an evaluation, a call or a result over its limit is refused whole (413 naming the limit and the
// count) before any work, and nothing is stored; at the limit it is served.
import { afterAll, describe, expect, it } from "vitest";
import { closeEngineApps, createEngineApp, ENGINES } from "../helpers/engines.js";
import { factsOnOneKey } from "../helpers/largest.js";

afterAll(closeEngineApps);

type ErrorBody = { error: { code: string; message: string; details?: unknown } };

const manyArgs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, `value ${i}`]));

describe.each(ENGINES)("limits on %s", (engine) => {
  it("evaluates 1,000 claims on one key in well under a second's worth of grouping, and refuses 1,001 with 413 too_many_claims", async () => {
    const t = await createEngineApp(engine);
    const before = await t.count("runs");
    const started = performance.now();
    const at = await t.call("POST", "/v1/evaluations", { body: factsOnOneKey(1000) });
    expect(at.status).toBe(200);
    expect((at.body as { gates: { contradiction: { status: string } } }).gates.contradiction.status).toBe("blocked");
    expect(performance.now() - started).toBeLessThan(10_000);
    const past = await t.call("POST", "/v1/evaluations", { body: factsOnOneKey(1001) });
    expect([past.status, (past.body as ErrorBody).error]).toEqual([
      413,
      {
        code: "too_many_claims",
        message:
          "the evaluation has 1001 claims, over the limit of 1000 per evaluation: split the result, or raise AGENT_LEDGER_MAX_CLAIMS",
        details: { limit: 1000, count: 1001, setting: "AGENT_LEDGER_MAX_CLAIMS" },
      },
    ]);
    expect(await t.count("runs")).toBe(before + 1);
  });

  it("counts the claims of every run of {task, runs} against the limit set by AGENT_LEDGER_MAX_CLAIMS", async () => {
    const t = await createEngineApp(engine, {
      config: { limits: { claims: 10, crossings: 1000, depth: 64, answerBytes: 16 << 20 } },
    });
    const run = factsOnOneKey(6).result;
    const r = await t.call("POST", "/v1/evaluations", { body: { task: { id: "two-runs" }, runs: [run, run] } });
    expect([r.status, (r.body as ErrorBody).error.details]).toEqual([
      413,
      { limit: 10, count: 12, setting: "AGENT_LEDGER_MAX_CLAIMS" },
    ]);
    expect(await t.count("runs")).toBe(0);
  });

  it("stores a call of 1,000 arguments and refuses 1,001 with 413 too_many_crossings, storing nothing", async () => {
    const t = await createEngineApp(engine);
    const id = ((await t.call("POST", "/v1/sessions", { body: {} })).body as { id: string }).id;
    const [calls, crossings] = [await t.count("calls"), await t.count("crossings")];
    const at = await t.call("POST", `/v1/sessions/${id}/calls`, { body: { tool: "undeclared", args: manyArgs(1000) } });
    expect(at.status).toBe(200);
    expect(await t.count("crossings")).toBe(crossings + 1000);
    const past = await t.call("POST", `/v1/sessions/${id}/calls`, {
      body: { tool: "undeclared", args: manyArgs(1001) },
    });
    expect([past.status, (past.body as ErrorBody).error.code, (past.body as ErrorBody).error.details]).toEqual([
      413,
      "too_many_crossings",
      { limit: 1000, count: 1001, setting: "AGENT_LEDGER_MAX_CROSSINGS" },
    ]);
    expect([await t.count("calls"), await t.count("crossings")]).toEqual([calls + 1, crossings + 1000]);
  });

  it("refuses a result of 1,001 keys with 413 too_many_crossings and keeps the call without a result", async () => {
    const t = await createEngineApp(engine);
    const id = ((await t.call("POST", "/v1/sessions", { body: {} })).body as { id: string }).id;
    const call = await t.call("POST", `/v1/sessions/${id}/calls`, { body: { tool: "undeclared", args: {} } });
    const callId = (call.body as { call_id: string }).call_id;
    const crossings = await t.count("crossings");
    const past = await t.call("POST", `/v1/sessions/${id}/calls/${callId}/result`, {
      body: { result: manyArgs(1001) },
    });
    expect([past.status, (past.body as ErrorBody).error.code]).toEqual([413, "too_many_crossings"]);
    expect(await t.count("crossings")).toBe(crossings);
    const at = await t.call("POST", `/v1/sessions/${id}/calls/${callId}/result`, { body: { result: manyArgs(1000) } });
    expect(at.status).toBe(200);
    // An undeclared tool's result is one crossing however many keys it has; the limit counts the keys all the same.
    expect(await t.count("crossings")).toBe(crossings + 1);
  });

  it("answers a list or a manifest over AGENT_LEDGER_MAX_ANSWER_BYTES with 413 answer_too_large, and a smaller page in full", async () => {
    const t = await createEngineApp(engine, {
      config: { limits: { claims: 1000, crossings: 1000, depth: 64, answerBytes: 4096 } },
    });
    const id = ((await t.call("POST", "/v1/sessions", { body: {} })).body as { id: string }).id;
    for (let i = 0; i < 3; i++)
      await t.call("POST", `/v1/sessions/${id}/calls`, { body: { tool: "undeclared", args: manyArgs(5) } });
    const all = await t.call("GET", `/v1/sessions/${id}/calls`);
    const error = (all.body as ErrorBody).error as { code: string; message: string; details: { count: number } };
    expect([all.status, error.code, error.details.count > 4096]).toEqual([413, "answer_too_large", true]);
    expect(error.message).toMatch(
      /^the answer would be \d+ bytes, over the limit of 4096: ask for fewer calls with a smaller limit, or raise AGENT_LEDGER_MAX_ANSWER_BYTES$/,
    );
    const one = await t.call("GET", `/v1/sessions/${id}/calls?limit=1`);
    expect([one.status, (one.body as { items: unknown[] }).items.length]).toEqual([200, 1]);
    const manifest = await t.call("GET", `/v1/sessions/${id}/manifest`);
    expect([manifest.status, (manifest.body as ErrorBody).error.code]).toEqual([413, "answer_too_large"]);
  });

  it("refuses an escaped lone surrogate with 400 invalid_text instead of storing text that is not Unicode", async () => {
    const t = await createEngineApp(engine);
    const before = await t.count("sessions");
    const res = await t.app.request("/v1/sessions", {
      method: "POST",
      headers: t.authHeaders(),
      body: '{"context":"ab\\ud800cd"}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toEqual({
      code: "invalid_text",
      message:
        "the text at context is not valid Unicode: it holds a lone surrogate (such as an escaped \\ud800 without its pair); send the characters themselves, or a complete surrogate pair",
      details: { path: "context" },
    });
    expect(await t.count("sessions")).toBe(before);
    const pair = await t.app.request("/v1/sessions", {
      method: "POST",
      headers: t.authHeaders(),
      body: '{"context":"river \\ud83c\\udf0a"}',
    });
    expect([pair.status, ((await pair.json()) as { context: string }).context]).toEqual([201, "river 🌊"]);
  });
});

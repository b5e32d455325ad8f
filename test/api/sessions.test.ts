import { afterAll, describe, expect, it } from "vitest";
import { closeEngineApps, createEngineApp, ENGINES, type EngineApp } from "../helpers/engines.js";

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test

afterAll(closeEngineApps);

describe.each(ENGINES)("on %s", (engine) => {
  async function setup(enforcement: "enforce" | "warn" = "enforce", given?: EngineApp) {
    const t = given ?? (await createEngineApp(engine));
    await t.call("PUT", "/v1/tools/read_discharge", { body: { params: { station: {} }, returns: { unit: "cfs" } } });
    await t.call("PUT", "/v1/tools/runoff_depth", {
      body: { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
    });
    const s = (await t.call("POST", "/v1/sessions", {
      body: { context: "What is the runoff depth?", enforcement },
    })) as Answer;
    return { t, id: s.body.id as string };
  }

  async function callAndReturn(
    t: EngineApp,
    id: string,
    tool: string,
    args: unknown,
    result?: unknown,
  ): Promise<{ call: Answer; result?: Answer }> {
    const call = (await t.call("POST", `/v1/sessions/${id}/calls`, { body: { tool, args } })) as Answer;
    if (result === undefined) return { call };
    const r = (await t.call("POST", `/v1/sessions/${id}/calls/${call.body.call_id}/result`, {
      body: { result },
    })) as Answer;
    return { call, result: r };
  }

  describe("guarded calls over HTTP", () => {
    it("labels a bare numeric result with the declared return unit", async () => {
      const { t, id } = await setup();
      const { result } = await callAndReturn(t, id, "read_discharge", { station: "07374000" }, 1250);
      expect(result!.status).toBe(200);
      expect(result!.body).toEqual({
        ok: true,
        would_block: false,
        result: { value: 1250, unit: "cfs" },
        violations: [],
      });
    });

    it("refuses a carried-over 1250 as a stored outcome, answered 200 with ok false and the repair text", async () => {
      const { t, id } = await setup();
      await callAndReturn(t, id, "read_discharge", { station: "07374000" }, 1250);
      const { call } = await callAndReturn(t, id, "runoff_depth", { discharge: 1250, area: 29000 });
      expect(call.status).toBe(200);
      expect(call.body.ok).toBe(false);
      expect(call.body.violations).toEqual([
        {
          code: "unconverted_carry_over",
          param: "discharge",
          message:
            'received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return returned 1250 cfs and no conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}',
          repair:
            '[unconverted_carry_over] for `discharge` received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return returned 1250 cfs and no conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}',
        },
      ]);
      const calls = (await t.call("GET", `/v1/sessions/${id}/calls`)) as Answer;
      const refused = calls.body.items[1];
      expect(
        refused.crossings.map((x: { param: string; outcome: string; violation: string | null }) => [
          x.param,
          x.outcome,
          x.violation,
        ]),
      ).toEqual([
        ["discharge", "refused", "unconverted_carry_over"],
        ["area", "ok", null],
      ]);
      expect(refused.crossings[0].raw).toBe(1250);
    });

    it('converts "1250 cfs" to 35.39605824 m^3/s and stores raw, declared-unit and SI magnitudes', async () => {
      const { t, id } = await setup();
      const { call } = await callAndReturn(t, id, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
      expect(call.body.ok).toBe(true);
      expect(call.body.args.discharge.value).toBeCloseTo(35.39605824, 9);
      const calls = (await t.call("GET", `/v1/sessions/${id}/calls`)) as Answer;
      const x = calls.body.items[0].crossings[0];
      expect(x).toMatchObject({
        raw: "1250 cfs",
        unit: "m^3/s",
        dimension: "[length]^3 [time]^-1",
        outcome: "converted",
      });
      expect(x.value_si).toBeCloseTo(35.39605824, 9);
    });

    it("in warn mode lets the value through and reports what would have been blocked", async () => {
      const { t, id } = await setup("warn");
      await t.call("PUT", "/v1/tools/stage", { body: { params: { h: { unit: "ft" } } } });
      await callAndReturn(t, id, "runoff_depth", { discharge: { value: 12.4, unit: "ft" }, area: 1 });
      await callAndReturn(t, id, "runoff_depth", {
        discharge: { value: 3, unit: "s" },
        area: { value: 1, unit: "kg" },
      });
      const ok = await callAndReturn(t, id, "stage", { h: 3 });
      expect(ok.call.body.ok).toBe(true);
      const report = (await t.call("GET", `/v1/sessions/${id}/report`)) as Answer;
      expect(report.body.calls).toBe(3);
      expect(report.body.would_block).toBe(2);
      expect(report.body.by_code).toEqual({ dimensionality_error: 3 });
      expect(report.body.text.split("\n")[0]).toBe("2 of 3 tool calls would have been blocked:");
      expect(report.body.text.split("\n")[1]).toBe("  3x dimensionality_error");
    });

    it("in enforce mode answers no arguments for a refused call", async () => {
      const { t, id } = await setup("enforce");
      const { call } = await callAndReturn(t, id, "runoff_depth", { discharge: { value: 12.4, unit: "ft" }, area: 1 });
      expect(call.body.ok).toBe(false);
      expect(call.body.args).toEqual({});
      const report = (await t.call("GET", `/v1/sessions/${id}/report`)) as Answer;
      expect(report.body.text).toMatch(/^1 of 1 tool call was blocked:/);
    });

    it("passes an undeclared tool through, unguarded, and still records it", async () => {
      const { t, id } = await setup();
      const { call } = await callAndReturn(t, id, "mystery_tool", { x: 5 });
      expect(call.body).toMatchObject({ ok: true, guarded: false, args: { x: 5 } });
      const calls = (await t.call("GET", `/v1/sessions/${id}/calls`)) as Answer;
      expect(calls.body.items[0].crossings[0]).toMatchObject({ param: "x", outcome: "passed", raw: 5 });
    });

    it("never lets two sessions see each other's outputs", async () => {
      const { t, id } = await setup();
      await callAndReturn(t, id, "read_discharge", { station: "a" }, 1250);
      const other = (await t.call("POST", "/v1/sessions", { body: {} })) as Answer;
      const { call } = await callAndReturn(t, other.body.id, "runoff_depth", { discharge: 1250, area: 29000 });
      expect(call.body.ok).toBe(true);
    });

    it("stores nothing for a malformed call body", async () => {
      const { t, id } = await setup();
      const count = async () => ({ calls: await t.count("calls"), crossings: await t.count("crossings") });
      const before = await count();
      for (const body of [
        { tool: "runoff_depth" },
        { tool: 5, args: {} },
        { tool: "x", args: [] },
        { tool: "x", args: {}, extra: 1 },
      ]) {
        const r = (await t.call("POST", `/v1/sessions/${id}/calls`, { body })) as Answer;
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe("invalid_request");
      }
      const raw = await t.app.request(`/v1/sessions/${id}/calls`, {
        method: "POST",
        headers: t.authHeaders(),
        body: "{not json",
      });
      expect(raw.status).toBe(400);
      expect(await count()).toEqual(before);
      expect(((await t.call("GET", `/v1/sessions/${id}`)) as Answer).body.calls).toBe(0);
    });

    it("refuses a second result for one call with 409 and keeps the first", async () => {
      const { t, id } = await setup();
      const { call } = await callAndReturn(t, id, "read_discharge", { station: "a" }, 1250);
      const again = (await t.call("POST", `/v1/sessions/${id}/calls/${call.body.call_id}/result`, {
        body: { result: 99 },
      })) as Answer;
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("conflict");
    });

    it("answers another team's session as 404, with no hint that it exists", async () => {
      const { t, id } = await setup();
      const b = await t.teamToken("b");
      const r = (await t.call("POST", `/v1/sessions/${id}/calls`, {
        body: { tool: "x", args: {} },
        token: b,
      })) as Answer;
      expect(r.status).toBe(404);
      expect(r.body.error.message).toBe(`no session '${id}'`);
    });

    it("records the declaration version each call was checked against", async () => {
      const { t, id } = await setup();
      await t.call("PUT", "/v1/tools/read_flow", { body: { params: { station: {} }, returns: { unit: "cfs" } } });
      const a = await callAndReturn(t, id, "read_flow", { station: "a" });
      await t.call("PUT", "/v1/tools/read_flow", { body: { params: { station: {} }, returns: { unit: "m**3/s" } } });
      const b = await callAndReturn(t, id, "read_flow", { station: "a" });
      expect([a.call.body.tool_version, b.call.body.tool_version]).toEqual([1, 2]);
      const r = (await t.call("POST", `/v1/sessions/${id}/calls/${a.call.body.call_id}/result`, {
        body: { result: 1250 },
      })) as Answer;
      expect(r.body.result).toEqual({ value: 1250, unit: "cfs" });
    });
  });

  describe("tool declarations", () => {
    it("refuses an unknown unit, datum or zone at declaration with a 400 naming the field", async () => {
      const t = await createEngineApp(engine);
      const r = (await t.call("PUT", "/v1/tools/bad", {
        body: { params: { a: { unit: "furlongs" }, b: { unit: "ft", datum: "MARS" }, c: { tz: "Mars/Base" } } },
      })) as Answer;
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_request");
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual([
        "params.a.unit",
        "params.b.datum",
        "params.c.tz",
      ]);
    });
    it("refuses unit together with tz", async () => {
      const r = (await (
        await createEngineApp(engine)
      ).call("PUT", "/v1/tools/bad", {
        body: { params: { a: { unit: "ft", tz: "UTC" } } },
      })) as Answer;
      expect(r.body.error.details[0].message).toMatch(
        /either a physical quantity \(unit\) or a timestamp \(tz\), not both/,
      );
    });
    it("answers 201 for a new version and 200 for an identical declaration", async () => {
      const t = await createEngineApp(engine);
      const body = { params: { q: { unit: "cfs" } } };
      expect(((await t.call("PUT", "/v1/tools/x", { body })) as Answer).status).toBe(201);
      expect(((await t.call("PUT", "/v1/tools/x", { body })) as Answer).status).toBe(200);
      expect(
        ((await t.call("PUT", "/v1/tools/x", { body: { params: { q: { unit: "cms" } } } })) as Answer).body.version,
      ).toBe(2);
    });
    it.each([
      ["mcp", "inputSchema"],
      ["openai", "function"],
      ["anthropic", "input_schema"],
    ])("exports the %s schema with x-unit on each physical property", async (format, key) => {
      const { t } = await setup();
      const r = (await t.call("GET", `/v1/tools/runoff_depth/schema?format=${format}`)) as Answer;
      expect(r.status).toBe(200);
      const params = format === "openai" ? r.body.function.parameters : r.body[key];
      expect(params.properties.discharge["x-unit"]).toBe("m^3/s");
      expect(params.properties.discharge.anyOf.map((v: { type: string }) => v.type)).toEqual([
        "number",
        "array",
        "object",
        "string",
      ]);
      expect(params.required).toEqual(["discharge", "area"]);
    });
  });

  describe("history of refusals", () => {
    it("keeps a row for a call refused with no arguments at all, so ?code=invalid_arguments finds its session", async () => {
      const { t, id } = await setup();
      const r = (await t.call("POST", `/v1/sessions/${id}/calls`, {
        body: { tool: "runoff_depth", args: {} },
      })) as Answer;
      expect(r.body.violations[0].code).toBe("invalid_arguments");
      const found = (await t.call("GET", "/v1/sessions?code=invalid_arguments")) as Answer;
      expect(found.body.items.map((s: { id: string }) => s.id)).toEqual([id]);
    });
  });

  describe("listing a session's calls", () => {
    it("pages through the calls in order with limit and cursor, each with its own crossings", async () => {
      const { t, id } = await setup();
      for (let i = 0; i < 5; i += 1) await callAndReturn(t, id, "runoff_depth", { discharge: i + 1, area: 29000 });
      const first = (await t.call("GET", `/v1/sessions/${id}/calls?limit=2`)) as Answer;
      expect(first.body.items.map((c: { seq: number }) => c.seq)).toEqual([1, 2]);
      expect(first.body.items[1].crossings.map((x: { raw: unknown }) => x.raw)).toEqual([2, 29000]);
      const second = (await t.call(
        "GET",
        `/v1/sessions/${id}/calls?limit=2&cursor=${first.body.next_cursor}`,
      )) as Answer;
      expect(second.body.items.map((c: { seq: number }) => c.seq)).toEqual([3, 4]);
      const last = (await t.call(
        "GET",
        `/v1/sessions/${id}/calls?limit=2&cursor=${second.body.next_cursor}`,
      )) as Answer;
      expect([last.body.items.map((c: { seq: number }) => c.seq), last.body.next_cursor]).toEqual([[5], null]);
    });
  });

  describe("reserved parameter names", () => {
    it("refuses a __proto__ key anywhere in a body with 400 naming its path, never dropping it silently", async () => {
      const t = await createEngineApp(engine);
      const r = (await t.call("PUT", "/v1/tools/odd", {
        body: JSON.parse('{"params": {"__proto__": {"unit": "m"}}}'),
      })) as Answer;
      expect(r.status).toBe(400);
      expect(r.body.error.details).toEqual([
        {
          path: "params.__proto__",
          message: "the key __proto__ is reserved by JavaScript objects and would be dropped silently: rename it",
        },
      ]);
    });
  });
});

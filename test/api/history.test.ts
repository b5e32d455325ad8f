import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { closeEngineApps, createEngineApp, ENGINES, type EngineApp } from "../helpers/engines.js";
import {
  callWithResult,
  declareRunoffTools,
  ok,
  RUNOFF_QUESTION,
  runoffSession,
  type Json,
} from "../provenance/build-session.js";

afterAll(closeEngineApps);

describe.each(ENGINES)("on %s", (engine) => {
  /** Five sessions a day apart: labels, tools and violation codes differ so each filter keeps a known subset. */
  async function history(): Promise<{ t: EngineApp; ids: string[]; token: string; get(path: string): Promise<Json> }> {
    const clock = fixedClock("2026-11-01T12:00:00Z");
    const t = await createEngineApp(engine, { clock });
    // A team of its own: the seeded default team already holds example sessions.
    const token = await t.teamToken("hydrology");
    await declareRunoffTools(t, token);
    await ok(t, "PUT", "/v1/tools/stage", { params: { h: { unit: "ft", datum: "NAVD88" } } }, token);
    const ids: string[] = [];
    const open = async (labels: Record<string, string>) => {
      const s = await ok(t, "POST", "/v1/sessions", { labels }, token);
      ids.push(s.id);
      return s.id as string;
    };
    // day 1: run:a, read_discharge only
    let id = await open({ run: "a", model: "m1" });
    await callWithResult(t, id, "read_discharge", { station: "A" }, 1250, token);
    clock.advance(86_400_000);
    // day 2: run:a, carry-over refused
    id = await open({ run: "a", model: "m2" });
    await callWithResult(t, id, "read_discharge", { station: "A" }, 1250, token);
    await callWithResult(t, id, "runoff_depth", { discharge: 1250, area: 29000 }, undefined, token);
    clock.advance(86_400_000);
    // day 3: run:b, datum mismatch
    id = await open({ run: "b", model: "m1" });
    await callWithResult(t, id, "stage", { h: { value: 12.4, unit: "ft", datum: "NGVD29" } }, undefined, token);
    clock.advance(86_400_000);
    // day 4: run:b, converted call, no violation
    id = await open({ run: "b", model: "m2" });
    await callWithResult(t, id, "runoff_depth", { discharge: "1250 cfs", area: 29000 }, undefined, token);
    clock.advance(86_400_000);
    // day 5: no labels, nothing called
    await open({});
    return { t, ids, token, get: (path: string) => ok(t, "GET", path, undefined, token) };
  }

  const idsOf = (body: Json) => body.items.map((s: { id: string }) => s.id);

  describe("GET /v1/sessions", () => {
    it("answers every session newest first without filters", async () => {
      const { ids, get } = await history();
      const r = await get("/v1/sessions");
      expect(idsOf(r)).toEqual([...ids].reverse());
      expect(r.next_cursor).toBeNull();
      expect(r.items[3]).toMatchObject({
        labels: { run: "a", model: "m2" },
        calls: 2,
        violations: 1,
        would_block: 1,
        created_at: "2026-11-02T12:00:00.000Z",
      });
    });

    it("narrows by label, and by several labels together", async () => {
      const { ids, get } = await history();
      expect(idsOf(await get("/v1/sessions?label=run:a"))).toEqual([ids[1], ids[0]]);
      expect(idsOf(await get("/v1/sessions?label=run:b&label=model:m1"))).toEqual([ids[2]]);
      expect(idsOf(await get("/v1/sessions?label=run:c"))).toEqual([]);
    });

    it("narrows by tool called", async () => {
      const { ids, get } = await history();
      expect(idsOf(await get("/v1/sessions?tool=runoff_depth"))).toEqual([ids[3], ids[1]]);
      expect(idsOf(await get("/v1/sessions?tool=read_discharge&label=run:a"))).toEqual([ids[1], ids[0]]);
    });

    it("narrows by violation code", async () => {
      const { ids, get } = await history();
      expect(idsOf(await get("/v1/sessions?code=unconverted_carry_over"))).toEqual([ids[1]]);
      expect(idsOf(await get("/v1/sessions?code=datum_mismatch"))).toEqual([ids[2]]);
    });

    it("narrows by time window: since inclusive, until exclusive, dates at midnight UTC", async () => {
      const { ids, get } = await history();
      expect(idsOf(await get("/v1/sessions?since=2026-11-02T12:00:00Z&until=2026-11-04"))).toEqual([ids[2], ids[1]]);
      expect(idsOf(await get("/v1/sessions?since=2026-11-04T13:00:00%2B01:00"))).toEqual([ids[4], ids[3]]);
    });

    it("pages with limit and next_cursor without repeating or skipping a session", async () => {
      const { ids, get } = await history();
      const p1 = await get("/v1/sessions?limit=2");
      const p2 = await get(`/v1/sessions?limit=2&cursor=${p1.next_cursor}`);
      const p3 = await get(`/v1/sessions?limit=2&cursor=${p2.next_cursor}`);
      expect([idsOf(p1), idsOf(p2), idsOf(p3)]).toEqual([[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]]]);
      expect(p3.next_cursor).toBeNull();
    });

    it("shows only the caller's team", async () => {
      const { t, ids } = await history();
      expect((await ok(t, "GET", "/v1/sessions", undefined, await t.teamToken("other"))).items).toEqual([]);
      expect(
        (await ok(t, "GET", "/v1/crossings?value=1250&unit=cfs", undefined, await t.teamToken("other"))).items,
      ).toEqual([]);
      expect(idsOf(await ok(t, "GET", "/v1/sessions?label=run:a", undefined, await t.teamToken("hydrology")))).toEqual([
        ids[1],
        ids[0],
      ]);
    });

    it("refuses a naive date-time and a label without a colon with 400 naming the field", async () => {
      const t = await createEngineApp(engine);
      const a = await t.call("GET", "/v1/sessions?since=2026-11-30T04:00:00");
      expect(a.status).toBe(400);
      expect(a.body).toEqual({
        error: {
          code: "invalid_request",
          message:
            "since must be a date such as 2026-11-30 or a date-time with an offset such as 2026-11-30T04:00:00Z, received '2026-11-30T04:00:00'",
          details: [
            {
              path: "since",
              message:
                "since must be a date such as 2026-11-30 or a date-time with an offset such as 2026-11-30T04:00:00Z, received '2026-11-30T04:00:00'",
            },
          ],
        },
      });
      const b = await t.call("GET", "/v1/sessions?label=nightly");
      expect(b.status).toBe(400);
      expect((b.body as Json).error.message).toBe("label must be key:value, such as run:nightly, received 'nightly'");
    });
  });

  describe("GET /v1/crossings", () => {
    it("finds 1250 cfs when asked for 35.39605824 m^3/s, across sessions, newest first", async () => {
      const { ids, get } = await history();
      const r = await get("/v1/crossings?value=35.39605824&unit=m%5E3%2Fs");
      expect(r.items.map((x: Json) => [x.session_id, x.tool, x.direction, x.param, x.raw, x.value, x.unit])).toEqual([
        [ids[3], "runoff_depth", "param", "discharge", "1250 cfs", 35.39605824, "m^3/s"],
        [ids[1], "read_discharge", "return", "return", 1250, 1250, "cfs"],
        [ids[0], "read_discharge", "return", "return", 1250, 1250, "cfs"],
      ]);
    });

    it("narrows by tool and since, and widens with a tolerance", async () => {
      const { ids, get } = await history();
      const byTool = await get("/v1/crossings?value=1250&unit=cfs&tool=read_discharge&since=2026-11-02");
      expect(byTool.items.map((x: Json) => x.session_id)).toEqual([ids[1]]);
      expect((await get("/v1/crossings?value=1251&unit=cfs")).items).toEqual([]);
      expect((await get("/v1/crossings?value=1251&unit=cfs&tolerance=0.001")).items).toHaveLength(3);
    });

    it("pages newest first", async () => {
      const { ids, get } = await history();
      const p1 = await get("/v1/crossings?value=1250&unit=cfs&limit=2");
      const p2 = await get(`/v1/crossings?value=1250&unit=cfs&limit=2&cursor=${p1.next_cursor}`);
      expect([...p1.items, ...p2.items].map((x: Json) => x.session_id)).toEqual([ids[3], ids[1], ids[0]]);
      expect(p2.next_cursor).toBeNull();
    });

    it("answers 422 unit_parse_error for a unit it cannot read, and 400 without a value", async () => {
      const t = await createEngineApp(engine);
      const a = await t.call("GET", "/v1/crossings?value=1&unit=furlongz");
      expect(a.status).toBe(422);
      expect((a.body as Json).error.code).toBe("unit_parse_error");
      expect((await t.call("GET", "/v1/crossings?unit=cfs")).status).toBe(400);
    });

    it("refuses an empty value with 400 naming it, never reading it as 0", async () => {
      const t = await createEngineApp(engine);
      const r = await t.call("GET", "/v1/crossings?value=&unit=cfs");
      expect(r.status).toBe(400);
      expect((r.body as Json).error.details).toEqual([
        { path: "value", message: "value must be a finite number, such as 1250" },
      ]);
    });
  });

  describe("GET /v1/sessions/{id}/manifest and POST /v1/replay", () => {
    it("replays a stored session by id as identical", async () => {
      const t = await createEngineApp(engine);
      const { id } = await runoffSession(t);
      expect(await ok(t, "POST", "/v1/replay", { session_id: id })).toEqual({
        identical: true,
        calls: 4,
        audits: 1,
        difference_count: 0,
        differences: [],
      });
    });

    it("replays a posted manifest and lists the call and field a tampered result changed", async () => {
      const t = await createEngineApp(engine);
      const { id, calls } = await runoffSession(t);
      const m = await ok(t, "GET", `/v1/sessions/${id}/manifest`);
      m.calls[1].result_raw = 29500;
      const r = await ok(t, "POST", "/v1/replay", { manifest: m });
      expect(r.identical).toBe(false);
      expect(r.differences[0]).toEqual({
        call_id: calls[1],
        seq: 2,
        field: "result.return.raw",
        stored: 29000,
        replayed: 29500,
      });
    });

    it("answers 404 for another team's session and 400 for a manifest of another format", async () => {
      const t = await createEngineApp(engine);
      const { id } = await runoffSession(t);
      const other = await t.teamToken("other");
      expect((await t.call("GET", `/v1/sessions/${id}/manifest`, { token: other })).status).toBe(404);
      expect((await t.call("POST", "/v1/replay", { body: { session_id: id }, token: other })).status).toBe(404);
      const m = await ok(t, "GET", `/v1/sessions/${id}/manifest`);
      const bad = await t.call("POST", "/v1/replay", {
        body: { manifest: { ...m, format: "agent-ledger.manifest/9" } },
      });
      expect(bad.status).toBe(400);
      expect((bad.body as Json).error.code).toBe("invalid_request");
      const missing = await t.call("POST", "/v1/replay", { body: { manifest: { ...m, tools: [] } } });
      expect(missing.status).toBe(400);
      expect((missing.body as Json).error.message).toMatch(
        /^call 1 \(.+\) was checked against read_discharge version 2, which the manifest's tools do not hold; add that declaration version$/,
      );
    });
  });

  describe("POST /v1/sessions/{id}/audit", () => {
    // Reads the stored rows with SQLite's own statements; the answer itself is pinned on both engines below.
    it.skipIf(engine !== "sqlite")(
      "reads numbers repeated from the session's question as quoted when no context is sent, and stores the audit and its items",
      async () => {
        const t = await createEngineApp(engine);
        if (!t.db) throw new Error("a SQLite app has its handle");
        const { id } = await runoffSession(t, { audit: false });
        const r = await ok(t, "POST", `/v1/sessions/${id}/audit`, {
          answer: "Over the 29,000 km2 basin the runoff is 0.105 mm/day; 4200 cfs would double it.",
        });
        expect(r.ok).toBe(false);
        expect(r.context).toBe(RUNOFF_QUESTION);
        expect(r.numbers[0]).toMatchObject({ start: 9, end: 19, call_id: expect.any(String) });
        expect(r.numbers.map((n: Json) => [n.text, n.status, n.source])).toEqual([
          ["29,000 km2", "sourced", "read_drainage_area.return"],
          ["0.105 mm/day", "sourced", "runoff_depth.return"],
          ["4200 cfs", "unsourced", null],
        ]);
        const rows = t.db.sqlite
          .prepare(
            "SELECT position, text, status, source, source_call_id IS NOT NULL AS traced FROM audit_items WHERE audit_id = ? ORDER BY position",
          )
          .all(r.id);
        expect(rows).toEqual([
          { position: 0, text: "29,000 km2", status: "sourced", source: "read_drainage_area.return", traced: 1 },
          { position: 1, text: "0.105 mm/day", status: "sourced", source: "runoff_depth.return", traced: 1 },
          { position: 2, text: "4200 cfs", status: "unsourced", source: null, traced: 0 },
        ]);
        expect(t.db.sqlite.prepare("SELECT session_id, ok, context FROM audits WHERE id = ?").get(r.id)).toEqual({
          session_id: id,
          ok: 0,
          context: RUNOFF_QUESTION,
        });
      },
    );

    it("quotes from the session question by default and from the context sent when one is", async () => {
      const t = await createEngineApp(engine);
      await declareRunoffTools(t);
      const s = await ok(t, "POST", "/v1/sessions", { context: "The basin drains 4,500 km2." });
      const byDefault = await ok(t, "POST", `/v1/sessions/${s.id}/audit`, { answer: "The basin is 4500 km2." });
      expect(byDefault.numbers.map((n: Json) => [n.text, n.status, n.explanation])).toEqual([
        ["4500 km2", "quoted", "repeated back from the question"],
      ]);
      expect(byDefault.ok).toBe(true);
      const explicit = await ok(t, "POST", `/v1/sessions/${s.id}/audit`, {
        answer: "The basin is 4500 km2.",
        context: "no figures here",
      });
      expect(explicit.numbers.map((n: Json) => n.status)).toEqual(["unsourced"]);
      expect(explicit.ok).toBe(false);
    });

    it("answers 404 for another team's session", async () => {
      const t = await createEngineApp(engine);
      const s = await ok(t, "POST", "/v1/sessions", {});
      const r = await t.call("POST", `/v1/sessions/${s.id}/audit`, {
        body: { answer: "1" },
        token: await t.teamToken("other"),
      });
      expect(r.status).toBe(404);
    });
  });
});

import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { closeEngineApps, createEngineApp, ENGINES, type EngineApp } from "../helpers/engines.js";
import { CLM1 } from "../helpers/gated.js";

type Claim = {
  id: string;
  status: string;
  watch: string | null;
  superseded_by: string | null;
  events?: { kind: string; status: string }[];
};
type Page = { items: Claim[]; next_cursor: string | null };
type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } };

afterAll(closeEngineApps);

/** Sends a JSON Lines body (the test helper's `call` always sends JSON). */
async function ndjson(t: EngineApp, path: string, body: string, token = t.adminToken) {
  const res = await t.app.request(path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.each(ENGINES)("on %s", (engine) => {
  const app = () => createEngineApp(engine, { clock: fixedClock("2026-03-02T09:00:00Z") });

  describe("POST /v1/claims", () => {
    it("adds a demoted claim and answers 201 with its state", async () => {
      const t = await app();
      const r = await t.call("POST", "/v1/claims", { body: CLM1 });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: "CLM-1",
        text: CLM1.text,
        key: null,
        value: null,
        status: "demoted",
        reason: CLM1.reason,
        demoted_by: CLM1.demoted_by,
        watch: "2\\.08x",
        supersedes: [],
        superseded_by: null,
        created_at: "2026-03-02T09:00:00.000Z",
        updated_at: "2026-03-02T09:00:00.000Z",
      });
    });

    it("answers 400 naming each bad field: missing text, unknown status, unknown field", async () => {
      const t = await app();
      const r = await t.call("POST", "/v1/claims", { body: { status: "retired", colour: "red" } });
      expect(r.status).toBe(400);
      const e = r.body as ErrorBody;
      expect(e.error.code).toBe("invalid_request");
      expect(e.error.details?.map((d) => d.path).sort()).toEqual(["", "status", "text"]);
    });

    it("answers 400 for a watch RE2 cannot take (lookahead), naming watch", async () => {
      const t = await app();
      const r = await t.call("POST", "/v1/claims", { body: { ...CLM1, watch: "2\\.08(?=x)" } });
      expect(r.status).toBe(400);
      expect((r.body as ErrorBody).error.details).toEqual([
        { path: "watch", message: expect.stringContaining("lookaround ((?=, (?!, (?<=, (?<!) is not supported") },
      ]);
    });

    it("answers 409 for an id the team already has", async () => {
      const t = await app();
      await t.call("POST", "/v1/claims", { body: CLM1 });
      const r = await t.call("POST", "/v1/claims", { body: CLM1 });
      expect(r.status).toBe(409);
      expect((r.body as ErrorBody).error.code).toBe("conflict");
    });

    it("answers 400 for supersedes naming no claim", async () => {
      const t = await app();
      const r = await t.call("POST", "/v1/claims", { body: { text: "new", status: "live", supersedes: "CLM-404" } });
      expect(r.status).toBe(400);
      expect((r.body as ErrorBody).error.details).toEqual([
        { path: "supersedes", message: "no claim 'CLM-404' in this team's ledger to supersede" },
      ]);
    });

    it("answers 401 without a token", async () => {
      expect((await (await app()).call("POST", "/v1/claims", { body: CLM1, token: null })).status).toBe(401);
    });
  });

  describe("POST /v1/claims/{id}/demote", () => {
    it("appends a demotion event and keeps the history readable", async () => {
      const t = await app();
      await t.call("POST", "/v1/claims", { body: { id: "CLM-1", text: CLM1.text, status: "live" } });
      const r = await t.call("POST", "/v1/claims/CLM-1/demote", {
        body: { reason: CLM1.reason, demoted_by: CLM1.demoted_by, watch: CLM1.watch },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: "CLM-1", status: "demoted", watch: "2\\.08x" });
      const h = await t.call("GET", "/v1/claims/CLM-1");
      expect((h.body as Claim).events?.map((e) => [e.kind, e.status])).toEqual([
        ["created", "live"],
        ["demoted", "demoted"],
      ]);
    });

    it("answers 404 for an unknown id and 400 without a reason", async () => {
      const t = await app();
      expect((await t.call("POST", "/v1/claims/NOPE/demote", { body: { reason: "r", demoted_by: "d" } })).status).toBe(
        404,
      );
      await t.call("POST", "/v1/claims", { body: { id: "A", text: "a", status: "live" } });
      const r = await t.call("POST", "/v1/claims/A/demote", { body: { demoted_by: "d" } });
      expect(r.status).toBe(400);
      expect((r.body as ErrorBody).error.details?.map((d) => d.path)).toEqual(["reason"]);
    });
  });

  describe("GET /v1/claims", () => {
    it("filters by status and q, and pages with next_cursor", async () => {
      const t = await app();
      await t.call("POST", "/v1/claims", { body: CLM1 });
      for (const id of ["L1", "L2", "L3"])
        await t.call("POST", "/v1/claims", { body: { id, text: `live claim ${id}`, status: "live" } });
      const demoted = (await t.call("GET", "/v1/claims?status=demoted")).body as Page;
      expect(demoted.items.map((c) => c.id)).toEqual(["CLM-1"]);
      expect(((await t.call("GET", "/v1/claims?q=THOMPSON")).body as Page).items.map((c) => c.id)).toEqual(["CLM-1"]);
      const p1 = (await t.call("GET", "/v1/claims?limit=3")).body as Page;
      const p2 = (await t.call("GET", `/v1/claims?limit=3&cursor=${p1.next_cursor}`)).body as Page;
      expect([p1.items.map((c) => c.id), p2.items.map((c) => c.id), p2.next_cursor]).toEqual([
        ["CLM-1", "L1", "L2"],
        ["L3"],
        null,
      ]);
    });

    it("answers 400 for an unknown status or a forged cursor", async () => {
      const t = await app();
      expect((await t.call("GET", "/v1/claims?status=retired")).status).toBe(400);
      expect((await t.call("GET", "/v1/claims?cursor=nonsense")).status).toBe(400);
    });

    it("shows a team only its own ledger: another team's claim is 404", async () => {
      const t = await app();
      await t.call("POST", "/v1/claims", { body: CLM1 });
      const other = await t.teamToken("other");
      expect(((await t.call("GET", "/v1/claims", { token: other })).body as Page).items).toEqual([]);
      expect((await t.call("GET", "/v1/claims/CLM-1", { token: other })).status).toBe(404);
    });
  });

  describe("POST /v1/claims/import and GET /v1/claims/export", () => {
    const file = [
      JSON.stringify(CLM1),
      '{"id": "broken"',
      JSON.stringify({ id: "CLM-2", status: "demoted", text: "x x", watch: "(x) \\1" }),
    ].join("\n");

    it("imports JSON Lines, skipping a malformed line and reporting a backreference watch", async () => {
      const t = await app();
      const r = await ndjson(t, "/v1/claims/import", file);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ imported: 2, updated: 0, unchanged: 0 });
      expect(r.body.skipped).toEqual([{ line: 2, reason: expect.stringMatching(/^not valid JSON/) }]);
      expect(r.body.warnings).toEqual([
        {
          line: 3,
          id: "CLM-2",
          field: "watch",
          reason: expect.stringContaining("backreferences (\\1) are not supported"),
        },
      ]);
      expect(((await t.call("GET", "/v1/claims/CLM-2")).body as Claim).watch).toBe("(x) \\1");
    });

    it("exports JSON Lines that import back unchanged", async () => {
      const t = await app();
      await ndjson(t, "/v1/claims/import", file);
      const res = await t.app.request("/v1/claims/export", { headers: { authorization: `Bearer ${t.adminToken}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
      const text = await res.text();
      expect(
        text
          .trimEnd()
          .split("\n")
          .map((l) => JSON.parse(l).id),
      ).toEqual(["CLM-1", "CLM-2"]);
      expect((await ndjson(t, "/v1/claims/import", text)).body).toMatchObject({
        imported: 0,
        unchanged: 2,
        skipped: [],
      });
    });

    it("answers 401 without a token on both", async () => {
      const t = await app();
      expect((await t.app.request("/v1/claims/export")).status).toBe(401);
      expect((await t.app.request("/v1/claims/import", { method: "POST", body: file })).status).toBe(401);
    });

    it("documents the claim routes in the OpenAPI document", async () => {
      const doc = (await (await app()).call("GET", "/openapi.json")).body as {
        paths: Record<string, Record<string, unknown>>;
      };
      expect(
        Object.keys(doc.paths)
          .filter((p) => p.startsWith("/v1/claims"))
          .sort(),
      ).toEqual(["/v1/claims", "/v1/claims/export", "/v1/claims/import", "/v1/claims/{id}", "/v1/claims/{id}/demote"]);
    });
  });
});

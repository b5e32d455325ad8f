import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { closeEngineApps, createEngineApp, ENGINES } from "../helpers/engines.js";
import { CLM1, correctedJune, schedulerResult, stageResult } from "../helpers/gated.js";

type Finding = { code: string; message: string; severity: string };
type Gate = { status: string; score: number | null; findings: Finding[] };
type Evaluation = {
  id: string;
  task: string | null;
  created_at: string;
  status: string;
  blocked_by: string[];
  overall_score: number;
  gates: Record<string, Gate>;
};
type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } };

const DAY = 86_400_000;

afterAll(closeEngineApps);

const crest = (value: unknown, extra: Parameters<typeof stageResult>[1] = {}) => ({
  task: { id: "crest-report" },
  result: stageResult(value, extra),
});
const codes = (g: Gate | undefined) => g?.findings.map((f) => f.code);

describe.each(ENGINES)("on %s", (engine) => {
  async function setup() {
    const clock = fixedClock("2026-03-02T09:00:00Z");
    const t = await createEngineApp(engine, { clock });
    const evaluate = async (body: unknown, token?: string) => {
      const r = await t.call("POST", "/v1/evaluations", { body, ...(token ? { token } : {}) });
      clock.advance(DAY);
      return r;
    };
    const evaluation = async (body: unknown) => {
      const r = await evaluate(body);
      expect(r.status).toBe(200);
      return r.body as Evaluation;
    };
    return { t, clock, evaluate, evaluation };
  }

  describe("the March demotion and the June report over HTTP", () => {
    async function marchThenDemote() {
      const s = await setup();
      const march = await s.evaluation({ task: { id: "scheduler-report" }, result: schedulerResult("2.08x") });
      expect([march.status, march.created_at]).toEqual(["released", "2026-03-02T09:00:00.000Z"]);
      s.clock.advance(17 * DAY);
      expect(
        (await s.t.call("POST", "/v1/claims", { body: { id: CLM1.id, text: CLM1.text, status: "live" } })).status,
      ).toBe(201);
      const demoted = await s.t.call("POST", `/v1/claims/${CLM1.id}/demote`, {
        body: { reason: CLM1.reason, demoted_by: CLM1.demoted_by, watch: CLM1.watch },
      });
      expect((demoted.body as { updated_at: string }).updated_at).toBe("2026-03-20T09:00:00.000Z");
      s.clock.advance(75 * DAY);
      return s;
    }

    it("blocks the June report that repeats the claim demoted in March, naming CLM-1", async () => {
      const { evaluation } = await marchThenDemote();
      const june = await evaluation({
        task: { id: "scheduler-report" },
        result: schedulerResult("2.08x", { output: "June: Thompson still gains 2.08x." }),
      });
      expect(june.created_at).toBe("2026-06-03T09:00:00.000Z");
      expect([june.status, june.blocked_by]).toEqual(["blocked", ["contradiction"]]);
      expect(codes(june.gates.contradiction)).toEqual(["LEDGER_DEMOTED_REAPPEARS"]);
      expect(june.gates.contradiction?.findings[0]?.message).toContain(
        'demoted claim CLM-1 ("Thompson beats greedy by 2.08x"), demoted by review/verify_baseline.py',
      );
    });

    it("releases the June report that names CLM-1 in supersedes", async () => {
      const { evaluation } = await marchThenDemote();
      const june = await evaluation({ task: { id: "scheduler-report" }, result: correctedJune() });
      expect([june.status, june.blocked_by]).toEqual(["released", []]);
      expect(codes(june.gates.contradiction)).toEqual(["LEDGER_SUPERSEDED"]);
      expect(codes(june.gates.stability)).toEqual(["DRIFT_SUPERSEDED"]);
    });

    it("blocks demoted_repeated-style input once its ledger line is imported", async () => {
      const { t, evaluation } = await setup();
      await t.app.request("/v1/claims/import", {
        method: "POST",
        headers: { authorization: `Bearer ${t.adminToken}`, "content-type": "application/x-ndjson" },
        body: JSON.stringify(CLM1),
      });
      expect((await evaluation({ task: { id: "s" }, result: schedulerResult("2.08x") })).blocked_by).toEqual([
        "contradiction",
      ]);
    });
  });

  describe("stability across stored evaluations over HTTP", () => {
    it("answers not_comparable for repeats with no keyed claims, stores it, and lists it", async () => {
      const { t, evaluation } = await setup();
      const keyless = stageResult("17.1 ft");
      keyless.claims = (keyless.claims as Record<string, unknown>[]).map(({ key, value, ...c }) => c);
      const e = await evaluation({ task: { id: "keyless" }, runs: [keyless, keyless] });
      expect([e.status, e.blocked_by, e.gates.stability?.status, e.gates.stability?.score]).toEqual([
        "blocked",
        ["stability"],
        "not_comparable",
        0,
      ]);
      const stored = await t.call("GET", `/v1/evaluations/${e.id}`);
      expect((stored.body as Evaluation).gates.stability?.status).toBe("not_comparable");
    });

    it("passes the same value in other words and blocks a different one (three evaluations of one task)", async () => {
      const { evaluation } = await setup();
      const first = await evaluation(crest("17.1 ft"));
      expect([first.status, first.gates.stability?.status]).toEqual(["released", "not_applicable"]);
      const reworded = await evaluation(crest("17.10 ft", { text: "Baton Rouge crested at this stage on 3 June." }));
      expect([reworded.status, reworded.gates.stability?.status]).toEqual(["released", "passed"]);
      const drift = await evaluation(crest("18.6 ft"));
      expect([drift.status, drift.blocked_by, codes(drift.gates.stability)]).toEqual([
        "blocked",
        ["stability"],
        ["VALUE_DRIFT"],
      ]);
      expect(drift.gates.stability?.findings[0]?.message).toContain(
        'The key "crest stage" is "18.6 ft" now but was "17.10 ft" in 2 of 2 earlier run(s) of this task',
      );
    });

    it('does not call "5.212 m" after "17.1 ft" drift, but does "18.6 ft"', async () => {
      const { evaluation } = await setup();
      await evaluation(crest("17.1 ft"));
      expect((await evaluation(crest("5.212 m"))).gates.stability?.status).toBe("passed");
      expect((await evaluation(crest("18.6 ft"))).gates.stability?.status).toBe("blocked");
    });

    it("calls one elevation on two datums drift", async () => {
      const { evaluation } = await setup();
      await evaluation(crest({ value: 17.1, unit: "ft", datum: "NAVD88" }));
      expect(codes((await evaluation(crest("17.1 ft NGVD29"))).gates.stability)).toEqual(["VALUE_DRIFT"]);
    });

    it("compares the repeats of one request with {task, runs}", async () => {
      const { evaluation } = await setup();
      const e = await evaluation({ task: { id: "t" }, runs: [stageResult("17.1 ft"), stageResult("18.6 ft")] });
      expect([e.blocked_by, codes(e.gates.stability)]).toEqual([["stability"], ["VALUE_DRIFT"]]);
    });
  });

  describe("watch patterns cannot hang the service", () => {
    it("answers (a+)+$ against forty a's and a '!' promptly through the route", async () => {
      const { t, evaluation } = await setup();
      expect(
        (
          await t.call("POST", "/v1/claims", {
            body: { id: "EVIL", text: "evil", status: "demoted", reason: "r", demoted_by: "d", watch: "(a+)+$" },
          })
        ).status,
      ).toBe(201);
      const started = performance.now();
      const e = await evaluation({
        task: { id: "redos" },
        result: stageResult("17.1 ft", { output: `${"a".repeat(40)}!` }),
      });
      expect(performance.now() - started).toBeLessThan(500);
      expect(e.gates.contradiction?.status).toBe("passed");
      // The published text ends with the claim's value, so a value of a's is what $ can anchor to.
      const hit = await evaluation({ task: { id: "redos-hit" }, result: stageResult("aaaa", { output: "ok" }) });
      expect(codes(hit.gates.contradiction)).toEqual(["LEDGER_DEMOTED_REAPPEARS"]);
    });
  });

  describe("POST /v1/evaluations input", () => {
    it("merges settings over the defaults", async () => {
      const { evaluation } = await setup();
      const over = { ...stageResult("1 m"), exposed_controls: 9 };
      expect((await evaluation({ result: over })).blocked_by).toEqual(["simplicity"]);
      expect((await evaluation({ result: over, settings: { simplicity: { max_exposed_controls: 10 } } })).status).toBe(
        "released",
      );
    });

    it("answers 400 invalid_request naming an unknown settings key", async () => {
      const { evaluate } = await setup();
      const r = await evaluate({ result: stageResult("1 m"), settings: { simplicity: { max_controls: 10 } } });
      expect(r.status).toBe(400);
      const e = r.body as ErrorBody;
      expect(e.error.code).toBe("invalid_request");
      expect(e.error.details).toEqual([
        {
          path: "settings.simplicity.max_controls",
          message: expect.stringContaining("unknown setting `simplicity.max_controls`"),
        },
      ]);
    });

    it("answers 400 for a body with neither or both of result and runs, or an unknown envelope key", async () => {
      const { evaluate } = await setup();
      for (const body of [
        { task: {} },
        { result: stageResult("1 m"), runs: [stageResult("1 m")] },
        { result: stageResult("1 m"), ledger: [] },
        { runs: [] },
      ]) {
        const r = await evaluate(body);
        expect(r.status).toBe(400);
        expect((r.body as ErrorBody).error.code).toBe("invalid_request");
      }
    });

    it("answers 400 for malformed JSON and for a body that is not JSON", async () => {
      const { t } = await setup();
      const headers = { authorization: `Bearer ${t.adminToken}` };
      const bad = await t.app.request("/v1/evaluations", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: "{",
      });
      const text = await t.app.request("/v1/evaluations", {
        method: "POST",
        headers: { ...headers, "content-type": "text/plain" },
        body: "hello",
      });
      expect([bad.status, text.status]).toEqual([400, 400]);
    });

    it("records a result that breaks the contract as blocked by contract (an outcome, not an HTTP error)", async () => {
      const { t, evaluation } = await setup();
      const e = await evaluation({
        task: { id: "t" },
        result: { output: "x", claims: [{ kind: "rumour", text: "t" }] },
      });
      expect([e.status, e.blocked_by, codes(e.gates.contract)]).toEqual([
        "blocked",
        ["contract"],
        ["CONTRACT_UNKNOWN_KIND"],
      ]);
      expect((await t.call("GET", `/v1/evaluations/${e.id}`)).status).toBe(200);
    });

    it("answers 401 without a token", async () => {
      const { t } = await setup();
      expect(
        (await t.call("POST", "/v1/evaluations", { body: { result: stageResult("1 m") }, token: null })).status,
      ).toBe(401);
    });
  });

  describe("GET /v1/evaluations and /v1/evaluations/{id}", () => {
    it("answers the stored report as JSON, equal to the POST answer", async () => {
      const { t, evaluation } = await setup();
      const e = await evaluation(crest("17.1 ft"));
      expect((await t.call("GET", `/v1/evaluations/${e.id}`)).body).toEqual(e);
    });

    it("answers Markdown with Accept: text/markdown", async () => {
      const { t, evaluation } = await setup();
      await evaluation(crest("17.1 ft"));
      const e = await evaluation(crest("18.6 ft"));
      const res = await t.app.request(`/v1/evaluations/${e.id}`, {
        headers: { authorization: `Bearer ${t.adminToken}`, accept: "text/markdown" },
      });
      expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      const md = await res.text();
      expect(md.split("\n").slice(0, 3)).toEqual([
        `# Release report: crest-report (${e.id}, 2026-03-03T09:00:00.000Z)`,
        "",
        "**Release: BLOCKED** (blocked by stability)",
      ]);
      expect(md).toContain("| stability | blocked | 0.0 | 1 | 0 |");
      expect(md).toContain('- `VALUE_DRIFT`: The key "crest stage" is "18.6 ft" now');
    });

    it("lists newest first, filtered by task, status and since; 400 for a naive since", async () => {
      const { t, evaluation } = await setup();
      const a = await evaluation(crest("17.1 ft"));
      const b = await evaluation(crest("18.6 ft"));
      const c = await evaluation({ task: { id: "other" }, result: stageResult("1 m") });
      const ids = async (q: string) =>
        ((await t.call("GET", `/v1/evaluations${q}`)).body as { items: { id: string }[] }).items.map((i) => i.id);
      expect(await ids("")).toEqual([c.id, b.id, a.id]);
      expect(await ids("?task=crest-report")).toEqual([b.id, a.id]);
      expect(await ids("?status=blocked")).toEqual([b.id]);
      expect(await ids("?since=2026-03-03T10:00:00%2B01:00")).toEqual([c.id, b.id]);
      expect(await ids("?since=2026-03-04")).toEqual([c.id]);
      const p1 = (await t.call("GET", "/v1/evaluations?limit=2")).body as {
        items: { id: string }[];
        next_cursor: string;
      };
      expect(await ids(`?limit=2&cursor=${p1.next_cursor}`)).toEqual([a.id]);
      expect((await t.call("GET", "/v1/evaluations?since=2026-03-03T10:00:00")).status).toBe(400);
      expect((await t.call("GET", "/v1/evaluations?status=maybe")).status).toBe(400);
    });

    it("answers 404 for an unknown id and for another team's evaluation", async () => {
      const { t, evaluation } = await setup();
      const e = await evaluation(crest("17.1 ft"));
      expect((await t.call("GET", "/v1/evaluations/01J000000000000000000000XX")).status).toBe(404);
      const other = await t.teamToken("other");
      expect((await t.call("GET", `/v1/evaluations/${e.id}`, { token: other })).status).toBe(404);
      expect(((await t.call("GET", "/v1/evaluations", { token: other })).body as { items: unknown[] }).items).toEqual(
        [],
      );
    });
  });
});

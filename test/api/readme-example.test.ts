// Runs the README's worked example with its own request bodies, so the README cannot drift from the service.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { createTestApp } from "../helpers/db.js";

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test
const example = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), "utf8")) as unknown;
const DAY = 86_400_000;

describe("README: a carried-over 1250 cfs, refused", () => {
  it('refuses the bare 1250, converts "1250 cfs", and reports 1 of 3 calls blocked', async () => {
    const t = createTestApp();
    const s = (await t.call("POST", "/v1/sessions", {
      body: { context: "Runoff over the 29,000 km2 basin?" },
    })) as Answer;
    const c = (await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      body: { tool: "read_discharge", args: { site: "07374000" } },
    })) as Answer;
    const r = (await t.call("POST", `/v1/sessions/${s.body.id}/calls/${c.body.call_id}/result`, {
      body: { result: 1250 },
    })) as Answer;
    expect(r.body).toEqual({ ok: true, would_block: false, result: { value: 1250, unit: "cfs" }, violations: [] });
    const bare = (await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      body: { tool: "runoff_depth", args: { discharge: 1250, area: 29000 } },
    })) as Answer;
    expect([bare.status, bare.body.ok, bare.body.violations[0].code]).toEqual([200, false, "unconverted_carry_over"]);
    expect(bare.body.violations[0].message).toBe(
      'received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return returned 1250 cfs and no conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}',
    );
    const good = (await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      body: { tool: "runoff_depth", args: { discharge: "1250 cfs", area: 29000 } },
    })) as Answer;
    expect(good.body.args).toEqual({
      discharge: { value: 35.39605824, unit: "m^3/s" },
      area: { value: 29000, unit: "km^2" },
    });
    const report = (await t.call("GET", `/v1/sessions/${s.body.id}/report`)) as Answer;
    expect(report.body).toMatchObject({ calls: 3, would_block: 1, by_code: { unconverted_carry_over: 1 } });
    expect(report.body.text.split("\n")[0]).toBe("1 of 3 tool calls was blocked:");
  });
});

describe("README: a June report blocked by a March demotion", () => {
  async function march() {
    const clock = fixedClock("2026-03-20T09:00:00Z");
    const t = createTestApp({ clock });
    const created = (await t.call("POST", "/v1/claims", {
      body: {
        id: "peak-2026-03",
        text: "Peak discharge at Baton Rouge was 1.2 million cfs",
        key: "peak discharge",
        value: "1200000 cfs",
        status: "live",
      },
    })) as Answer;
    expect(created.status).toBe(201);
    const demoted = (await t.call("POST", "/v1/claims/peak-2026-03/demote", {
      body: {
        reason: "gauge rating revised; the peak was 1.02 million cfs",
        demoted_by: "hydrology-review",
        watch: "1\\.2 million cfs",
      },
    })) as Answer;
    expect(demoted.status).toBe(200);
    clock.advance(75 * DAY);
    return t;
  }

  it("blocks june-report.json by contradiction, naming the March claim", async () => {
    const t = await march();
    const r = (await t.call("POST", "/v1/evaluations", { body: example("june-report.json") })) as Answer;
    expect([r.body.status, r.body.blocked_by]).toEqual(["blocked", ["contradiction"]]);
    expect(r.body.gates.contradiction.findings.map((f: { code: string }) => f.code)).toEqual([
      "LEDGER_DEMOTED_REAPPEARS",
    ]);
    expect(r.body.gates.contradiction.findings[0].message).toContain("peak-2026-03");
  });

  it("releases june-report-supersedes.json, which names the March claim in supersedes", async () => {
    const t = await march();
    const r = (await t.call("POST", "/v1/evaluations", { body: example("june-report-supersedes.json") })) as Answer;
    expect([r.body.status, r.body.blocked_by]).toEqual(["released", []]);
    expect(r.body.gates.contradiction.findings.map((f: { code: string }) => f.code)).toContain("LEDGER_SUPERSEDED");
  });
});

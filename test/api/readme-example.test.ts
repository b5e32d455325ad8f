// Runs the README's worked example with its own request bodies, so the README cannot drift from the service.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { PackNotFoundError } from "../../src/packs/errors.js";
import { createTestApp } from "../helpers/db.js";
import { fixture, USGS_IV_URL, USGS_SITE_URL } from "../packs/fixtures.js";

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

describe("usgs-legacy: a provisional March reading revised in June", () => {
  /** The recorded site record and, until `approve()`, the provisional March point; then the approved one. */
  function usgs() {
    let iv = "usgs_iv_07374000_march_provisional.json";
    const fetch = async (url: string): Promise<string> => {
      const file = url === USGS_SITE_URL ? "usgs_site_07374000.rdb" : url === USGS_IV_URL ? iv : null;
      if (file === null) throw new PackNotFoundError(`${url} answered 404 Not Found`, { url, status: 404 });
      return fixture(file);
    };
    return { fetch, approve: () => void (iv = "usgs_iv_07374000_march_approved.json") };
  }
  const cite = (name: string, locator: string) => {
    const body = example(name) as { result: { claims: { source: string }[] } };
    body.result.claims[0]!.source = locator;
    return body;
  };

  it("lists the March report as affected and blocks a June report repeating the March figure", async () => {
    const clock = fixedClock("2026-03-14T18:00:00Z");
    const upstream = usgs();
    const t = createTestApp({ clock, packFetch: upstream.fetch });
    const s1 = (await t.call("POST", "/v1/sessions", { body: { context: "March flood report" } })) as Answer;
    const read1 = (await t.call("GET", `/v1/packs/usgs-legacy/sites/07374000/reading?session=${s1.body.id}`)) as Answer;
    expect(read1.body.readings[0].quantity).toEqual({
      value: 412000,
      unit: "ft^3/s",
      quality: "provisional",
      source: "usgs:07374000:00060",
      observed_at: "2026-03-14T10:15:00-05:00",
    });
    const march = (await t.call("POST", "/v1/evaluations", {
      body: cite("march-flood-report.json", `ledger:sessions/${s1.body.id}`),
    })) as Answer;
    expect([march.body.status, march.body.gates.evidence.findings.map((f: { code: string }) => f.code)]).toEqual([
      "released",
      ["LEDGER_PROVISIONAL_SOURCE"],
    ]);

    clock.advance(80 * DAY);
    upstream.approve();
    const s2 = (await t.call("POST", "/v1/sessions", { body: { context: "June update" } })) as Answer;
    await t.call("GET", `/v1/packs/usgs-legacy/sites/07374000/reading?session=${s2.body.id}`);
    const revisions = (await t.call("GET", "/v1/revisions?source=usgs:07374000:00060")) as Answer;
    expect(revisions.body.items).toHaveLength(1);
    const rev = revisions.body.items[0];
    expect(rev).toMatchObject({
      source: "usgs:07374000:00060",
      observed_at: "2026-03-14T10:15:00-05:00",
      before: { value: 412000, unit: "ft^3/s", quality: "provisional" },
      after: { value: 405000, unit: "ft^3/s", quality: "approved", session_id: s2.body.id },
      affected: [{ evaluation_id: march.body.id, task: "baton-rouge-march-flood", claim_id: "M1" }],
    });
    // The gage height came back approved with the same value: a revision of quality only.
    const all = (await t.call("GET", "/v1/revisions?since=2026-06-01")) as Answer;
    expect(all.body.items.map((r: { source: string }) => r.source).sort()).toEqual([
      "usgs:07374000:00060",
      "usgs:07374000:00065",
    ]);

    const june = (await t.call("POST", "/v1/evaluations", {
      body: cite("june-flood-report.json", `ledger:sessions/${s1.body.id}`),
    })) as Answer;
    expect([june.body.status, june.body.blocked_by]).toEqual(["blocked", ["evidence"]]);
    expect(june.body.gates.evidence.findings.map((f: { code: string }) => f.code)).toEqual(["LEDGER_SOURCE_REVISED"]);
    expect(june.body.gates.evidence.findings[0].message).toContain(
      `which was revised to 405000 ft^3/s (approved) at 2026-06-02T18:00:00.000Z (revision ${rev.id}); ` +
        `cite the revised reading ledger:crossings/${rev.after.crossing_id} and state its value.`,
    );
    const corrected = cite("june-flood-report.json", `ledger:crossings/${rev.after.crossing_id}`);
    (corrected.result.claims[0] as unknown as { value: string }).value = "405000 cfs";
    const fixed = (await t.call("POST", "/v1/evaluations", { body: corrected })) as Answer;
    expect([fixed.body.status, fixed.body.gates.evidence.findings]).toEqual(["released", []]);
  });
});

// Identity, revisions and the revision watch, end to end against a real 127.0.0.1 server of recorded USGS responses.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type RecordedServer, type Responder, type Seen, startRecordedServer } from "../../demo/usgs-server.js";
import { fixedClock } from "../../src/clock.js";
import { OgcClient } from "../../src/packs/ogc/client.js";
import { watchPass } from "../../src/packs/ogc/watch.js";
import { createTestApp } from "../helpers/db.js";
import { login, page } from "../ui/world.js";

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test

const DAY = 86_400_000;
const HOUR = 3_600_000;
const Q = "8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70";
const JUNE_MODIFIED = "2026-06-02T14:05:40.918266+00:00";

const servers: RecordedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * USGS as recorded: the Baton Rouge site, its March latest values, and on `continuous` the June records once the clock
 * has reached their modification, and only to a request whose last_modified filter starts before it (as the API
 * filters), else an empty page; `limited.on` answers 429.
 */
async function usgs(clock: { now(): Date }, limited: { on: boolean; failing?: boolean }): Promise<RecordedServer> {
  const respond: Responder = (url) => {
    const p = url.pathname.replace("/ogcapi/v0/collections/", "");
    if (p === "monitoring-locations/items/USGS-07374000")
      return { file: "derived_monitoring-locations_USGS-07374000.json" };
    if (p === "latest-continuous/items") return { file: "derived_latest-continuous_07374000_march.json" };
    if (p === "continuous/items") {
      if (limited.on) return { status: 429, file: "openapi-example_429_OVER_RATE_LIMIT.json" };
      if (limited.failing) return { status: 500, json: { code: "ServerError", description: "database unavailable" } };
      // The June records exist from their modification on.
      if (clock.now().getTime() < Date.parse(JUNE_MODIFIED)) return { file: "usgs_daily_empty.json" };
      const since = url.searchParams.get("last_modified")?.split("/")[0];
      const modified = since === undefined || Date.parse(since) <= Date.parse(JUNE_MODIFIED);
      return { file: modified ? "derived_continuous_07374000_june.json" : "usgs_daily_empty.json" };
    }
    return null;
  };
  const s = await startRecordedServer(respond);
  servers.push(s);
  return s;
}

const example = (name: string, locator: string) => {
  const body = JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), "utf8"));
  body.result.claims[0].source = locator;
  return body;
};
const continuous = (seen: Seen[]) => seen.filter((x) => x.path.endsWith("/continuous/items"));

async function march() {
  const clock = fixedClock("2026-03-14T18:00:00Z");
  const limited: { on: boolean; failing?: boolean } = { on: false };
  const s = await usgs(clock, limited);
  const t = createTestApp({ clock, config: { usgsUrl: s.base } });
  const s1 = (await t.call("POST", "/v1/sessions", { body: { context: "March flood report" } })) as Answer;
  const read = (await t.call("GET", `/v1/packs/usgs/sites/07374000/reading?session=${s1.body.id}`)) as Answer;
  expect(read.body.readings[0].quantity).toMatchObject({ value: 412000, quality: "provisional" });
  const report = (await t.call("POST", "/v1/evaluations", {
    body: example("march-flood-report.json", `ledger:sessions/${s1.body.id}`),
  })) as Answer;
  expect([report.body.status, report.body.gates.evidence.findings.map((f: { code: string }) => f.code)]).toEqual([
    "released",
    ["LEDGER_PROVISIONAL_SOURCE"],
  ]);
  const client = new OgcClient({ baseUrl: s.base });
  const pass = (force = false) => watchPass(t.store, client, { intervalMs: 6 * HOUR, now: () => clock.now(), force });
  return { s, t, clock, s1: s1.body.id as string, report: report.body.id as string, client, pass, limited };
}

describe("revision watch, end to end", () => {
  it("finds June's approved value of the March reading, lists the March report, blocks a June report repeating it", async () => {
    const { s, t, clock, s1, report, pass } = await march();
    expect(((await t.call("GET", "/v1/revisions/watch")) as Answer).body).toEqual({
      watched: 1,
      last_run: null,
      next_run: null,
      requests: 0,
    });

    clock.advance(80 * DAY);
    const found = await pass();
    expect(found).toMatchObject({ watched: 1, groups: 1, requests: 1, revised: 1, stopped: null, errors: [] });
    const asked = continuous(s.seen);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.query.get("last_modified")).toBe("2026-03-14T18:00:00.000Z/..");
    expect(asked[0]!.query.get("time")).toBe("2026-03-14T15:14:00Z/2026-03-14T15:16:00Z");
    expect(asked[0]!.query.get("monitoring_location_id")).toBe("USGS-07374000");
    expect(asked[0]!.query.get("parameter_code")).toBe("00060");

    const revisions = (await t.call("GET", "/v1/revisions")) as Answer;
    expect(revisions.body.items).toHaveLength(1);
    const rev = revisions.body.items[0];
    expect(rev).toMatchObject({
      kind: "detected",
      source: `usgs:07374000:00060:${Q}`,
      observed_at: "2026-03-14T15:15:00Z",
      revised_by: "usgs.watch",
      before: { value: 412000, unit: "ft^3/s", quality: "provisional", session_id: s1 },
      after: { value: 405000, unit: "ft^3/s", quality: "approved" },
      affected: [{ evaluation_id: report, task: "baton-rouge-march-flood", claim_id: "M1" }],
    });

    const june = (await t.call("POST", "/v1/evaluations", {
      body: example("june-flood-report.json", `ledger:sessions/${s1}`),
    })) as Answer;
    expect([june.body.status, june.body.blocked_by]).toEqual(["blocked", ["evidence"]]);
    expect(june.body.gates.evidence.findings.map((f: { code: string }) => f.code)).toEqual(["LEDGER_SOURCE_REVISED"]);

    // Approved now: the reading is no longer watched, and never asked for again.
    clock.advance(7 * DAY);
    expect(await pass(true)).toMatchObject({ watched: 0, groups: 0, requests: 0, revised: 0 });
    expect(continuous(s.seen)).toHaveLength(1);
    expect(((await t.call("GET", "/v1/revisions/watch")) as Answer).body).toEqual({
      watched: 0,
      last_run: "2026-06-02T18:00:00.000Z",
      next_run: "2026-06-03T00:00:00.000Z",
      requests: 1,
    });
    // The dashboard's revisions page shows the watch and what it found.
    const ui = await page(t, "/ui/revisions", await login(t, t.adminToken));
    expect(ui.html).toContain("Revision watch: 0 readings watched");
    expect(ui.html).toContain("1 request to USGS");
    expect(ui.html).toContain(`usgs:07374000:00060:${Q}`);
    expect(ui.html).toContain("<td>usgs.watch</td>");
  });

  it("never re-reads a series faster than the interval, and asks only for records modified since its last look", async () => {
    const { s, clock, pass } = await march();
    clock.advance(10 * DAY);
    await pass();
    const first = continuous(s.seen).length;
    clock.advance(HOUR);
    expect(await pass()).toMatchObject({ requests: 0, skipped: 1 });
    clock.advance(6 * HOUR);
    expect(await pass()).toMatchObject({ requests: 1, skipped: 0 });
    const asked = continuous(s.seen);
    expect(asked).toHaveLength(first + 1);
    expect(asked.at(-1)!.query.get("last_modified")).toBe("2026-03-24T18:00:00.000Z/..");
  });

  it("does not ask USGS for a reading that was approved when read", async () => {
    const { s, t, clock, pass } = await march();
    clock.advance(80 * DAY);
    await pass();
    // A new report resting on the approved June reading: nothing to watch.
    const s2 = (await t.call("POST", "/v1/sessions", { body: { context: "June" } })) as Answer;
    await t.call("GET", `/v1/packs/usgs/sites/07374000/series?from=2026-03-14&to=2026-03-15&session=${s2.body.id}`);
    const cited = example("june-flood-report.json", `ledger:sessions/${s2.body.id}`);
    cited.result.claims[0].value = "405000 cfs";
    cited.result.claims[0].text = "Discharge at Baton Rouge on 14 March was 405000 cfs.";
    expect(((await t.call("POST", "/v1/evaluations", { body: cited })) as Answer).body.status).toBe("released");
    const before = continuous(s.seen).length;
    expect(await pass(true)).toMatchObject({ watched: 0, requests: 0 });
    expect(continuous(s.seen)).toHaveLength(before);
  });

  it("stops a pass when USGS says few requests remain, and on 429", async () => {
    const { t, clock, client, pass, limited } = await march();
    clock.advance(80 * DAY);
    client.rateRemaining = 2;
    const p = await pass();
    expect([p.requests, p.revised]).toEqual([0, 0]);
    expect(p.stopped).toBe("USGS says 2 requests remain this hour; the rest waits for the next pass");
    expect(((await t.call("GET", "/v1/revisions")) as Answer).body.items).toEqual([]);
    client.rateRemaining = null;
    limited.on = true;
    const refused = await pass();
    expect([refused.requests, refused.revised]).toEqual([1, 0]);
    expect(refused.stopped).toContain("USGS answered 429 (OVER_RATE_LIMIT");
    expect(refused.stopped).toContain("wait 3600 seconds");
  });
});

describe("revision watch: a failing service", () => {
  it("records USGS's failure and waits the interval before asking again, keeping its last look", async () => {
    const { s, clock, pass, limited } = await march();
    clock.advance(10 * DAY);
    limited.failing = true;
    const failed = await pass();
    expect([failed.requests, failed.revised, failed.errors.length]).toEqual([1, 0, 1]);
    expect(failed.errors[0]).toContain("USGS answered 500 (ServerError: database unavailable)");
    clock.advance(HOUR);
    expect(await pass()).toMatchObject({ requests: 0, skipped: 1 });
    limited.failing = false;
    clock.advance(6 * HOUR);
    expect(await pass()).toMatchObject({ requests: 1, errors: [] });
    // Never looked successfully before: still asks from the first read.
    expect(continuous(s.seen).at(-1)!.query.get("last_modified")).toBe("2026-03-14T18:00:00.000Z/..");
  });
});

describe("revision watch: daily values", () => {
  it("re-reads a provisional daily mean by its local date and records the approved value", async () => {
    const clock = fixedClock("2026-03-15T18:00:00Z");
    const s = await startRecordedServer((url) => {
      const p = url.pathname.replace("/ogcapi/v0/collections/", "");
      if (p === "monitoring-locations/items/USGS-07374000")
        return { file: "derived_monitoring-locations_USGS-07374000.json" };
      if (p === "daily/items")
        return {
          file:
            clock.now() < new Date(JUNE_MODIFIED)
              ? "derived_daily_07374000_march.json"
              : "derived_daily_07374000_june.json",
        };
      return null;
    });
    servers.push(s);
    const t = createTestApp({ clock, config: { usgsUrl: s.base } });
    const s1 = (await t.call("POST", "/v1/sessions", { body: { context: "daily" } })) as Answer;
    const read = (await t.call(
      "GET",
      `/v1/packs/usgs/sites/07374000/daily?from=2026-03-14&to=2026-03-14&session=${s1.body.id}`,
    )) as Answer;
    expect(read.body.readings.map((r: { observed_at: string; quality: string }) => [r.observed_at, r.quality])).toEqual(
      [["2026-03-14T00:00:00-05:00", "provisional"]],
    );
    const body = example("march-flood-report.json", `ledger:sessions/${s1.body.id}`);
    body.result.claims[0].value = "410000 cfs";
    body.result.claims[0].text = "Mean discharge at Baton Rouge on 14 March was 410000 cfs.";
    expect(((await t.call("POST", "/v1/evaluations", { body })) as Answer).body.status).toBe("released");
    clock.advance(80 * DAY);
    const p = await watchPass(t.store, new OgcClient({ baseUrl: s.base }), {
      intervalMs: 6 * HOUR,
      now: () => clock.now(),
    });
    expect(p).toMatchObject({ watched: 1, requests: 1, revised: 1 });
    const asked = s.seen.filter((x) => x.path.endsWith("/daily/items")).at(-1)!;
    expect(asked.query.get("time")).toBe("2026-03-13/2026-03-15");
    const rev = ((await t.call("GET", "/v1/revisions")) as Answer).body.items[0];
    expect(rev).toMatchObject({
      observed_at: "2026-03-14T00:00:00-05:00",
      before: { value: 410000, quality: "provisional" },
      after: { value: 404000, quality: "approved" },
    });
  });
});

describe("identity and revisions", () => {
  it("keys a reading on (series, time): June's record is a revision of March's, a refresh that changes nothing is not", async () => {
    const { t, clock } = await march();
    clock.advance(80 * DAY);
    for (let i = 0; i < 2; i++) {
      const s = (await t.call("POST", "/v1/sessions", { body: { context: `June read ${i}` } })) as Answer;
      await t.call("GET", `/v1/packs/usgs/sites/07374000/series?from=2026-03-14&to=2026-03-15&session=${s.body.id}`);
    }
    const items = ((await t.call("GET", "/v1/revisions")) as Answer).body.items;
    // Discharge changed value and status; gage height changed status only; the second June read changed nothing.
    expect(
      items.map((r: { source: string; after: { value: number } }) => [r.source.split(":")[2], r.after.value]).sort(),
    ).toEqual([
      ["00060", 405000],
      ["00065", 31.2],
    ]);
  });
});

describe("revision watch at scale", () => {
  it("asks one request per (site, parameter, page) for 10,000 watched readings on one site", async () => {
    const s = await startRecordedServer((url) =>
      url.pathname.endsWith("/continuous/items") ? { file: "usgs_daily_empty.json" } : null,
    );
    servers.push(s);
    const clock = fixedClock("2026-03-14T18:00:00Z");
    const t = createTestApp({ clock, config: { usgsUrl: s.base } });
    const session = (await t.call("POST", "/v1/sessions", { body: { context: "many" } })) as Answer;
    const base = Date.parse("2026-01-01T00:00:00Z");
    const readings = Array.from({ length: 10_000 }, (_, i) => {
      const at = new Date(base + i * 15 * 60_000).toISOString().replace(".000Z", "Z");
      return {
        args: { site: "07374000", parameter: "00060", series: Q, time: at },
        quantity: {
          value: 400000 + i,
          unit: "ft^3/s",
          quality: "provisional" as const,
          source: `usgs:07374000:00060:${Q}`,
          observed_at: at,
        },
      };
    });
    await t.store.packs.record(t.defaultTeamId, session.body.id, "usgs.series", readings);
    const report = (await t.call("POST", "/v1/evaluations", {
      body: example("march-flood-report.json", `ledger:sessions/${session.body.id}`),
    })) as Answer;
    // Every reading rests under the released report (the evidence gate links the one it matched; the rest are linked as
    // a report citing the whole series would link them).
    t.db.sqlite
      .prepare(
        `INSERT INTO evaluation_sources (run_id, team_id, task, claim_id, locator, status, crossing_id)
         SELECT ?, team_id, 'many', 'M1', 'ledger:sessions/x', 'restates', id FROM crossings WHERE session_id = ? AND direction = 'return'`,
      )
      .run(report.body.id, session.body.id);
    const client = new OgcClient({ baseUrl: s.base });
    const p = await watchPass(t.store, client, { intervalMs: 6 * HOUR, now: () => clock.now() });
    expect([p.watched, p.groups, p.requests]).toEqual([10_000, 1, 1]);
    expect(s.seen).toHaveLength(1);
    expect(s.seen[0]!.query.get("time")).toBe("2025-12-31T23:59:00Z/2026-04-15T03:46:00Z");
  }, 120_000);
});

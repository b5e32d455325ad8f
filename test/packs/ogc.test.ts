// The USGS pack on the Water Data OGC API, against a real HTTP server on 127.0.0.1 serving recorded responses.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ogcFixture, type RecordedServer, type Responder, startRecordedServer } from "../../demo/usgs-server.js";
import { OgcClient } from "../../src/packs/ogc/client.js";
import { packTool } from "../../src/packs/tools.js";
import { ogcSiteId, parseOgcSite, readingsOf, splitWindow } from "../../src/packs/ogc/pack.js";
import { exactNumber } from "../../src/packs/ogc/values.js";
import { createTestApp } from "../helpers/db.js";

type Answer = { status: number; body: any; headers?: Headers }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test

type Row = {
  observed_at: string;
  quantity: { value: number } | null;
  quality: string;
  flags: string[];
  missing?: string;
};
const servers: RecordedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(respond: Responder): Promise<RecordedServer> {
  const s = await startRecordedServer(respond);
  servers.push(s);
  return s;
}

const SITE_07374000 = "derived_monitoring-locations_USGS-07374000.json";
/** The Baton Rouge site, its March latest values, and `items` for the rest. */
const baton =
  (items: (collection: string, q: URLSearchParams) => ReturnType<Responder>): Responder =>
  (url) => {
    if (url.pathname === "/ogcapi/v0/collections/monitoring-locations/items/USGS-07374000")
      return { file: SITE_07374000 };
    if (url.pathname === "/ogcapi/v0/collections/monitoring-locations/items/USGS-02238500")
      return { file: "monitoring-locations_item_USGS-02238500.json" };
    const m = /^\/ogcapi\/v0\/collections\/([a-z-]+)\/items$/.exec(url.pathname);
    return m ? items(m[1]!, url.searchParams) : null;
  };

async function app(respond: Responder, config: Record<string, unknown> = {}) {
  const s = await serve(respond);
  return { s, t: createTestApp({ config: { usgsUrl: s.base, ...config } }) };
}

describe("USGS OGC pack: readings as they are", () => {
  it("reads the site record: IANA zone, GAGE datum on the site's vertical datum, drainage area", async () => {
    const { t } = await app(baton(() => null));
    const r = (await t.call("GET", "/v1/packs/usgs/sites/USGS-07374000")) as Answer;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: "07374000",
      monitoring_location_id: "USGS-07374000",
      name: "Mississippi River at Baton Rouge, LA",
      timezone: "America/Chicago",
      datum: "GAGE:07374000",
      datum_offset: { value: 0, unit: "ft", datum: "NAVD88" },
      vertical_datum: "NAVD88",
      drainage_area_mi2: 1125810,
      latitude: 30.44566667,
      longitude: -91.1915556,
    });
    const offsets = (await t.call("GET", "/v1/datums")) as Answer;
    expect(JSON.stringify(offsets.body)).toContain("GAGE:07374000");
  });

  it("maps a recorded site without a vertical datum, in Eastern time with daylight saving, and says so", async () => {
    const { t } = await app(baton(() => null));
    const r = (await t.call("GET", "/v1/packs/usgs/sites/02238500")) as Answer;
    expect([r.body.timezone, r.body.datum_offset, r.body.vertical_datum]).toEqual(["America/New_York", null, null]);
  });

  it("answers the latest readings with series, quality, UTC observation times and the gage datum", async () => {
    const { t } = await app(
      baton((c) => (c === "latest-continuous" ? { file: "derived_latest-continuous_07374000_march.json" } : null)),
    );
    const r = (await t.call("GET", "/v1/packs/usgs/sites/07374000/reading")) as Answer;
    expect(r.status).toBe(200);
    expect(r.body.readings).toEqual([
      {
        parameter: "00060",
        name: "Discharge",
        quantity: {
          value: 412000,
          unit: "ft^3/s",
          flags: [],
          quality: "provisional",
          source: "usgs:07374000:00060:8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70",
          observed_at: "2026-03-14T15:15:00Z",
        },
        observed_at: "2026-03-14T15:15:00Z",
        series: "8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70",
        statistic: "00011",
        quality: "provisional",
        flags: [],
        qualifiers: [],
        approval_status: "Provisional",
        last_modified: "2026-03-14T15:20:11.204512+00:00",
      },
      expect.objectContaining({
        parameter: "00065",
        quantity: expect.objectContaining({ value: 31.2, unit: "ft", datum: "GAGE:07374000" }),
      }),
    ]);
  });

  it("sorts rows by time, keeps 94.0 as 94, reads null value, null approval, string and array qualifiers, refuses an unknown unit", async () => {
    const { t } = await app(
      baton((c) => (c === "continuous" ? { file: "derived_continuous_07374000_edge.json" } : null)),
    );
    const r = (await t.call(
      "GET",
      "/v1/packs/usgs/sites/07374000/series?parameter=00060&from=2026-03-14T00:00:00Z&to=2026-03-15T00:00:00Z",
    )) as Answer;
    expect(r.status).toBe(200);
    const rows = r.body.readings.map((x: Row) => [
      x.observed_at,
      x.quantity?.value ?? null,
      x.quality,
      x.flags,
      x.missing ?? null,
    ]); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(rows).toEqual([
      ["2026-03-14T15:30:00Z", 94, "estimated", ["estimated", "backwater"], null],
      ["2026-03-14T15:45:00Z", null, "provisional", ["ice"], "USGS published no value for this time (qualifier ICE)"],
      ["2026-03-14T16:00:00Z", 1250.5, "unknown", [], null],
    ]);
    // Null approval is never approved: the stored grade is the weakest.
    expect(r.body.readings[2].quantity.quality).toBe("unverified");
    expect(r.body.readings[0].quantity.quality).toBe("unverified");
    expect(r.body.warnings.join("\n")).toContain(
      'USGS unit_of_measure "furlongs/fortnight" is not one this service maps',
    );
  });

  it("keeps every recorded value string's digits (94.0, 1.31, 1.40, 10.2) and refuses digits a number cannot hold", () => {
    const values = (file: string) =>
      (JSON.parse(ogcFixture(file)).features as { properties: { value: string } }[]).map((f) => f.properties.value);
    for (const v of [
      ...values("usgs_daily_6a.json"),
      ...values("continuous_items_USGS-01593450_00060_properties_skipGeometry.json"),
    ])
      expect(String(exactNumber(v))).toBe(String(Number(v)));
    expect(exactNumber("94.0")).toBe(94);
    expect(exactNumber("1.40")).toBe(1.4);
    expect(exactNumber("0.12345678901234567891")).toBeNull();
    expect(exactNumber("Ice")).toBeNull();
  });

  it("reads recorded daily rows out of time order as local dates, following the next cursor exactly to the end", async () => {
    let firstHref = "";
    const { s, t } = await app(
      baton((c, q) => {
        if (c !== "daily") return null;
        if (q.get("cursor") === null) {
          firstHref = JSON.parse(ogcFixture("daily_items_USGS-02238500_00060_limit10_page1.json")).links[0].href;
          return { file: "daily_items_USGS-02238500_00060_limit10_page1.json" };
        }
        return { file: "usgs_daily_empty.json" };
      }),
    );
    const r = (await t.call(
      "GET",
      "/v1/packs/usgs/sites/02238500/daily?parameter=00060&from=2024-02-12&to=2024-03-18&statistic=00003",
    )) as Answer;
    expect(r.status).toBe(200);
    const dates = r.body.readings.map((x: { observed_at: string }) => x.observed_at);
    expect(dates[0]).toBe("2024-02-14T00:00:00-05:00");
    expect(dates).toEqual([...dates].sort());
    expect(dates).toContain("2024-03-16T00:00:00-04:00");
    const daily = s.seen.filter((x) => x.path.endsWith("/daily/items"));
    expect(daily).toHaveLength(2);
    expect(daily[0]!.query.get("statistic_id")).toBe("00003");
    const next = new URL(firstHref);
    expect(`${daily[1]!.path}?${daily[1]!.query.toString()}`).toBe(`${next.pathname}?${next.searchParams.toString()}`);
  });

  it("splits a window of over 1,100 days into requests of at most 1,000 days, which the server accepts", async () => {
    const { s, t } = await app(
      baton((c, q) => {
        if (c !== "continuous") return null;
        const [a, b] = q
          .get("time")!
          .split("/")
          .map((x) => Date.parse(x));
        if ((b! - a!) / 86_400_000 > 1100) return { status: 400, file: "quoted_400_time_envelope.json" };
        return { file: "usgs_daily_empty.json" };
      }),
    );
    const r = (await t.call(
      "GET",
      "/v1/packs/usgs/sites/07374000/series?parameter=00060&from=2023-01-01T00:00:00Z&to=2026-01-06T00:00:00Z",
    )) as Answer;
    expect([r.status, r.body.readings]).toEqual([200, []]);
    expect(s.seen.filter((x) => x.path.endsWith("/continuous/items")).map((x) => x.query.get("time"))).toEqual([
      "2023-01-01T00:00:00Z/2025-09-27T00:00:00Z",
      "2025-09-27T00:00:00Z/2026-01-06T00:00:00Z",
    ]);
    expect(splitWindow(new Date("2020-01-01"), new Date("2020-01-01"))).toHaveLength(1);
  });

  it("parses real recorded rows: site ids with and without the agency, sites with a vertical datum", () => {
    expect(ogcSiteId("USGS-07374000")).toEqual({ number: "07374000", location: "USGS-07374000" });
    const feature = JSON.parse(ogcFixture("usgs_ml_mlid_3.json")).features[0];
    const site = parseOgcSite(feature, ogcSiteId("09107000"));
    expect([site.timezone, site.datum_offset]).toEqual([
      "America/Denver",
      { value: 9332.33, unit: "ft", datum: "NAVD88" },
    ]);
    const warnings: string[] = [];
    const latest = JSON.parse(ogcFixture("latest-continuous.trimmed.json")).features;
    const rows = readingsOf(latest, { ...site, id: "06904500" }, "latest-continuous", warnings);
    expect(rows.map((x) => [x.parameter, x.quantity?.value, x.quality, x.observed_at])).toEqual([
      ["00060", 535, "provisional", "2026-08-07T18:45:00Z"],
      ["00065", 1.59, "provisional", "2026-08-07T18:45:00Z"],
    ]);
  });
});

describe("USGS pack tools on the OGC API", () => {
  it("answers read_discharge, read_drainage_area and read_gage_datum from the OGC API when given its client", async () => {
    const s = await serve(
      baton((c) => (c === "latest-continuous" ? { file: "derived_latest-continuous_07374000_march.json" } : null)),
    );
    const ctx = {
      fetch: () => Promise.reject(new Error("WaterServices is not read")),
      usgs: new OgcClient({ baseUrl: s.base }),
    };
    const discharge = await packTool("read_discharge")!.run({ site: "07374000" }, ctx);
    expect(discharge.result).toMatchObject({
      discharge: { value: 412000, unit: "ft^3/s", quality: "provisional" },
      observed_at: "2026-03-14T15:15:00Z",
      series: "8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70",
    });
    const area = await packTool("read_drainage_area")!.run({ site: "07374000" }, ctx);
    expect(area.result).toMatchObject({ drainage_area_mi2: 1125810, drainage_area: { unit: "km^2" } });
    const datum = await packTool("read_gage_datum")!.run({ site: "07374000" }, ctx);
    expect(datum.result).toEqual({
      datum_offset: { value: 0, unit: "ft", datum: "NAVD88" },
      datum: "GAGE:07374000",
      site: "07374000",
    });
  });
});

describe("USGS OGC pack: the API key", () => {
  it("sends X-Api-Key to the configured host and not to another host after a redirect", async () => {
    const other = await serve((url) =>
      url.pathname.endsWith("/items/USGS-07374000") ? { file: SITE_07374000 } : null,
    );
    const { s, t } = await app(
      (url) => ({ status: 302, headers: { location: `${other.origin}${url.pathname}${url.search}` } }),
      { usgsApiKey: "test-key-123" },
    );
    const r = (await t.call("GET", "/v1/packs/usgs/sites/07374000")) as Answer;
    expect(r.status).toBe(200);
    expect(s.seen[0]!.headers["x-api-key"]).toBe("test-key-123");
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]!.headers["x-api-key"]).toBeUndefined();
  });

  it("counts requests and reads X-RateLimit-Remaining", async () => {
    const s = await serve(() => ({ file: SITE_07374000, headers: { "x-ratelimit-remaining": "998" } }));
    const c = new OgcClient({ baseUrl: s.base });
    await c.item("monitoring-locations", "USGS-07374000");
    expect([c.requests, c.rateRemaining]).toEqual([1, 998]);
  });
});

describe("USGS OGC pack: errors a person can act on", () => {
  const refusing =
    (status: number, file: string, headers: Record<string, string> = {}) =>
    () => ({ status, file, headers });

  it.each([
    [
      403,
      "openapi-example_403_API_KEY_MISSING.json",
      502,
      "upstream_key",
      "API_KEY_MISSING: No api_key was supplied",
      "set AGENT_LEDGER_USGS_API_KEY",
    ],
    [
      403,
      "quoted_403_API_KEY_INVALID.json",
      502,
      "upstream_key",
      "API_KEY_INVALID: An invalid api_key",
      "replace AGENT_LEDGER_USGS_API_KEY",
    ],
    [
      429,
      "openapi-example_429_OVER_RATE_LIMIT.json",
      503,
      "upstream_rate_limited",
      "OVER_RATE_LIMIT",
      "wait 120 seconds",
    ],
    [400, "quoted_400_time_envelope.json", 400, "window_too_large", "1100 day(s)", "ask for a shorter window"],
  ])("USGS %i %s answers %i %s", async (status, file, ours, code, said, todo) => {
    const { t } = await app(refusing(status, file, status === 429 ? { "retry-after": "120" } : {}));
    const r = (await t.call("GET", "/v1/packs/usgs/sites/07374000")) as Answer & { headers: Headers };
    expect([r.status, r.body.error.code]).toEqual([ours, code]);
    expect(r.body.error.message).toContain(`USGS answered ${status} (`);
    expect(r.body.error.message).toContain(said);
    expect(r.body.error.message).toContain(todo);
    if (status === 429) expect(r.headers.get("retry-after")).toBe("120");
  });

  it("answers 404 for an unknown site and an unknown parameter, 400 for a malformed one", async () => {
    const { t } = await app(baton(() => ({ file: "usgs_daily_empty.json" })));
    const site = (await t.call("GET", "/v1/packs/usgs/sites/99999999")) as Answer;
    expect([site.status, site.body.error.code]).toEqual([404, "not_found"]);
    expect(site.body.error.message).toContain("USGS has no monitoring location USGS-99999999");
    const param = (await t.call("GET", "/v1/packs/usgs/sites/07374000/reading?parameter=99999")) as Answer;
    expect([param.status, param.body.error.message]).toEqual([
      404,
      "USGS has no latest reading of parameter 99999 at USGS-07374000; check the parameter code against the site's time series",
    ]);
    const bad = (await t.call("GET", "/v1/packs/usgs/sites/07374000/series?parameter=60")) as Answer;
    expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_request"]);
  });

  it("answers 503 upstream_unreachable when nothing listens", async () => {
    const s = await startRecordedServer(() => null);
    await s.close();
    const t = createTestApp({ config: { usgsUrl: s.base } });
    const r = (await t.call("GET", "/v1/packs/usgs/sites/07374000")) as Answer;
    expect([r.status, r.body.error.code]).toEqual([503, "upstream_unreachable"]);
    expect(r.body.error.message).toContain(
      `could not reach USGS at ${s.base}/collections/monitoring-locations/items/USGS-07374000`,
    );
    expect(r.body.error.message).toContain("check AGENT_LEDGER_USGS_URL");
  });
});

describe("USGS OGC pack: sessions", () => {
  it("refuses another team's session with 404 before registering any datum (issue 26, finding 6)", async () => {
    const s0 = await serve(
      baton((c) => (c === "latest-continuous" ? { file: "derived_latest-continuous_07374000_march.json" } : null)),
    );
    // The legacy service answers too (recorded WaterServices responses), so only the order of checks can refuse.
    const legacy = (name: string) => readFileSync(new URL(`../fixtures/packs/${name}`, import.meta.url), "utf8");
    const t = createTestApp({
      config: { usgsUrl: s0.base },
      packFetch: async (url) =>
        legacy(url.includes("/nwis/site/") ? "usgs_site_07374000.rdb" : "usgs_iv_07374000.json"),
    });
    const other = t.teamToken("other-team");
    const s = (await t.call("POST", "/v1/sessions", { body: { context: "theirs" }, token: other })) as Answer;
    const mine = t.teamToken("my-team");
    for (const path of ["/v1/packs/usgs/sites/07374000/reading", "/v1/packs/usgs-legacy/sites/07374000/reading"]) {
      const r = (await t.call("GET", `${path}?session=${s.body.id}`, { token: mine })) as Answer;
      expect(r.status).toBe(404);
    }
    const datums = (await t.call("GET", "/v1/datums", { token: mine })) as Answer;
    expect(JSON.stringify(datums.body)).not.toContain("GAGE:07374000");
  });

  it("stores each reading with a value as a crossing of the session", async () => {
    const { t } = await app(
      baton((c) => (c === "continuous" ? { file: "derived_continuous_07374000_edge.json" } : null)),
    );
    const s = (await t.call("POST", "/v1/sessions", { body: { context: "series" } })) as Answer;
    await t.call(
      "GET",
      `/v1/packs/usgs/sites/07374000/series?from=2026-03-14T00:00:00Z&to=2026-03-15T00:00:00Z&session=${s.body.id}`,
    );
    const calls = (await t.call("GET", `/v1/sessions/${s.body.id}/calls`)) as Answer;
    expect(calls.body.items.map((c: { tool: string }) => c.tool)).toEqual(["usgs.series", "usgs.series"]);
    // Each crossing keeps the reading's qualifier flags, sorted, so a later read changing only them is a revision.
    expect(
      t.db.sqlite
        .prepare(
          "SELECT value, quality, flags FROM crossings WHERE session_id = ? AND direction = 'return' ORDER BY id",
        )
        .all(s.body.id),
    ).toEqual([
      { value: 94, quality: "unverified", flags: '["backwater","estimated"]' },
      { value: 1250.5, quality: "unverified", flags: "[]" },
    ]);
  });

  it("catches an OGC reading passed on without its unit as carry-over, as any stored reading", async () => {
    const { t } = await app(
      baton((c) => (c === "latest-continuous" ? { file: "derived_latest-continuous_07374000_march.json" } : null)),
    );
    const s = (await t.call("POST", "/v1/sessions", { body: { context: "carry" } })) as Answer;
    await t.call("GET", `/v1/packs/usgs/sites/07374000/reading?session=${s.body.id}`);
    await t.call("PUT", "/v1/tools/route_flow", { body: { params: { q: { unit: "m**3/s" } } } });
    const c = (await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      body: { tool: "route_flow", args: { q: 412000 } },
    })) as Answer;
    expect(c.body.violations[0].code).toBe("unconverted_carry_over");
    expect(c.body.violations[0].message).toMatch(/usgs\.reading\.return returned 412000 ft\^3\/s \(provisional\)/);
  });

  it("guards usgs.read_discharge's OGC reading with its qualifier flags, and stores them on the crossing", async () => {
    const { t } = await app(
      baton((c) => (c === "latest-continuous" ? { file: "derived_latest-continuous_07374000_bkw.json" } : null)),
    );
    const s = (await t.call("POST", "/v1/sessions", { body: { context: "tool" } })) as Answer;
    const r = (await t.call("POST", `/v1/sessions/${s.body.id}/packs/usgs.read_discharge`, {
      body: { args: { site: "07374000" } },
    })) as Answer;
    expect([r.status, r.body.ok, r.body.result_ok]).toEqual([200, true, true]);
    expect(r.body.result.discharge).toMatchObject({ value: 412000, quality: "unverified", flags: ["backwater"] });
    expect(
      t.db.sqlite
        .prepare(
          "SELECT value, flags FROM crossings WHERE session_id = ? AND direction = 'return' AND value IS NOT NULL",
        )
        .all(s.body.id),
    ).toEqual([{ value: 412000, flags: '["backwater"]' }]);
  });

  it("asks daily for the mean (statistic_id 00003) when no statistic is given, over the 30 days before `to`", async () => {
    const { s, t } = await app(baton((c) => (c === "daily" ? { file: "derived_daily_07374000_march.json" } : null)));
    const r = (await t.call("GET", "/v1/packs/usgs/sites/07374000/daily?to=2026-03-15")) as Answer;
    expect(r.status).toBe(200);
    expect(r.body.readings.map((x: Row) => [x.observed_at, x.quantity?.value])).toEqual([
      ["2026-03-14T00:00:00-05:00", 410000],
    ]);
    const asked = s.seen.filter((x) => x.path.endsWith("/daily/items"));
    expect(asked.map((x) => [x.query.get("statistic_id"), x.query.get("time")])).toEqual([
      ["00003", "2026-02-13/2026-03-15"],
    ]);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PackNotFoundError } from "../../src/packs/errors.js";
import type { Fetch } from "../../src/packs/fetch.js";
import { startRecordedServer } from "../../demo/usgs-server.js";
import { createTestApp } from "../helpers/db.js";

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test

const fixture = (name: string) => readFileSync(new URL(`../fixtures/packs/${name}`, import.meta.url), "utf8");

/** Answers the services' own paths from the recorded responses. */
const recorded: Fetch = async (url) => {
  if (url.includes("/nwis/site/") && url.includes("07374000")) return fixture("usgs_site_07374000.rdb");
  if (url.includes("/nwis/iv/") && url.includes("07374000")) return fixture("usgs_iv_07374000.json");
  if (url.endsWith("/id/stations/E21136")) return fixture("ea_station_E21136.json");
  if (url.endsWith("/id/stations/E21136/measures")) return fixture("ea_measures_E21136.json");
  if (url.endsWith("/id/stations/BROKEN")) return '{"items": ';
  throw new PackNotFoundError(`nothing recorded for ${url}`);
};

describe("retrieval packs over HTTP", () => {
  it("reads USGS 07374000: discharge 234000 ft^3/s provisional, gage height 7.73 ft on GAGE:07374000", async () => {
    const t = createTestApp({ packFetch: recorded });
    const r = (await t.call("GET", "/v1/packs/usgs-legacy/sites/07374000/reading")) as Answer;
    expect(r.status).toBe(200);
    const byCode = Object.fromEntries(r.body.readings.map((x: { parameter: string }) => [x.parameter, x]));
    expect(byCode["00060"].quantity).toEqual({
      value: 234000,
      unit: "ft^3/s",
      quality: "provisional",
      source: "usgs:07374000:00060",
      observed_at: "2026-08-14T18:15:00-05:00",
    });
    expect(byCode["00060"].observed_at).toBe("2026-08-14T18:15:00-05:00");
    expect(byCode["00065"].quantity).toMatchObject({
      value: 7.73,
      unit: "ft",
      datum: "GAGE:07374000",
      quality: "provisional",
    });
  });

  it("registers the gage datum, so the stage converts to NAVD88 and differences against 31.0 ft NAVD88 only after conversion", async () => {
    const t = createTestApp({ packFetch: recorded });
    const r = (await t.call("GET", "/v1/packs/usgs-legacy/sites/07374000/reading")) as Answer;
    const stage = r.body.readings.find((x: { parameter: string }) => x.parameter === "00065").quantity;
    const refused = (await t.call("POST", "/v1/compute", {
      body: { op: "sub", a: { value: 31.0, unit: "ft", datum: "NAVD88" }, b: stage },
    })) as Answer;
    expect([refused.status, refused.body.error.code]).toEqual([422, "datum_mismatch"]);
    const onNavd = (await t.call("POST", "/v1/convert", {
      body: { quantity: stage, to: { datum: "NAVD88" } },
    })) as Answer;
    expect(onNavd.body.quantity).toMatchObject({ value: 7.73, unit: "ft", datum: "NAVD88" });
    const margin = (await t.call("POST", "/v1/compute", {
      body: { op: "sub", a: { value: 31.0, unit: "ft", datum: "NAVD88" }, b: onNavd.body.quantity },
    })) as Answer;
    expect(margin.body.quantity.value).toBeCloseTo(23.27, 10);
  });

  it("reads EA E21136: 0.117 m on GAUGE:E21136, 6.417 m on ODN, and refuses 9.0 m ODN minus the station-datum level", async () => {
    const t = createTestApp({ packFetch: recorded });
    const r = (await t.call("GET", "/v1/packs/ea/stations/E21136/reading")) as Answer;
    const level = r.body.readings[0].quantity;
    expect(level).toMatchObject({ value: 0.117, unit: "m", datum: "GAUGE:E21136" });
    const refused = (await t.call("POST", "/v1/compute", {
      body: { op: "sub", a: { value: 9.0, unit: "m", datum: "ODN" }, b: level },
    })) as Answer;
    expect(refused.body.error.code).toBe("datum_mismatch");
    const odn = (await t.call("POST", "/v1/convert", { body: { quantity: level, to: { datum: "ODN" } } })) as Answer;
    expect(odn.body.quantity.value).toBeCloseTo(6.417, 10);
  });

  it("records each reading as a tool output of a session, so a dropped unit is caught as carry-over", async () => {
    const t = createTestApp({ packFetch: recorded });
    const s = (await t.call("POST", "/v1/sessions", { body: {} })) as Answer;
    await t.call("GET", `/v1/packs/usgs-legacy/sites/07374000/reading?session=${s.body.id}`);
    await t.call("PUT", "/v1/tools/route_flow", { body: { params: { q: { unit: "m**3/s" } } } });
    const c = (await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      body: { tool: "route_flow", args: { q: 234000 } },
    })) as Answer;
    expect(c.body.violations[0].code).toBe("unconverted_carry_over");
    expect(c.body.violations[0].message).toMatch(/usgs\.reading\.return returned 234000 ft\^3\/s \(provisional\)/);
  });

  it("answers 404 for an unknown site and 502 naming what failed for a malformed upstream answer", async () => {
    const t = createTestApp({ packFetch: recorded });
    const missing = (await t.call("GET", "/v1/packs/usgs-legacy/sites/01234567")) as Answer;
    expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
    const broken = (await t.call("GET", "/v1/packs/ea/stations/BROKEN")) as Answer;
    expect([broken.status, broken.body.error.code]).toEqual([502, "upstream_error"]);
    expect(broken.body.error.message).toMatch(/BROKEN/);
  });
});

describe("retrieval packs as guarded tools of a session", () => {
  it("reads the gage height through usgs.read_gage_height (the OGC API) and records it, so its datum is checked later", async () => {
    const usgs = await startRecordedServer((url) => {
      const p = url.pathname.replace("/ogcapi/v0/collections/", "");
      if (p === "monitoring-locations/items/USGS-07374000")
        return { file: "derived_monitoring-locations_USGS-07374000.json" };
      if (p === "latest-continuous/items") return { file: "derived_latest-continuous_07374000_march.json" };
      return null;
    });
    try {
      const t = createTestApp({ packFetch: recorded, config: { usgsUrl: usgs.base } });
      const s = (await t.call("POST", "/v1/sessions", { body: {} })) as Answer;
      const r = (await t.call("POST", `/v1/sessions/${s.body.id}/packs/usgs.read_gage_height`, {
        body: { args: { site: "07374000" } },
      })) as Answer;
      expect(r.status).toBe(200);
      expect([r.body.ok, r.body.guarded, r.body.result_ok]).toEqual([true, true, true]);
      expect(r.body.result.gage_height).toMatchObject({
        value: 31.2,
        unit: "ft",
        datum: "GAGE:07374000",
        quality: "provisional",
      });
      expect(usgs.seen.map((x) => x.path)).toEqual([
        "/ogcapi/v0/collections/monitoring-locations/items/USGS-07374000",
        "/ogcapi/v0/collections/latest-continuous/items",
      ]);
      // The stage reused as a NAVD88 elevation without conversion is a datum carry-over.
      await t.call("PUT", "/v1/tools/flood_margin_check", {
        body: { params: { stage: { unit: "ft", datum: "NAVD88" } } },
      });
      const reuse = (await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
        body: { tool: "flood_margin_check", args: { stage: 31.2 } },
      })) as Answer;
      expect(reuse.body.violations[0].code).toBe("unconverted_carry_over");
      expect(reuse.body.violations[0].message).toMatch(
        /usgs\.read_gage_height\.return\.gage_height returned it on GAGE:07374000/,
      );
    } finally {
      await usgs.close();
    }
  });
  it("answers 400 for an unknown pack tool and 404 for another team's session", async () => {
    const t = createTestApp({ packFetch: recorded });
    const s = (await t.call("POST", "/v1/sessions", { body: {} })) as Answer;
    expect(
      ((await t.call("POST", `/v1/sessions/${s.body.id}/packs/usgs.read_everything`, { body: { args: {} } })) as Answer)
        .status,
    ).toBe(400);
    const other = (await t.call("POST", `/v1/sessions/${s.body.id}/packs/usgs.read_discharge`, {
      body: { args: { site: "07374000" } },
      token: t.teamToken("b"),
    })) as Answer;
    expect(other.status).toBe(404);
  });
});

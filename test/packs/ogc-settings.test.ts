// The OGC pack's settings: the interval of the watch inside serve, a v1 base URL, and usgs-legacy's stated end.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type RecordedServer, startRecordedServer } from "../../demo/usgs-server.js";
import { loadConfig } from "../../src/config.js";
import { PackNotFoundError } from "../../src/packs/errors.js";
import { OgcClient } from "../../src/packs/ogc/client.js";
import { startWatchLoop, type WatchPass } from "../../src/packs/ogc/watch.js";
import { createTestApp } from "../helpers/db.js";

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test

const servers: RecordedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("USGS OGC settings", () => {
  it("reads AGENT_LEDGER_REVISION_WATCH as an interval and refuses anything else naming the variable", () => {
    expect(loadConfig({ AGENT_LEDGER_REVISION_WATCH: "6h" }).revisionWatchMs).toBe(21_600_000);
    expect(loadConfig({ AGENT_LEDGER_REVISION_WATCH: "30m" }).revisionWatchMs).toBe(1_800_000);
    expect(loadConfig({}).revisionWatchMs).toBeUndefined();
    expect(() => loadConfig({ AGENT_LEDGER_REVISION_WATCH: "often" })).toThrow(
      'AGENT_LEDGER_REVISION_WATCH must be a duration such as "6h", "30m" or "1d" (received "often")',
    );
    expect(() => loadConfig({ AGENT_LEDGER_USGS_API_KEY: "a b" })).toThrow(
      "AGENT_LEDGER_USGS_API_KEY must not contain spaces (received a value that is not shown)",
    );
  });

  it("accepts a v1 base and follows a next link naming v1 exactly", async () => {
    const page1 = {
      type: "FeatureCollection",
      features: [{ type: "Feature", id: "a", properties: {} }],
      links: [] as { rel: string; href: string }[],
    };
    const s = await startRecordedServer((url) => {
      if (url.searchParams.get("cursor") === "Zm9v")
        return { json: { type: "FeatureCollection", features: [], links: [] } };
      return {
        json: {
          ...page1,
          links: [
            { rel: "next", href: `${s.origin}/ogcapi/v1/collections/continuous/items?cursor=Zm9v&lang=en-US&f=json` },
          ],
        },
      };
    });
    servers.push(s);
    const c = new OgcClient({ baseUrl: `${s.origin}/ogcapi/v1/` });
    expect(await c.items("continuous", { monitoring_location_id: "USGS-07374000" })).toHaveLength(1);
    expect(s.seen.map((x) => `${x.path}?${x.query.toString()}`)).toEqual([
      "/ogcapi/v1/collections/continuous/items?f=json&skipGeometry=true&limit=10000&monitoring_location_id=USGS-07374000",
      "/ogcapi/v1/collections/continuous/items?cursor=Zm9v&lang=en-US&f=json",
    ]);
  });

  it("refuses to page without end: more than maxPages pages is an error, not a silent cut", async () => {
    let n = 0;
    const s = await startRecordedServer(() => ({
      json: {
        type: "FeatureCollection",
        features: [{ id: n }],
        links: [{ rel: "next", href: `${s.base}/collections/continuous/items?cursor=${++n}` }],
      },
    }));
    servers.push(s);
    await expect(new OgcClient({ baseUrl: s.base, maxPages: 3 }).items("continuous", {})).rejects.toThrow(
      "USGS had more than 3 pages of 10000 rows for continuous; ask for a shorter window",
    );
  });

  it("ticks on a loop as serve does with AGENT_LEDGER_REVISION_WATCH, passing again only when a series is due or a reading is new", async () => {
    const t = createTestApp();
    const passes: (WatchPass | Error)[] = [];
    const loop = startWatchLoop(t.store, new OgcClient({ baseUrl: "http://127.0.0.1:9/ogcapi/v0" }), {
      intervalMs: 6 * 3_600_000,
      now: () => new Date(),
      tickMs: 20,
      onPass: (p) => passes.push(p),
    });
    await new Promise((r) => setTimeout(r, 1300));
    loop.stop();
    expect(loop.ticks).toBeGreaterThanOrEqual(5);
    expect(passes).toHaveLength(1);
    expect(passes[0]).toMatchObject({ watched: 0, requests: 0, stopped: null, errors: [], next_due: null });
  });

  it("states usgs-legacy's end date in its answers", async () => {
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/packs/${name}`, import.meta.url), "utf8");
    const t = createTestApp({
      packFetch: async (url) => {
        if (url.includes("/nwis/site/")) return fixture("usgs_site_07374000.rdb");
        if (url.includes("/nwis/iv/")) return fixture("usgs_iv_07374000.json");
        throw new PackNotFoundError(`nothing recorded for ${url}`);
      },
    });
    for (const path of ["/v1/packs/usgs-legacy/sites/07374000", "/v1/packs/usgs-legacy/sites/07374000/reading"]) {
      const r = (await t.call("GET", path)) as Answer;
      expect([r.status, r.body.ends]).toEqual([200, "2027-02-22"]);
      expect(r.body.notice).toContain("scheduled for decommission on 2027-02-22");
    }
  });
});

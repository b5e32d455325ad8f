// The revision watch and qualifier flags, end to end against a real 127.0.0.1 server of recorded USGS responses: a
// reading that stays Approved at the same value but changes its qualifier (Bkw to Ice) is a revision naming both.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ogcFixture, type RecordedServer, startRecordedServer } from "../../demo/usgs-server.js";
import { fixedClock } from "../../src/clock.js";
import { OgcClient } from "../../src/packs/ogc/client.js";
import { watchPass } from "../../src/packs/ogc/watch.js";
import { createTestApp } from "../helpers/db.js";

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test

const DAY = 86_400_000;
const HOUR = 3_600_000;
const Q = "8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70";
const SOURCE = `usgs:07374000:00060:${Q}`;
const JUNE_MODIFIED = "2026-06-02T14:05:40.918266+00:00";
const MARCH = "derived_latest-continuous_07374000_bkw.json";
const JUNE = "derived_continuous_07374000_ice.json";

const servers: RecordedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A recorded file with the discharge feature's `qualifier` replaced (null: the file as recorded). */
function withQualifier(file: string, qualifier: unknown): unknown {
  const body = JSON.parse(ogcFixture(file));
  if (qualifier !== null) body.features[0].properties.qualifier = qualifier;
  return body;
}

/**
 * USGS as recorded: March's latest values Approved with discharge qualified Bkw, and on `continuous`, once the clock
 * has reached June's modification and the request's last_modified filter starts before it, the same discharge
 * Approved at the same value qualified Ice. `march`/`june` replace the discharge qualifier of each.
 */
async function world(qualifiers: { march: unknown; june: unknown } = { march: null, june: null }) {
  const clock = fixedClock("2026-03-14T18:00:00Z");
  const s = await startRecordedServer((url) => {
    const p = url.pathname.replace("/ogcapi/v0/collections/", "");
    if (p === "monitoring-locations/items/USGS-07374000")
      return { file: "derived_monitoring-locations_USGS-07374000.json" };
    if (p === "latest-continuous/items") return { json: withQualifier(MARCH, qualifiers.march) };
    if (p === "continuous/items") {
      const since = url.searchParams.get("last_modified")?.split("/")[0];
      const modified = clock.now().getTime() >= Date.parse(JUNE_MODIFIED) && since !== undefined;
      return modified && Date.parse(since) <= Date.parse(JUNE_MODIFIED)
        ? { json: withQualifier(JUNE, qualifiers.june) }
        : { file: "usgs_daily_empty.json" };
    }
    return null;
  });
  servers.push(s);
  const t = createTestApp({ clock, config: { usgsUrl: s.base } });
  const s1 = (await t.call("POST", "/v1/sessions", { body: { context: "March flood report" } })) as Answer;
  const read = (await t.call("GET", `/v1/packs/usgs/sites/07374000/reading?session=${s1.body.id}`)) as Answer;
  const body = JSON.parse(readFileSync(new URL("../../examples/march-flood-report.json", import.meta.url), "utf8"));
  body.result.claims[0].source = `ledger:sessions/${s1.body.id}`;
  const report = (await t.call("POST", "/v1/evaluations", { body })) as Answer;
  expect(report.body.status).toBe("released");
  const client = new OgcClient({ baseUrl: s.base });
  const pass = () => watchPass(t.store, client, { intervalMs: 6 * HOUR, now: () => clock.now() });
  const revisions = async () => ((await t.call("GET", "/v1/revisions")) as Answer).body.items;
  return {
    t,
    clock,
    read: read.body,
    session: s1.body.id as string,
    report: report.body.id as string,
    pass,
    revisions,
  };
}

describe("revision watch: qualifier flags", () => {
  it("records Approved+Bkw re-read as Approved+Ice at the same value as a revision naming both, with the March report", async () => {
    const { clock, read, session, report, pass, revisions } = await world();
    expect(read.readings[0]).toMatchObject({
      quality: "approved",
      qualifiers: ["Bkw"],
      flags: ["backwater"],
      quantity: { value: 412000, quality: "unverified", flags: ["backwater"] },
    });
    clock.advance(80 * DAY);
    expect(await pass()).toMatchObject({ watched: 1, requests: 1, revised: 1, errors: [] });
    const items = await revisions();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: "detected",
      source: SOURCE,
      observed_at: "2026-03-14T15:15:00Z",
      revised_by: "usgs.watch",
      before: { value: 412000, unit: "ft^3/s", quality: "unverified", session_id: session },
      after: { value: 412000, unit: "ft^3/s", quality: "unverified" },
      affected: [{ evaluation_id: report, task: "baton-rouge-march-flood", claim_id: "M1" }],
    });
    expect(items[0].reason).toBe(
      `usgs.watch read ${SOURCE} observed 2026-03-14T15:15:00Z again and returned 412000 ft^3/s (unverified), ` +
        `where crossing ${items[0].before.crossing_id} holds 412000 ft^3/s (unverified); ` +
        "its qualifier flags changed from backwater to ice",
    );
  });

  it("does not record the same qualifiers in another order and spelling as a revision", async () => {
    const { clock, pass, revisions } = await world({ march: ["Bkw", "Ice"], june: "ICE, bkw" });
    clock.advance(80 * DAY);
    expect(await pass()).toMatchObject({ watched: 1, requests: 1, revised: 0, errors: [] });
    expect(await revisions()).toEqual([]);
  });

  it("does not record a revision for a reading stored before flags were kept (its flags column is NULL)", async () => {
    const { t, clock, pass, revisions } = await world();
    // What the crossing_flags migration leaves in every earlier row.
    expect(t.db.sqlite.prepare("UPDATE crossings SET flags = NULL WHERE flags IS NOT NULL").run().changes).toBe(2);
    clock.advance(80 * DAY);
    expect(await pass()).toMatchObject({ watched: 1, requests: 1, revised: 0, errors: [] });
    expect(await revisions()).toEqual([]);
  });
});

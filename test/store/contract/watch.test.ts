// Store contract: the revision watch's watched readings and its state (table revision_watch), on every engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore, WatchState } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const SERIES = "8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70";
const SOURCE = `usgs:07374000:00060:${SERIES}`;
const AT = "2026-03-14T15:15:00Z";
const reading = (value: number, quality: string) => ({
  args: { site: "07374000", parameter: "00060", series: SERIES, time: AT },
  quantity: { value, unit: "ft^3/s", quality: quality as "provisional", source: SOURCE, observed_at: AT },
});
const report = (session: string) => ({
  task: { id: "march-flood" },
  result: {
    output: "March flood: 412000 cfs.",
    claims: [
      {
        id: "M1",
        kind: "fact",
        text: "Discharge at Baton Rouge on 14 March was 412000 cfs.",
        value: "412000 cfs",
        source: `ledger:sessions/${session}`,
        confidence: 0.9,
        verified: true,
      },
    ],
  },
});

describe.each(await enginesUnderTest())("$name store: the revision watch", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-15T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  it("watches a provisional reading under a released evaluation until a later read of it is approved", async () => {
    const watch = store.watch!;
    const teamId = await freshTeam(store);
    const s1 = await store.sessions.create(teamId, { context: "March" });
    await store.packs.record(teamId, s1.id, "usgs.reading", [reading(412000, "provisional")]);
    expect((await watch.watched(teamId)).rows).toEqual([]);
    const { evaluation } = await store.evaluations.evaluate(teamId, report(s1.id));
    expect(evaluation.status).toBe("released");
    const watched = (await watch.watched(teamId)).rows;
    expect(watched.map((w) => [w.tool, w.source, w.value, w.unit, w.quality, w.observed_utc])).toEqual([
      ["usgs.reading", SOURCE, 412000, "ft^3/s", "provisional", "2026-03-14T15:15:00.000Z"],
    ]);
    expect(typeof watched[0]!.crossing_id).toBe("number");
    expect((await watch.watched()).rows.some((w) => w.team_id === teamId)).toBe(true);
    const first = await watch.watched(teamId, { after: 0, limit: 1 });
    expect([first.rows.length, typeof first.next]).toEqual([1, "number"]);
    expect(await watch.watched(teamId, { after: first.next!, limit: 1 })).toEqual({ rows: [], next: null });
    expect(await watch.watched(await freshTeam(store))).toEqual({ rows: [], next: null });

    const s2 = await store.sessions.create(teamId, { context: "June" });
    await store.packs.record(teamId, s2.id, "usgs.watch", [reading(405000, "approved")]);
    expect((await watch.watched(teamId)).rows).toEqual([]);
  });

  it("watches an estimated reading too, and not one approved when read", async () => {
    const watch = store.watch!;
    const teamId = await freshTeam(store);
    const s1 = await store.sessions.create(teamId, { context: "estimated" });
    await store.packs.record(teamId, s1.id, "usgs.reading", [reading(412000, "estimated")]);
    expect((await store.evaluations.evaluate(teamId, report(s1.id))).evaluation.status).toBe("released");
    expect((await watch.watched(teamId)).rows.map((w) => [w.value, w.quality])).toEqual([[412000, "estimated"]]);
    const other = await freshTeam(store);
    const s2 = await store.sessions.create(other, { context: "approved" });
    await store.packs.record(other, s2.id, "usgs.reading", [reading(412000, "approved")]);
    expect((await store.evaluations.evaluate(other, report(s2.id))).evaluation.status).toBe("released");
    expect((await watch.watched(other)).rows).toEqual([]);
  });

  it("saves and replaces state rows per team and series", async () => {
    const watch = store.watch!;
    const teamId = await freshTeam(store);
    const row: WatchState = {
      team_id: teamId,
      series_key: "USGS-07374000|continuous|00060|",
      site: "USGS-07374000",
      collection: "continuous",
      parameter: "00060",
      statistic: null,
      session_id: "s",
      last_look: null,
      last_run: null,
      next_run: null,
      requests: 0,
    };
    await watch.save([row]);
    await watch.save([{ ...row, last_look: "2026-06-02T18:00:00.000Z", requests: 3 }]);
    expect(await watch.states(teamId)).toEqual([{ ...row, last_look: "2026-06-02T18:00:00.000Z", requests: 3 }]);
  });
});

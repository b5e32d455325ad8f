// Store contract: a re-read that changes only a reading's qualifier flags is a revision naming both sets of flags; the
// same flags in another order, or a side whose flags are unknown (rows from before flags were kept), is not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const READ = { params: { site: {} }, returns: { discharge: { unit: "ft^3/s" } } };
const SOURCE = "usgs:07374000:00060:8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70";
const AT = "2026-03-14T15:15:00Z";

/** A reading as the USGS pack stores it: Approved with a qualifier weakens to unverified; `flags` absent when null. */
const reading = (value: number, flags: string[] | null, quality = "unverified") => ({
  discharge: {
    value,
    unit: "ft^3/s",
    quality,
    source: SOURCE,
    observed_at: AT,
    ...(flags === null ? {} : { flags }),
  },
});

/** The USGS pack's reading as the watch and the routes record it (`store.packs.record`). */
const packReading = (flags: string[]) => ({
  args: { site: "07374000", parameter: "00060", series: "8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70", time: AT },
  quantity: { ...reading(412000, flags).discharge, quality: "unverified" as const },
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

describe.each(await enginesUnderTest())("$name store: revisions of qualifier flags", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-15T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  async function team() {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", READ);
    const read = async (result: unknown) => {
      const s = await store.sessions.create(teamId, { context: "Baton Rouge" });
      const c = await store.calls.call(teamId, s.id, "read_discharge", { site: "07374000" });
      await store.calls.result(teamId, s.id, c.call_id, result);
      return s.id;
    };
    const revisions = async () => (await store.revisions!.list(teamId, { limit: 10 })).items;
    return { teamId, read, revisions };
  }

  it("records Approved+Bkw re-read as Approved+Ice (same value, same grade) as a revision naming both flags", async () => {
    const { read, revisions } = await team();
    const first = await read(reading(412000, ["backwater"]));
    clock.set("2026-06-02T18:00:00.000Z");
    const second = await read(reading(412000, ["ice"]));
    const [rev, ...more] = await revisions();
    expect(more).toEqual([]);
    expect(rev).toMatchObject({
      kind: "detected",
      source: SOURCE,
      observed_at: AT,
      revised_by: "read_discharge",
      detected_at: "2026-06-02T18:00:00.000Z",
      before: { session_id: first, value: 412000, unit: "ft^3/s", quality: "unverified" },
      after: { session_id: second, value: 412000, unit: "ft^3/s", quality: "unverified" },
    });
    expect(rev!.reason).toBe(
      `read_discharge read ${SOURCE} observed ${AT} again and returned 412000 ft^3/s (unverified), ` +
        `where crossing ${rev!.before.crossing_id} holds 412000 ft^3/s (unverified); ` +
        "its qualifier flags changed from backwater to ice",
    );
  });

  it("records flags removed (to none) and a value change with a flags change as one revision each", async () => {
    const { read, revisions } = await team();
    await read(reading(412000, ["backwater", "ice"]));
    clock.set("2026-06-03T18:00:00.000Z");
    await read(reading(412000, [], "approved"));
    clock.set("2026-06-04T18:00:00.000Z");
    await read(reading(405000, ["ice"], "approved"));
    const [valueAndFlags, removed] = await revisions();
    expect(removed!.reason).toMatch(
      /holds 412000 ft\^3\/s \(unverified\); its qualifier flags changed from backwater, ice to none$/,
    );
    expect(valueAndFlags!.reason).toMatch(
      /returned 405000 ft\^3\/s \(approved\), where crossing \d+ holds 412000 ft\^3\/s \(approved\); its qualifier flags changed from none to ice$/,
    );
  });

  it("does not record the same flags in another order or another case as a revision", async () => {
    const { read, revisions } = await team();
    await read(reading(412000, ["backwater", "ice"]));
    await read(reading(412000, ["ice", "backwater"]));
    await read(reading(412000, ["Ice", "BACKWATER", "ice"]));
    expect(await revisions()).toEqual([]);
  });

  it("does not record a re-read as a revision when either side's flags are unknown (a row from before flags were kept)", async () => {
    const { read, revisions } = await team();
    // No `flags` key stores NULL, exactly what the migration leaves in every row written before it.
    await read(reading(412000, null));
    await read(reading(412000, ["ice"]));
    await read(reading(412000, null));
    await read(reading(412000, ["ice"]));
    expect(await revisions()).toEqual([]);
    // A known change between two readings that state their flags is still found across the unknown one.
    await read(reading(412000, ["backwater"]));
    const [rev] = await revisions();
    expect(rev!.reason).toMatch(/its qualifier flags changed from ice to backwater$/);
  });

  it("gives the watch each watched reading's flags, and the watch's re-read with other flags revises it for the report", async () => {
    const teamId = await freshTeam(store);
    const s1 = await store.sessions.create(teamId, { context: "March" });
    await store.packs.record(teamId, s1.id, "usgs.reading", [packReading(["backwater"])]);
    const { evaluation } = await store.evaluations.evaluate(teamId, report(s1.id));
    expect(evaluation.status).toBe("released");
    const watched = (await store.watch!.watched(teamId)).rows;
    expect(watched.map((w) => [w.source, w.value, w.quality, w.flags])).toEqual([
      [SOURCE, 412000, "unverified", '["backwater"]'],
    ]);
    const s2 = await store.sessions.create(teamId, { context: "watch" });
    await store.packs.record(teamId, s2.id, "usgs.watch", [packReading(["ice"])]);
    const [rev] = (await store.revisions!.list(teamId, { limit: 10 })).items;
    expect(rev).toMatchObject({
      revised_by: "usgs.watch",
      before: { crossing_id: watched[0]!.crossing_id, value: 412000, quality: "unverified" },
      after: { value: 412000, quality: "unverified" },
      affected: [{ evaluation_id: evaluation.id, task: "march-flood", claim_id: "M1" }],
    });
    expect(rev!.reason).toMatch(/; its qualifier flags changed from backwater to ice$/);
  });
});

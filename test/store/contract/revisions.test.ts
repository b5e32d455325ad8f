// Store contract: readings revised by a later reading, declared revisions, and the newest-first revision pages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const READ = { params: { site: {} }, returns: { discharge: { unit: "ft^3/s" } } };
const SOURCE = "usgs:07374000:00060";
const AT = "2026-03-14T10:15:00-05:00";

const reading = (value: number, quality: string, source = SOURCE) => ({
  discharge: { value, unit: "cfs", quality, source, observed_at: AT },
});

describe.each(await enginesUnderTest())("$name store: readings and their revisions", (engine) => {
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
    return { teamId, read };
  }

  it("pages detected revisions newest first by cursor, filters by source and since, and keeps them to the team", async () => {
    const revisions = store.revisions!;
    const { teamId, read } = await team();
    const first = await read(reading(1250, "P"));
    clock.set("2026-03-16T09:00:00.000Z");
    const second = await read(reading(1300, "P"));
    clock.set("2026-03-17T09:00:00.000Z");
    await read(reading(1300, "A"));
    clock.set("2026-03-18T09:00:00.000Z");
    await read(reading(1300, "A"));
    await read(reading(99, "A", "usgs:other:00060"));
    const p1 = await revisions.list(teamId, { limit: 1 });
    expect(
      p1.items.map((r) => [r.detected_at, r.before.value, r.before.quality, r.after.value, r.after.quality]),
    ).toEqual([["2026-03-17T09:00:00.000Z", 1300, "provisional", 1300, "approved"]]);
    expect(p1.next_cursor).toEqual([p1.items[0]!.detected_at, p1.items[0]!.id]);
    const p2 = await revisions.list(teamId, { limit: 1, before: p1.next_cursor });
    expect(p2.next_cursor).toBeNull();
    const older = p2.items[0]!;
    expect(older).toMatchObject({
      kind: "detected",
      source: SOURCE,
      observed_at: AT,
      revised_by: "read_discharge",
      detected_at: "2026-03-16T09:00:00.000Z",
      before: { session_id: first, value: 1250, unit: "ft^3/s", quality: "provisional" },
      after: { session_id: second, value: 1300, unit: "ft^3/s", quality: "provisional" },
      affected: [],
    });
    expect(older.reason).toBe(
      `read_discharge read ${SOURCE} observed ${AT} again and returned 1300 ft^3/s (provisional), ` +
        `where crossing ${older.before.crossing_id} holds 1250 ft^3/s (provisional)`,
    );
    expect(await revisions.get(teamId, older.id)).toEqual(older);
    expect((await revisions.list(teamId, { limit: 10, since: "2026-03-17T00:00:00Z" })).items).toHaveLength(1);
    expect((await revisions.list(teamId, { limit: 10, source: "usgs:other:00060" })).items).toEqual([]);
    const other = await freshTeam(store);
    expect(await revisions.list(other, { limit: 10 })).toEqual({ items: [], next_cursor: null });
    await expect(revisions.get(other, older.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(revisions.claimsOf(other, older.before.crossing_id!, { limit: 10 })).rejects.toMatchObject({
      code: "not_found",
      message: `no crossing '${older.before.crossing_id}'`,
    });
  });

  it("declares a revision over the latest one and refuses one that changes nothing", async () => {
    const revisions = store.revisions!;
    const { teamId, read } = await team();
    await read(reading(1250, "P"));
    clock.set("2026-03-20T09:00:00.000Z");
    await read(reading(1300, "A"));
    const [detected] = (await revisions.list(teamId, { limit: 1 })).items;
    const crossing = detected!.before.crossing_id!;
    const input = { value: 1300, unit: "cfs", quality: "approved", reason: "same", revised_by: "me" };
    await expect(revisions.declare(teamId, crossing, input)).rejects.toMatchObject({
      code: "conflict",
      message: `crossing ${crossing} already stands at 1300 ft^3/s (approved); a revision must change the value or the quality`,
    });
    const declared = await revisions.declare(teamId, crossing, { ...input, value: 1320, reason: "rated again" });
    expect(declared).toMatchObject({
      kind: "declared",
      reason: "rated again",
      revised_by: "me",
      detected_at: "2026-03-20T09:00:00.000Z",
      before: { crossing_id: crossing, value: 1250, unit: "ft^3/s", quality: "provisional" },
      after: { crossing_id: null, session_id: null, value: 1320, unit: "cfs", quality: "approved" },
    });
    expect(await revisions.claimsOf(teamId, crossing, { limit: 10 })).toEqual({ items: [], next_cursor: null });
  });
});

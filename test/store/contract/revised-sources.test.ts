// Store contract: released claims resting on revised readings (RevisionsRepo.revisedSources), on every engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const READ = { params: { site: {} }, returns: { discharge: { unit: "ft^3/s" } } };
const SOURCE = "usgs:07374000:00060";
const AT = "2026-03-14T10:15:00-05:00";
const KEY = "Peak Discharge 14 March";

const reading = (value: number, quality: string) => ({
  discharge: { value, unit: "cfs", quality, source: SOURCE, observed_at: AT },
});

/** A released report whose keyed fact F1 restates `value` and cites the session that read it. */
const report = (session: string, value: string) => ({
  task: { id: "march-flood" },
  result: {
    output: "The Mississippi at Baton Rouge carried the March flood.",
    claims: [
      {
        id: "F1",
        kind: "fact",
        text: "Discharge at Baton Rouge on 14 March.",
        key: KEY,
        value,
        source: `ledger:sessions/${session}`,
        confidence: 0.9,
        verified: true,
      },
    ],
  },
});

describe.each(await enginesUnderTest())("$name store: released claims on revised readings", (engine) => {
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
    const release = async (session: string, value: string) => {
      const { evaluation } = await store.evaluations.evaluate(teamId, report(session, value));
      expect(evaluation.status).toBe("released");
      return evaluation;
    };
    return { teamId, read, release };
  }

  it("finds a released claim by key or by text once its reading is revised, and follows later revisions to the current value", async () => {
    const revisions = store.revisions!;
    const { teamId, read, release } = await team();
    const march = await read(reading(1250, "P"));
    const e = await release(march, "1250 cfs");
    const cited = e.sources[0]!.crossing_id!;
    const byKey = { keys: ["peak discharge 14 march"], texts: [] };
    expect(await revisions.revisedSources(teamId, byKey, 10)).toEqual([]);
    clock.set("2026-06-02T12:00:00.000Z");
    await read(reading(1310, "A"));
    const [found, ...rest] = await revisions.revisedSources(teamId, byKey, 10);
    expect(rest).toEqual([]);
    expect(found).toMatchObject({
      revision: {
        kind: "detected",
        source: SOURCE,
        observed_at: AT,
        detected_at: "2026-06-02T12:00:00.000Z",
        before: { crossing_id: cited, session_id: march, value: 1250, unit: "ft^3/s", quality: "provisional" },
        after: { value: 1310, unit: "ft^3/s", quality: "approved" },
      },
      link: {
        evaluation_id: e.id,
        task: "march-flood",
        claim_id: "F1",
        claim_text: "Discharge at Baton Rouge on 14 March.",
        run: 1,
        key: "peak discharge 14 march",
        value: "1250 cfs",
        crossing_id: cited,
        reading: { value: 1250, unit: "ft^3/s", quality: "provisional" },
      },
    });
    const after = found!.revision.after.crossing_id!;
    expect(found!.current).toEqual({ crossing_id: after, value: 1310, unit: "ft^3/s", quality: "approved" });
    // The same link by the claim's text, either way round and in another case.
    const byText = await revisions.revisedSources(teamId, { keys: [], texts: ["BATON ROUGE on 14 march"] }, 10);
    expect(byText.map((r) => [r.revision.id, r.link.claim_id])).toEqual([[found!.revision.id, "F1"]]);
    const within = { keys: [], texts: ["Discharge at Baton Rouge on 14 March. It was high."] };
    expect(await revisions.revisedSources(teamId, within, 10)).toHaveLength(1);
    expect(await revisions.revisedSources(teamId, { keys: ["another key"], texts: ["Natchez"] }, 10)).toEqual([]);
    // A declared revision of the later reading: the current value is the declared one, on that crossing.
    clock.set("2026-07-01T08:00:00.000Z");
    await revisions.declare(teamId, after, { value: 1320, unit: "cfs", reason: "rated again", revised_by: "hydro" });
    // The link's newest revision is now the declared one, of the later reading.
    const [again, ...more] = await revisions.revisedSources(teamId, byKey, 10);
    expect(more).toEqual([]);
    expect(again!.revision).toMatchObject({ kind: "declared", reason: "rated again", before: { crossing_id: after } });
    expect(again!.current).toEqual({ crossing_id: after, value: 1320, unit: "cfs", quality: null });
  });

  it("never answers another team's revisions; a same-value re-read is no revision, a later one of it is", async () => {
    const revisions = store.revisions!;
    const a = await team();
    const s = await a.read(reading(1250, "A"));
    const e = await a.release(s, "1250 cfs");
    clock.set("2026-06-03T12:00:00.000Z");
    const reread = await a.read(reading(1250, "A"));
    const byKey = { keys: ["peak discharge 14 march"], texts: ["Discharge at Baton Rouge"] };
    expect(await revisions.revisedSources(a.teamId, byKey, 10)).toEqual([]);
    // The observation is revised on the re-read, not on the cited crossing: the claim still rests on it.
    await a.read(reading(1400, "A"));
    const [found, ...rest] = await revisions.revisedSources(a.teamId, byKey, 10);
    expect(rest).toEqual([]);
    expect(found!.link.crossing_id).toBe(e.sources[0]!.crossing_id);
    expect(found!.revision.before).toMatchObject({ session_id: reread, value: 1250, quality: "approved" });
    expect(found!.current).toMatchObject({ value: 1400, unit: "ft^3/s", quality: "approved" });
    const b = await team();
    expect(await revisions.revisedSources(b.teamId, byKey, 10)).toEqual([]);
    expect(await revisions.revisedSources(a.teamId, { keys: [], texts: [] }, 10)).toEqual([]);
  });
});

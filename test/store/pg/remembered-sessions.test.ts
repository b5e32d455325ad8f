// Two PostgreSQL stores on one database stand for two instances. Each remembers the sessions it served and writes a
// call on a remembered session in one statement; these tests pin that the memory is never trusted stale: whatever the
// other instance wrote (a call, a result, a tool, a datum) is seen by the next call here, and calls stay gapless.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgStore, type PgStore } from "../../../src/store/pg/store.js";
import { createPgDatabase } from "../../helpers/pg.js";
import { countStatements } from "../../helpers/pg-statements.js";
import { chainSettings } from "../../../src/store/common/chain.js";

// These pin the statements of the one-statement writes themselves, so they run with the ledger chain off; the
// chained transaction around them is pinned in test/store/contract/chain.test.ts.
chainSettings.enabled = false;

const READ = { params: { site: {} }, returns: { unit: "cfs" } };
const RUNOFF = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };

const UNKNOWN_GAGE =
  "unknown datum 'GAGE:2'; register it first (POST /v1/datums) or use one of [AHD, BELFAST, CD, CGVD2013, CGVD28, " +
  "DHHN2016, EGM2008, EGM96, EVRF2000, EVRF2019, GAGE, LAT, MALIN, MHHW, MLLW, MSL, NAP, NAVD88, NGF-IGN69, NGVD29, NZVD2016, ODN]";
const UNCONVERTED_GAGE =
  "expected an elevation referenced to NAVD88, received one referenced to GAGE:2 (10 m (GAGE:2)); both are in compatible " +
  "units but measured from different references, so convert it to NAVD88 along a registered offset (POST /v1/convert with " +
  '"to": {"datum": "NAVD88"}) and resend it, or register the offset between GAGE:2 and NAVD88 first';

describe("two PostgreSQL instances remembering sessions", () => {
  let a: PgStore;
  let b: PgStore;
  let sentByA: { n: number };
  let teamId: string;
  beforeAll(async () => {
    const url = await createPgDatabase();
    a = await openPgStore(url);
    b = await openPgStore(url);
    sentByA = countStatements(a.db.pool);
    teamId = await a.teams.ensureDefault();
    await a.tools.put(teamId, "read_discharge", READ);
    await a.tools.put(teamId, "runoff_depth", RUNOFF);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  /** A session opened through A, with one call through A so A has read the team's registry and the tool. */
  async function warmSession(): Promise<string> {
    const s = await a.sessions.create(teamId, { context: "What is the runoff depth at 07374000?" });
    await a.calls.call(teamId, s.id, "runoff_depth", { discharge: "1 cfs", area: 1 });
    return s.id;
  }

  it("writes a call on a session it remembers in one statement, and its result in one more", async () => {
    const sessionId = await warmSession();
    const before = sentByA.n;
    const call = await a.calls.call(teamId, sessionId, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
    expect(sentByA.n - before).toBe(1);
    expect(call).toMatchObject({ seq: 2, ok: true, tool_version: 1 });
    await a.calls.result(teamId, sessionId, call.call_id, 0.105);
    expect(sentByA.n - before).toBe(2);
    expect(await b.sessions.get(teamId, sessionId)).toMatchObject({ callCount: 2, violationCount: 0 });
  });

  it("numbers calls 1, 2, 3 when the middle one went through the other instance", async () => {
    const s = await a.sessions.create(teamId, { context: "q" });
    const args = { discharge: "1 cfs", area: 1 };
    const seqs = [
      (await a.calls.call(teamId, s.id, "runoff_depth", args)).seq,
      (await b.calls.call(teamId, s.id, "runoff_depth", args)).seq,
      (await a.calls.call(teamId, s.id, "runoff_depth", args)).seq,
    ];
    expect(seqs).toEqual([1, 2, 3]);
    expect((await a.calls.list(teamId, s.id)).map((c) => c.seq)).toEqual([1, 2, 3]);
  });

  it("refuses a carried-over 1250 when the 1250 cfs result was stored through the other instance", async () => {
    const sessionId = await warmSession();
    const read = await a.calls.call(teamId, sessionId, "read_discharge", { site: "07374000" });
    await b.calls.result(teamId, sessionId, read.call_id, 1250);
    const carried = await a.calls.call(teamId, sessionId, "runoff_depth", { discharge: 1250, area: 29000 });
    expect(carried).toMatchObject({ seq: 3, ok: false, would_block: true });
    expect(carried.violations.map((v) => v.code)).toEqual(["unconverted_carry_over"]);
  });

  it("refuses a carried-over 1250 after its own remembered result, without reading the outputs again", async () => {
    const sessionId = await warmSession();
    const read = await a.calls.call(teamId, sessionId, "read_discharge", { site: "07374000" });
    await a.calls.result(teamId, sessionId, read.call_id, 1250);
    const before = sentByA.n;
    const carried = await a.calls.call(teamId, sessionId, "runoff_depth", { discharge: 1250, area: 29000 });
    expect(sentByA.n - before).toBe(1);
    expect(carried.violations.map((v) => v.code)).toEqual(["unconverted_carry_over"]);
  });

  it("checks the next call against a tool declared again through the other instance", async () => {
    const other = await a.teams.create("redeclared");
    await a.tools.put(other.id, "runoff_depth", RUNOFF);
    const s = await a.sessions.create(other.id, { context: "q" });
    expect(await a.calls.call(other.id, s.id, "runoff_depth", { discharge: "1 cfs", area: 1 })).toMatchObject({
      tool_version: 1,
    });
    await b.tools.put(other.id, "runoff_depth", {
      ...RUNOFF,
      params: { ...RUNOFF.params, discharge: { unit: "ft**3/s" } },
    });
    const call = await a.calls.call(other.id, s.id, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
    expect(call).toMatchObject({ seq: 2, ok: true, tool_version: 2 });
    expect(call.args.discharge).toEqual({ value: 1250, unit: "ft^3/s" });
  });

  it("checks the next call against a datum registered through the other instance", async () => {
    const other = await a.teams.create("datums");
    await a.tools.put(other.id, "stage", { params: { level: { unit: "m", datum: "NAVD88" } }, returns: {} });
    const s = await a.sessions.create(other.id, { context: "q" });
    const level = { value: 10, unit: "m", datum: "GAGE:2" };
    const unknown = await a.calls.call(other.id, s.id, "stage", { level });
    expect(unknown.violations.map((v) => v.message)).toEqual([UNKNOWN_GAGE]);
    await b.datums.add(other.id, "GAGE:2");
    const known = await a.calls.call(other.id, s.id, "stage", { level });
    expect(known).toMatchObject({ seq: 2, ok: false });
    expect(known.violations.map((v) => v.message)).toEqual([UNCONVERTED_GAGE]);
  });

  it("stores a result once whichever instance stored the first", async () => {
    const sessionId = await warmSession();
    const c = await a.calls.call(teamId, sessionId, "read_discharge", { site: "1" });
    await a.calls.result(teamId, sessionId, c.call_id, 12);
    const conflict = { code: "conflict", message: `call '${c.call_id}' already has a result; a result is stored once` };
    await expect(a.calls.result(teamId, sessionId, c.call_id, 13)).rejects.toMatchObject(conflict);
    await expect(b.calls.result(teamId, sessionId, c.call_id, 13)).rejects.toMatchObject(conflict);
    const d = await a.calls.call(teamId, sessionId, "read_discharge", { site: "2" });
    await b.calls.result(teamId, sessionId, d.call_id, 12);
    await expect(a.calls.result(teamId, sessionId, d.call_id, 13)).rejects.toMatchObject({ code: "conflict" });
  });

  it("numbers 40 concurrent calls of one session split over both instances 1..40 without a gap or a repeat", async () => {
    const sessionId = await warmSession();
    const args = { discharge: "1 cfs", area: 1 };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).calls.call(teamId, sessionId, "runoff_depth", args)),
    );
    expect(answers.map((x) => x.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    expect(await a.sessions.get(teamId, sessionId)).toMatchObject({ callCount: 41 });
  });
});

// Group commit on PostgreSQL: one-statement calls and results of different sessions sent at once by one instance
// travel as ONE grouped statement. These tests pin that a group is exactly the writes its members would have made
// alone: a member whose session changed through another instance falls back to the locked path by itself, a member
// PostgreSQL refuses fails by itself and stores nothing, a group whose answer was lost fails whole and is never
// written twice, and two instances writing the same sessions at once keep every session numbered 1..n.
import type { Socket } from "node:net";
import type pg from "pg";
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
// A parameter name PostgreSQL cannot store in a text column (NUL): a call that sends it fails in the database.
const ODD = { params: { level: { unit: "m" }, "a\u0000b": { unit: "m" } }, returns: {} };
const NUL_ERROR = { code: "22021", message: 'invalid byte sequence for encoding "UTF8": 0x00' };

/**
 * Arms `pool` so that the next statement one of its clients runs commits on the server but its answer never reaches
 * the client: the socket is destroyed when the chunk ending in ReadyForQuery (sent after the commit) arrives.
 */
function loseNextAnswer(pool: pg.Pool): void {
  let armed = true;
  pool.on("acquire", (client) => {
    const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
    const emit = stream.emit;
    stream.emit = function (this: Socket, event: string | symbol, ...args: unknown[]) {
      const chunk = args[0];
      const ready =
        Buffer.isBuffer(chunk) &&
        chunk.length >= 6 &&
        chunk[chunk.length - 6] === 0x5a &&
        chunk.readInt32BE(chunk.length - 5) === 5;
      if (armed && event === "data" && ready) {
        armed = false;
        stream.destroy();
        return true;
      }
      return Reflect.apply(emit, this, [event, ...args]) as boolean;
    } as typeof emit;
  });
}

describe("group commit of one-statement writes on PostgreSQL", () => {
  let a: PgStore;
  let b: PgStore;
  let loneByA: { n: number };
  let groupedByA: { n: number };
  let teamId: string;
  const runoff = (discharge: unknown) => ({ discharge, area: 29000 });
  beforeAll(async () => {
    const url = await createPgDatabase();
    a = await openPgStore(url);
    b = await openPgStore(url);
    loneByA = countStatements(a.db.pool);
    groupedByA = countStatements(a.db.groupPool);
    teamId = await a.teams.ensureDefault();
    await a.tools.put(teamId, "read_discharge", READ);
    await a.tools.put(teamId, "runoff_depth", RUNOFF);
    await a.tools.put(teamId, "odd", ODD);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  /** `n` sessions opened through A, each with one call through A, so A remembers them. */
  async function warmSessions(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const s = await a.sessions.create(teamId, { context: "What is the runoff depth at 07374000?" });
      await a.calls.call(teamId, s.id, "runoff_depth", runoff("1 cfs"));
      ids.push(s.id);
    }
    return ids;
  }

  const seqsOf = async (sessionId: string) => (await b.calls.list(teamId, sessionId)).map((c) => c.seq);

  it("writes five calls of five remembered sessions sent at once in one grouped statement", async () => {
    const sessions = await warmSessions(5);
    const [lone, grouped] = [loneByA.n, groupedByA.n];
    const answers = await Promise.all(sessions.map((s) => a.calls.call(teamId, s, "runoff_depth", runoff("1250 cfs"))));
    expect(groupedByA.n - grouped).toBe(1);
    expect(loneByA.n - lone).toBe(0);
    expect(answers.map((x) => [x.seq, x.ok, x.outcome])).toEqual(sessions.map(() => [2, true, "converted"]));
    for (const s of sessions) {
      expect(await seqsOf(s)).toEqual([1, 2]);
      expect(await b.sessions.get(teamId, s)).toMatchObject({ callCount: 2, violationCount: 0 });
      const crossings = await b.crossings.ofSession(teamId, s);
      expect(crossings.map((c) => [c.seq, c.param, c.outcome])).toEqual([
        [1, "discharge", "converted"],
        [1, "area", "ok"],
        [2, "discharge", "converted"],
        [2, "area", "ok"],
      ]);
    }
  });

  it("falls back to the locked path for the one grouped session the other instance changed, and catches its carry-over", async () => {
    const [s1, s2, s3] = await warmSessions(3);
    const read = await a.calls.call(teamId, s2!, "read_discharge", { site: "07374000" });
    await b.calls.result(teamId, s2!, read.call_id, 1250);
    const grouped = groupedByA.n;
    const [x1, x2, x3] = await Promise.all([
      a.calls.call(teamId, s1!, "runoff_depth", runoff(1250)),
      a.calls.call(teamId, s2!, "runoff_depth", runoff(1250)),
      a.calls.call(teamId, s3!, "runoff_depth", runoff(1250)),
    ]);
    expect(groupedByA.n - grouped).toBe(1);
    expect([x1!.seq, x1!.ok, x3!.seq, x3!.ok]).toEqual([2, true, 2, true]);
    expect(x2).toMatchObject({ seq: 3, ok: false, would_block: true });
    expect(x2!.violations.map((v) => v.code)).toEqual(["unconverted_carry_over"]);
    expect(await seqsOf(s2!)).toEqual([1, 2, 3]);
    expect(await b.sessions.get(teamId, s2!)).toMatchObject({ callCount: 3, violationCount: 1, blockedCount: 1 });
  });

  it("fails only the grouped call PostgreSQL refuses, storing nothing of it, and stores the others", async () => {
    const [s1, s2, s3] = await warmSessions(3);
    // A first call of `odd` through A (refused for its missing argument, stored) lets A send the next one remembered.
    expect(await a.calls.call(teamId, s1!, "odd", { level: "1 m" })).toMatchObject({ seq: 2, outcome: "refused" });
    const grouped = groupedByA.n;
    const [bad, ok2, ok3] = await Promise.allSettled([
      a.calls.call(teamId, s1!, "odd", { level: "1 m", "a\u0000b": "2 m" }),
      a.calls.call(teamId, s2!, "runoff_depth", runoff("1250 cfs")),
      a.calls.call(teamId, s3!, "runoff_depth", runoff("1250 cfs")),
    ]);
    expect(groupedByA.n - grouped).toBe(1);
    expect(bad).toMatchObject({ status: "rejected", reason: NUL_ERROR });
    expect(ok2).toMatchObject({ status: "fulfilled", value: { seq: 2, ok: true } });
    expect(ok3).toMatchObject({ status: "fulfilled", value: { seq: 2, ok: true } });
    expect(await seqsOf(s1!)).toEqual([1, 2]);
    expect(await b.sessions.get(teamId, s1!)).toMatchObject({ callCount: 2, violationCount: 1 });
    expect((await b.crossings.ofSession(teamId, s1!)).map((c) => c.seq)).toEqual([1, 1, 2]);
    // The session is still served: the next call through A is number 3.
    expect(await a.calls.call(teamId, s1!, "runoff_depth", runoff("1 cfs"))).toMatchObject({ seq: 3 });
  });

  it("fails every call of a group whose answer was lost after it committed, and stores each of them once", async () => {
    const sessions = await warmSessions(3);
    const grouped = groupedByA.n;
    loseNextAnswer(a.db.groupPool);
    const settled = await Promise.allSettled(
      sessions.map((s) => a.calls.call(teamId, s, "runoff_depth", runoff("1250 cfs"))),
    );
    expect(groupedByA.n - grouped).toBe(1);
    expect(settled.map((x) => x.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect((settled[0] as PromiseRejectedResult).reason).toMatchObject({
      message: "Connection terminated unexpectedly",
    });
    // The group committed: each call is stored once (sent again, each would have been decided anew and stored twice).
    for (const s of sessions) {
      expect(await seqsOf(s)).toEqual([1, 2]);
      expect(await b.sessions.get(teamId, s)).toMatchObject({ callCount: 2 });
    }
    // The sessions are still served, by a new group connection: the next calls are number 3.
    const next = await Promise.all(sessions.map((s) => a.calls.call(teamId, s, "runoff_depth", runoff("1 cfs"))));
    expect(next.map((x) => x.seq)).toEqual([3, 3, 3]);
  });

  it("numbers every session 1..n when both instances write the same six sessions at once, round after round", async () => {
    const sessions = await warmSessions(6);
    for (let round = 0; round < 5; round += 1) {
      await Promise.all(
        [a, b].flatMap((store) => sessions.map((s) => store.calls.call(teamId, s, "runoff_depth", runoff("1 cfs")))),
      );
    }
    for (const s of sessions) {
      expect(await seqsOf(s)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
      expect(await a.sessions.get(teamId, s)).toMatchObject({ callCount: 11 });
      const crossings = await a.crossings.ofSession(teamId, s);
      expect(crossings.map((c) => c.seq)).toEqual(Array.from({ length: 11 }, (_, i) => [i + 1, i + 1]).flat());
    }
  });

  it("writes three results sent at once in one grouped statement, each output history for the next calls", async () => {
    const sessions = await warmSessions(3);
    const reads = await Promise.all(sessions.map((s) => a.calls.call(teamId, s, "read_discharge", { site: "1" })));
    const [lone, grouped] = [loneByA.n, groupedByA.n];
    const labelled = await Promise.all(sessions.map((s, i) => a.calls.result(teamId, s, reads[i]!.call_id, 1250)));
    expect(groupedByA.n - grouped).toBe(1);
    expect(loneByA.n - lone).toBe(0);
    expect(labelled.map((r) => [r.ok, r.result])).toEqual(sessions.map(() => [true, { value: 1250, unit: "cfs" }]));
    // Through A (its memory, from the group's answer) and through B (the database) alike.
    const viaA = await a.calls.call(teamId, sessions[0]!, "runoff_depth", runoff(1250));
    const viaB = await b.calls.call(teamId, sessions[1]!, "runoff_depth", runoff(1250));
    expect([viaA.seq, viaB.seq]).toEqual([3, 3]);
    expect([...viaA.violations, ...viaB.violations].map((v) => v.code)).toEqual([
      "unconverted_carry_over",
      "unconverted_carry_over",
    ]);
  });

  it("falls back for the one grouped result whose session the other instance changed, and stores each result once", async () => {
    const [s1, s2] = await warmSessions(2);
    const r1 = await a.calls.call(teamId, s1!, "read_discharge", { site: "1" });
    const r2 = await a.calls.call(teamId, s2!, "read_discharge", { site: "2" });
    await b.calls.call(teamId, s2!, "runoff_depth", runoff("1 cfs"));
    const grouped = groupedByA.n;
    await Promise.all([a.calls.result(teamId, s1!, r1.call_id, 12), a.calls.result(teamId, s2!, r2.call_id, 13)]);
    expect(groupedByA.n - grouped).toBe(1);
    const stored = (await b.calls.list(teamId, s2!)).map((c) => [c.seq, c.resultRaw]);
    expect(stored).toEqual([
      [1, null],
      [2, 13],
      [3, null],
    ]);
    await expect(a.calls.result(teamId, s2!, r2.call_id, 14)).rejects.toMatchObject({ code: "conflict" });
    await expect(a.calls.result(teamId, s1!, r1.call_id, 14)).rejects.toMatchObject({ code: "conflict" });
  });
});

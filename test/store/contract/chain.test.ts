// Store contract: the ledger chain holds on a clean ledger, and each edit made directly in the database is found and
// named by verify (the table, the row id, what differs).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainOf } from "../../../src/store/chain-access.js";
import { linkDigest, printRow } from "../../../src/store/common/chain.js";
import type { LedgerStore } from "../../../src/store/port.js";
import type { PgStore } from "../../../src/store/pg/store.js";
import type { SqliteStore } from "../../../src/store/sqlite/store.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifySettings } from "../../../src/store/sqlite/chain-verify.js";
import { openSqliteStore } from "../../../src/store/sqlite/store.js";
import { enginesUnderTest, freshTeam, settableClock, teamWithCalls } from "./engines.js";
import { SLICE } from "../../../src/store/common/in-slices.js";

// A SQLite file store verifies every team on two threads here, its worker taking every unit of the rows, so each
// verdict below is also the two-thread verify's (a large team's path; ":memory:" always verifies on one).
verifySettings.besideFrom = 0;
verifySettings.workerFirst = true;

const ENGINES = [
  ...(await enginesUnderTest()).map((e) => ({ ...e, label: e.name as string })),
  {
    name: "sqlite" as const,
    label: "sqlite file, verified on two threads,",
    open: async (clock: ReturnType<typeof settableClock>) =>
      openSqliteStore(join(mkdtempSync(join(tmpdir(), "chain-two-threads-")), "ledger.db"), { clock }),
  },
];

const READ = { params: { site: {} }, returns: { unit: "cfs" } };
const RUNOFF = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };

/** Runs SQL directly in the database, as someone with the file or the server would; `?` placeholders on both. */
async function raw(store: LedgerStore, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (store.engine === "sqlite") {
    const st = (store as unknown as SqliteStore).db.sqlite.prepare(sql);
    return st.reader ? (st.all(...params) as Record<string, unknown>[]) : (st.run(...params), []);
  }
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  return (await (store as unknown as PgStore).db.pool.query(text, params)).rows;
}

describe.each(ENGINES)("$label store: the ledger chain", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-02T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  /** A team whose ledger has two tools, a session, a converted reading, a refused call, and a demoted claim. */
  async function ledger() {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", READ);
    await store.tools.put(teamId, "runoff_depth", RUNOFF);
    const s = await store.sessions.create(teamId, { context: "What is the runoff depth at 07374000?" });
    const read = await store.calls.call(teamId, s.id, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, s.id, read.call_id, "1250 cfs");
    const refused = await store.calls.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: "1520 km**2" });
    expect(refused.ok).toBe(false);
    await store.claims.create(teamId, { id: "A", text: "Runoff is 2.08 mm/day", status: "live" });
    await store.claims.demote(teamId, "A", { reason: "carried a cfs value as m3/s", demoted_by: "review" });
    return { teamId, sessionId: s.id, readId: read.call_id, refusedId: refused.call_id };
  }

  it("verifies a clean ledger, counting one entry per appended row, and its head ends where the walk ended", async () => {
    const { teamId } = await ledger();
    const chain = await chainOf(store);
    const entries = await raw(store, "SELECT tbl FROM ledger_entries WHERE team_id = ? ORDER BY seq", [teamId]);
    expect(entries.map((e) => e.tbl)).toEqual([
      "tools",
      "tools",
      "sessions",
      "calls",
      "crossings",
      "results",
      "crossings",
      "calls",
      "crossings",
      "crossings",
      "claims",
      "claim_events",
      "claim_events",
    ]);
    const verdict = await chain.verify(teamId);
    const head = await chain.head(teamId);
    expect(verdict).toEqual({ ok: true, count: 13, digest: head!.digest });
    expect(head!.seq).toBe(13);
  });

  it("keeps one unbroken chain for calls and results of six sessions sent at once (group-committed on PostgreSQL)", async () => {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", READ);
    const sessions = await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.sessions.create(teamId, { context: `site ${i}` })),
    );
    const calls = await Promise.all(
      sessions.map((s) => store.calls.call(teamId, s.id, "read_discharge", { site: "07374000" })),
    );
    await Promise.all(calls.map((c, i) => store.calls.result(teamId, sessions[i]!.id, c.call_id, `${1000 + i} cfs`)));
    const chain = await chainOf(store);
    // A tool, six sessions, and per session a call, its param crossing, a result and its return crossing.
    expect(await chain.verify(teamId)).toEqual({ ok: true, count: 31, digest: (await chain.head(teamId))!.digest });
    const order = await raw(
      store,
      "SELECT tbl, row_id FROM ledger_entries WHERE team_id = ? AND tbl = 'calls' ORDER BY seq",
      [teamId],
    );
    expect(order.map((e) => e.row_id).sort()).toEqual(calls.map((c) => c.call_id).sort());
  });

  it("verifies the team as of one moment while its calls and results are being written", async () => {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", READ);
    const s = await store.sessions.create(teamId, { context: "written while verified" });
    const chain = await chainOf(store);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 60; i += 1) {
        const c = await store.calls.call(teamId, s.id, "read_discharge", { site: "07374000" });
        await store.calls.result(teamId, s.id, c.call_id, `${1000 + i} cfs`);
      }
      writing = false;
    })();
    // On PostgreSQL the writes commit between a verify's queries; each verdict must still be of one snapshot.
    const verdicts: unknown[] = [];
    while (writing) {
      const v = await chain.verify(teamId);
      if (!v.ok) verdicts.push(v.first_bad);
      // The writer's group commit runs on a later turn of the event loop.
      await new Promise((r) => setImmediate(r));
    }
    await writer;
    expect(verdicts).toEqual([]);
    // A tool, the session, and 60 calls of four entries each (the call, its crossing, the result, its crossing).
    expect((await chain.verify(teamId)).count).toBe(242);
  });

  it("chains a reading's qualifier flags as stored, and a re-read that revises only its flags, so both verify", async () => {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", {
      params: { site: {} },
      returns: { discharge: { unit: "ft^3/s" } },
    });
    const reading = (flags: string[]) => ({
      discharge: {
        value: 412000,
        unit: "ft^3/s",
        quality: "unverified",
        source: "usgs:07374000:00060:s1",
        observed_at: "2026-03-14T15:15:00Z",
        flags,
      },
    });
    for (const flags of [["Bkw"], ["Ice"]]) {
      const s = await store.sessions.create(teamId, { context: "Baton Rouge" });
      const c = await store.calls.call(teamId, s.id, "read_discharge", { site: "07374000" });
      await store.calls.result(teamId, s.id, c.call_id, reading(flags));
    }
    const stored = await raw(store, "SELECT flags FROM crossings WHERE team_id = ? AND flags IS NOT NULL ORDER BY id", [
      teamId,
    ]);
    expect(stored.map((r) => r.flags)).toEqual(['["bkw"]', '["ice"]']);
    const chain = await chainOf(store);
    const verdict = await chain.verify(teamId);
    expect(verdict.ok).toBe(true);
    await raw(store, "UPDATE crossings SET flags = ? WHERE team_id = ? AND flags = ?", ['["bkw"]', teamId, '["ice"]']);
    const tampered = await chain.verify(teamId);
    expect(tampered.ok).toBe(false);
  });

  it("names a crossing whose magnitude was changed, and the column", async () => {
    const { teamId } = await ledger();
    const [c] = await raw(store, "SELECT id FROM crossings WHERE team_id = ? AND direction = 'return'", [teamId]);
    await raw(store, "UPDATE crossings SET value = 1300 WHERE id = ?", [c!.id]);
    const verdict = await (await chainOf(store)).verify(teamId);
    expect(verdict).toMatchObject({
      ok: false,
      first_bad: {
        table: "crossings",
        id: String(c!.id),
        reason: "changed column value: the row differs from the row chained",
      },
    });
  });

  it("walks a chain longer than one slice of the verify and names a crossing changed past the first slice", async () => {
    // 260 calls with results: about 1,300 entries, more than the SLICE hashed between two turns of the loop.
    const teamId = await teamWithCalls(store, 1, 260);
    expect(await (await chainOf(store)).verify(teamId)).toMatchObject({ ok: true });
    const [c] = await raw(
      store,
      "SELECT id FROM crossings WHERE team_id = ? AND direction = 'return' ORDER BY id DESC LIMIT 1",
      [teamId],
    );
    await raw(store, "UPDATE crossings SET value = 1 WHERE id = ?", [c!.id]);
    const verdict = await (await chainOf(store)).verify(teamId);
    expect(verdict).toMatchObject({ ok: false, first_bad: { table: "crossings", id: String(c!.id) } });
    expect(verdict.count).toBeGreaterThan(SLICE);
  });

  it("names a crossing changed in the first page of a long chain, read while the next page is read ahead", async () => {
    const teamId = await teamWithCalls(store, 1, 260);
    const [c] = await raw(
      store,
      "SELECT id FROM crossings WHERE team_id = ? AND direction = 'return' ORDER BY id LIMIT 1",
      [teamId],
    );
    await raw(store, "UPDATE crossings SET value = 1 WHERE id = ?", [c!.id]);
    const expected = { ok: false, first_bad: { table: "crossings", id: String(c!.id) } };
    // Twice: the first verify gives its connection back only after the read ahead, so the second reads as the first.
    expect(await (await chainOf(store)).verify(teamId)).toMatchObject(expected);
    expect(await (await chainOf(store)).verify(teamId)).toMatchObject(expected);
  });

  it("names a refused call that was deleted", async () => {
    const { teamId, refusedId } = await ledger();
    await raw(store, "DELETE FROM crossings WHERE call_id = ?", [refusedId]);
    await raw(store, "DELETE FROM calls WHERE id = ?", [refusedId]);
    expect(await (await chainOf(store)).verify(teamId)).toEqual({
      ok: false,
      count: 7,
      first_bad: {
        table: "calls",
        id: refusedId,
        seq: 8,
        reason: `row deleted: calls ${refusedId} is no longer in the database (if it was archived, pass --archive FILE)`,
      },
    });
  });

  it("names a demoted claim whose status was set back to live", async () => {
    const { teamId } = await ledger();
    const [ev] = await raw(store, "SELECT id FROM claim_events WHERE team_id = ? AND kind = 'demoted'", [teamId]);
    await raw(store, "UPDATE claim_events SET status = 'live' WHERE id = ?", [ev!.id]);
    expect(await (await chainOf(store)).verify(teamId)).toEqual({
      ok: false,
      count: 12,
      first_bad: {
        table: "claim_events",
        id: String(ev!.id),
        seq: 13,
        reason: "changed column status: the row differs from the row chained",
      },
    });
  });

  it("names a row inserted with a forged digest, and a row inserted outside the chain", async () => {
    const { teamId, sessionId, readId } = await ledger();
    const chain = await chainOf(store);
    const head = (await chain.head(teamId))!;
    await raw(
      store,
      `INSERT INTO crossings (team_id, session_id, call_id, seq, tool, direction, param, raw, value, unit, outcome, created_at, is_series)
       VALUES (?, ?, ?, 1, 'read_discharge', 'return', 'return', '"900 cfs"', 900, 'cfs', 'ok', '2026-03-02T09:00:00.000Z', ?)`,
      [teamId, sessionId, readId, store.engine === "sqlite" ? 0 : false],
    );
    const [row] = await raw(store, "SELECT max(id) AS id FROM crossings WHERE team_id = ?", [teamId]);
    const id = String(row!.id);
    expect(await chain.verify(teamId)).toEqual({
      ok: false,
      count: 13,
      first_bad: {
        table: "crossings",
        id,
        seq: 0,
        reason: `not in the chain: crossings ${id} was written outside the ledger`,
      },
    });
    const { rowDigest, fp } = printRow("crossings", [
      Number(id),
      teamId,
      sessionId,
      readId,
      1,
      "read_discharge",
      "return",
      "return",
      '"900 cfs"',
      900,
      "cfs",
      null,
      null,
      false,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      "ok",
      null,
      "2026-03-02T09:00:00.000Z",
    ]);
    expect(linkDigest(head.digest, rowDigest)).not.toBe("f".repeat(64));
    await raw(
      store,
      "INSERT INTO ledger_entries (team_id, seq, tbl, row_id, row_digest, prev, digest, fp, at) VALUES (?, ?, 'crossings', ?, ?, ?, ?, ?, ?)",
      [teamId, head.seq + 1, id, rowDigest, head.digest, "f".repeat(64), fp, "2026-03-02T09:00:00.000Z"],
    );
    expect(await chain.verify(teamId)).toEqual({
      ok: false,
      count: 13,
      first_bad: {
        table: "crossings",
        id,
        seq: 14,
        reason: "forged digest: the entry's digest is not the digest of its row and the entry before it",
      },
    });
  });

  it("names two entries swapped in the chain as out of order", async () => {
    const { teamId } = await ledger();
    const at = (seq: number) =>
      raw(store, "SELECT tbl, row_id FROM ledger_entries WHERE team_id = ? AND seq = ?", [teamId, seq]);
    const [fourth] = await at(4);
    await raw(store, "UPDATE ledger_entries SET seq = -1 WHERE team_id = ? AND seq = 4", [teamId]);
    await raw(store, "UPDATE ledger_entries SET seq = 4 WHERE team_id = ? AND seq = 5", [teamId]);
    await raw(store, "UPDATE ledger_entries SET seq = 5 WHERE team_id = ? AND seq = -1", [teamId]);
    const [now4] = await at(4);
    expect(now4!.row_id).not.toBe(fourth!.row_id);
    expect(await (await chainOf(store)).verify(teamId)).toEqual({
      ok: false,
      count: 3,
      first_bad: {
        table: String(now4!.tbl),
        id: String(now4!.row_id),
        seq: 4,
        reason: "entry out of order: it was chained after a different entry than the one before it",
      },
    });
  });

  it("names entries removed from the end of the chain against the head", async () => {
    const { teamId } = await ledger();
    await raw(store, "DELETE FROM claim_events WHERE team_id = ? AND kind = 'demoted'", [teamId]);
    await raw(store, "DELETE FROM ledger_entries WHERE team_id = ? AND seq = 13", [teamId]);
    expect(await (await chainOf(store)).verify(teamId)).toMatchObject({
      ok: false,
      count: 12,
      first_bad: {
        table: "ledger_heads",
        reason: "missing entry: the chain ends at position 12 but its head is at position 13",
      },
    });
  });
});

// A group commit holds its chain entries back and writes them once, just before it commits (src/store/sqlite/chain.ts):
// they must land in the order the rows were written, vanish with a batch that rolls back, and survive the re-run of
// a batch whose job threw after writing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fixedClock } from "../../../src/clock.js";
import { WriteBatcher } from "../../../src/store/sqlite/batch.js";
import { sqliteChain } from "../../../src/store/sqlite/chain.js";
import { type LedgerDb, openDb } from "../../../src/store/sqlite/db.js";
import { Ledger } from "../../../src/store/sqlite/ledger.js";
import { createTeam } from "../../../src/store/sqlite/teams.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setUp(): { store: LedgerDb; ledger: Ledger; team: string } {
  const dir = mkdtempSync(join(tmpdir(), "chain-group-"));
  dirs.push(dir);
  const store = openDb(join(dir, "ledger.db"));
  const ledger = new Ledger(store, fixedClock("2026-03-02T09:00:00Z"));
  const team = createTeam(store.db, "hydrology").id;
  ledger.tools.put(team, "read_discharge", { params: { site: {} }, returns: { unit: "cfs" } }, ledger.datums(team));
  return { store, ledger, team };
}

const entries = (store: LedgerDb, team: string, tbl: string) =>
  store.sqlite
    .prepare("SELECT row_id FROM ledger_entries WHERE team_id = ? AND tbl = ? ORDER BY seq")
    .pluck()
    .all(team, tbl) as string[];

describe("the chain under group commit", () => {
  it("chains a batch of 40 calls and results in the order their rows were written, and verifies", async () => {
    const { store, ledger, team } = setUp();
    const sessions = [0, 1, 2, 3].map((i) => ledger.sessions.create(team, { context: `s${i}` }, new Date()).id);
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const s = sessions[i % 4]!;
        const c = await ledger.callBatched(team, s, "read_discharge", { site: "07374000" });
        await ledger.resultBatched(team, s, c.call_id, `${1000 + i} cfs`);
      }),
    );
    const calls = store.sqlite.prepare("SELECT id FROM calls WHERE team_id = ? ORDER BY rowid").pluck().all(team);
    expect(entries(store, team, "calls")).toEqual(calls);
    const crossings = store.sqlite
      .prepare("SELECT CAST(id AS TEXT) FROM crossings WHERE team_id = ? ORDER BY id")
      .pluck()
      .all(team);
    expect(entries(store, team, "crossings")).toEqual(crossings);
    expect(entries(store, team, "results")).toHaveLength(40);
    // 4 sessions, the tool, then per call: the call, its argument, its result and the result's crossing.
    expect(sqliteChain(store.sqlite).verify(team)).toMatchObject({ ok: true, count: 4 + 1 + 40 * 4 });
    expect(sqliteChain(store.sqlite).head(team)).toMatchObject({ seq: 165 });
  });

  it("writes no entry for a batch that rolls back, and chains the jobs kept when one threw after writing", async () => {
    const { store, ledger, team } = setUp();
    const s = ledger.sessions.create(team, { context: "one" }, new Date()).id;
    const batcher = new WriteBatcher(store.sqlite);
    const kept = batcher.run(() => ledger.call(team, s, "read_discharge", { site: "a" }).call_id);
    const thrown = batcher.run(() => {
      ledger.call(team, s, "read_discharge", { site: "b" });
      throw new Error("failed after writing its call");
    });
    const after = batcher.run(() => ledger.call(team, s, "read_discharge", { site: "c" }).call_id);
    await expect(thrown).rejects.toThrow("failed after writing its call");
    const ids = [await kept, await after];
    expect(store.sqlite.prepare("SELECT id FROM calls WHERE team_id = ? ORDER BY rowid").pluck().all(team)).toEqual(
      ids,
    );
    expect(entries(store, team, "calls")).toEqual(ids);
    expect(sqliteChain(store.sqlite).verify(team)).toMatchObject({ ok: true, count: 1 + 1 + 2 * 2 });

    // A job the database refuses leaves neither a row nor an entry behind.
    const before = sqliteChain(store.sqlite).head(team)!;
    store.sqlite.exec(
      "CREATE TRIGGER no_calls BEFORE INSERT ON calls WHEN NEW.args_raw LIKE '%\"d\"%' BEGIN SELECT RAISE(ABORT, 'refused'); END",
    );
    const d = batcher.run(() => ledger.call(team, s, "read_discharge", { site: "d" }));
    await expect(d).rejects.toThrow("refused");
    expect(sqliteChain(store.sqlite).head(team)).toEqual(before);
    expect(sqliteChain(store.sqlite).verify(team)).toMatchObject({ ok: true, count: 6 });
  });
});

describe("entries written before migration 0022_chain_bytes (hex text)", () => {
  it("verify alike as bytes, and new entries chain on after them", async () => {
    const { store, ledger, team } = setUp();
    const s = ledger.sessions.create(team, { context: "before" }, new Date()).id;
    const c = await ledger.callBatched(team, s, "read_discharge", { site: "a" });
    await ledger.resultBatched(team, s, c.call_id, "1250 cfs");
    const asBytes = sqliteChain(store.sqlite).verify(team);
    expect(asBytes).toMatchObject({ ok: true, count: 6 });
    // What 0021 wrote: lowercase hex text in the same columns, which the 0022 copy keeps as text.
    store.sqlite.exec(
      "UPDATE ledger_entries SET row_digest = lower(hex(row_digest)), prev = lower(hex(prev)), digest = lower(hex(digest)), fp = lower(hex(fp))",
    );
    expect(store.sqlite.prepare("SELECT DISTINCT typeof(digest) FROM ledger_entries").pluck().all()).toEqual(["text"]);
    expect(sqliteChain(store.sqlite).verify(team)).toEqual(asBytes);
    const d = await ledger.callBatched(team, s, "read_discharge", { site: "b" });
    await ledger.resultBatched(team, s, d.call_id, "1300 cfs");
    expect(store.sqlite.prepare("SELECT typeof(digest) FROM ledger_entries ORDER BY seq").pluck().all()).toEqual([
      ...Array(6).fill("text"),
      ...Array(4).fill("blob"),
    ]);
    expect(sqliteChain(store.sqlite).verify(team)).toMatchObject({ ok: true, count: 10 });
    store.sqlite.prepare("UPDATE crossings SET value = 1251 WHERE team_id = ? AND value = 1250").run(team);
    expect(sqliteChain(store.sqlite).verify(team)).toMatchObject({
      ok: false,
      first_bad: { table: "crossings", seq: 6, reason: "changed column value: the row differs from the row chained" },
    });
  });
});

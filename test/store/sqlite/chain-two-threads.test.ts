// The two-thread verify of a large team on SQLite: a worker thread hashes units of the team's rows while the entries
// are walked, and each row joins its entry by digest. The worker's rows are used only when it read the same head;
// otherwise, or when it gives no answer, the units it took are read again, so the verdict is always the walk's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainOf } from "../../../src/store/chain-access.js";
import type { LedgerStore } from "../../../src/store/port.js";
import { sqliteChain } from "../../../src/store/sqlite/chain.js";
import { claimUnits, type RowsUnit } from "../../../src/store/sqlite/chain-rows.js";
import { joinStats, type RowsRead, verifySettings } from "../../../src/store/sqlite/chain-verify.js";
import { openSqliteStore, type SqliteStore } from "../../../src/store/sqlite/store.js";
import { settableClock, teamWithCalls } from "../contract/engines.js";

describe("SQLite store: verify on two threads", () => {
  let dir: string;
  let store: LedgerStore;
  const sql = () => (store as unknown as SqliteStore).db.sqlite;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chain-two-threads-"));
    store = await openSqliteStore(join(dir, "ledger.db"), { clock: settableClock("2026-03-02T09:00:00.000Z") });
    verifySettings.besideFrom = 0;
  });
  afterAll(async () => {
    verifySettings.besideFrom = 50_000;
    verifySettings.workerFirst = false;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A team with a tool, 3 sessions and 2 answered calls in each: 28 entries. */
  const ledger = (): Promise<string> => teamWithCalls(store, 3, 2);

  it("hashes the rows on the worker and joins every entry of an intact ledger to its row by digest", async () => {
    const teamId = await ledger();
    verifySettings.workerFirst = true;
    const before = { ...joinStats };
    const verdict = await (await chainOf(store)).verify(teamId);
    verifySettings.workerFirst = false;
    expect(verdict).toEqual({ ok: true, count: 28, digest: (await (await chainOf(store)).head(teamId))!.digest });
    expect(joinStats.workerUnits).toBeGreaterThan(before.workerUnits);
    expect(joinStats.byKey).toBe(before.byKey);
  });

  it("names a changed crossing on two threads as on one, the worker's rows included", async () => {
    const teamId = await ledger();
    const [x] = sql()
      .prepare("SELECT id FROM crossings WHERE team_id = ? AND direction = 'return' ORDER BY id LIMIT 1")
      .all(teamId) as { id: number }[];
    sql().prepare("UPDATE crossings SET value = 12.5 WHERE id = ?").run(x!.id);
    const one = sqliteChain(sql()).verify(teamId);
    verifySettings.workerFirst = true;
    const two = await (await chainOf(store)).verify(teamId);
    verifySettings.workerFirst = false;
    expect(one.ok).toBe(false);
    expect(two).toEqual(one);
    expect(two.ok ? null : two.first_bad).toMatchObject({
      table: "crossings",
      id: String(x!.id),
      reason: "changed column value: the row differs from the row chained",
    });
  });

  it("reads again the units a worker took when the worker read another head, and never uses its rows", async () => {
    const teamId = await ledger();
    const before = { ...joinStats };
    // A reader that takes every unit and answers rows that join nothing, as of a head one entry further on.
    const other = async (units: RowsUnit[], claim: Int32Array): Promise<RowsRead> => {
      const parts = claimUnits(sql(), teamId, units, claim, false);
      for (const p of parts) p.rows.digests.fill(7);
      const head = sqliteChain(sql()).head(teamId)!;
      return { head: { seq: head.seq + 1, digest: head.digest }, parts };
    };
    const verdict = await sqliteChain(sql()).verifyBesideNow(teamId, other);
    expect(verdict).toEqual(sqliteChain(sql()).verify(teamId));
    expect(verdict.ok).toBe(true);
    expect(joinStats.workerUnits).toBe(before.workerUnits);
    expect(joinStats.byKey).toBe(before.byKey);
  });

  it("reads again the units a worker took when the worker gives no answer", async () => {
    const teamId = await ledger();
    const before = { ...joinStats };
    const failing = async (units: RowsUnit[], claim: Int32Array): Promise<RowsRead> => {
      claimUnits(sql(), teamId, units, claim, false);
      return null;
    };
    const verdict = await sqliteChain(sql()).verifyBesideNow(teamId, failing);
    expect(verdict).toEqual({ ok: true, count: 28, digest: sqliteChain(sql()).head(teamId)!.digest });
    expect(joinStats.byKey).toBe(before.byKey);
  });

  it("names a row written outside the chain on two threads as on one", async () => {
    const teamId = await ledger();
    const [c] = sql().prepare("SELECT * FROM calls WHERE team_id = ? ORDER BY rowid LIMIT 1").all(teamId) as Record<
      string,
      unknown
    >[];
    const stray = { ...c, id: "zz-outside", seq: 999 };
    const cols = Object.keys(stray);
    sql()
      .prepare(`INSERT INTO calls (${cols.join(", ")}) VALUES (${cols.map((k) => `@${k}`).join(", ")})`)
      .run(stray);
    verifySettings.workerFirst = true;
    const two = await (await chainOf(store)).verify(teamId);
    verifySettings.workerFirst = false;
    expect(two).toEqual(sqliteChain(sql()).verify(teamId));
    expect(two.ok ? null : two.first_bad).toEqual({
      table: "calls",
      id: "zz-outside",
      seq: 0,
      reason: "not in the chain: calls zz-outside was written outside the ledger",
    });
  });
});

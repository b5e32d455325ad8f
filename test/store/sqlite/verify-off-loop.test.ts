// A serving store's verify runs on the verify worker, off the event loop: the loop turns while a team is verified,
// and the verdict (intact, a changed row named, a window, an archive) is the one the loop gives.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/api/app.js";
import { defaultConfig } from "../../../src/config.js";
import { chainOf } from "../../../src/store/chain-access.js";
import type { ChainVerdict } from "../../../src/store/common/chain-verify.js";
import { sqliteLedgerChain } from "../../../src/store/sqlite/chain-port.js";
import { verifySettings } from "../../../src/store/sqlite/chain-verify.js";
import { stopVerifyWorker, verifyPoolStats } from "../../../src/store/sqlite/verify-pool.js";
import { openSqliteStore, type SqliteStore } from "../../../src/store/sqlite/store.js";
import { settableClock, teamWithCalls } from "../contract/engines.js";

const READ = { params: { site: {} }, returns: { unit: "cfs" } };

describe("SQLite store: verify off the event loop while serving", () => {
  let dir: string;
  let store: SqliteStore;
  const sql = () => store.db.sqlite;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "verify-off-loop-"));
    store = openSqliteStore(join(dir, "ledger.db"), { clock: settableClock("2026-03-02T09:00:00.000Z") });
    store.startBackground();
  });
  afterAll(async () => {
    await stopVerifyWorker();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A team with a tool, 2 sessions and 3 answered calls in each: 27 entries. */
  const ledger = (): Promise<string> => teamWithCalls(store, 2, 3);

  /** The verdict the loop gives for the same team (the same store, verified in this thread). */
  const onLoop = (teamId: string, options: { since?: string; archive?: string } = {}): Promise<ChainVerdict> =>
    sqliteLedgerChain(sql()).verify(teamId, options);

  it("answers from the worker thread: a turn of the loop scheduled after the request runs before the verdict", async () => {
    const teamId = await ledger();
    const answered = verifyPoolStats.answered;
    const chain = await chainOf(store);
    let turned = false;
    const pending = chain.verify(teamId);
    setImmediate(() => {
      turned = true;
    });
    const verdict = await pending;
    expect(turned).toBe(true);
    expect(verifyPoolStats.answered).toBe(answered + 1);
    expect(verdict).toEqual({ ok: true, count: 27, digest: (await chain.head(teamId))!.digest });
    expect(verdict).toEqual(await onLoop(teamId));
  });

  it("verifies on the loop in a process that does not serve: the verdict is there before the loop turns", async () => {
    const teamId = await ledger();
    const chain = sqliteLedgerChain(sql());
    let turned = false;
    const pending = chain.verify(teamId);
    setImmediate(() => {
      turned = true;
    });
    expect((await pending).ok).toBe(true);
    expect(turned).toBe(false);
  });

  it("names a changed crossing from the worker exactly as the loop does", async () => {
    const teamId = await ledger();
    const x = sql()
      .prepare("SELECT id FROM crossings WHERE team_id = ? AND direction = 'return' ORDER BY id LIMIT 1")
      .get(teamId) as { id: number };
    sql().prepare("UPDATE crossings SET value = 12.5 WHERE id = ?").run(x.id);
    const answered = verifyPoolStats.answered;
    const verdict = await (await chainOf(store)).verify(teamId);
    expect(verifyPoolStats.answered).toBe(answered + 1);
    expect(verdict.ok ? null : verdict.first_bad).toEqual({
      table: "crossings",
      id: String(x.id),
      seq: expect.any(Number),
      reason: "changed column value: the row differs from the row chained",
    });
    expect(verdict).toEqual(await onLoop(teamId));
    // As a large team is verified: on two threads inside the worker (its own rows worker hashes the rows).
    verifySettings.besideFrom = 0;
    try {
      expect(await (await chainOf(store)).verify(teamId)).toEqual(verdict);
    } finally {
      verifySettings.besideFrom = 50_000;
    }
    expect(verifyPoolStats.answered).toBe(answered + 2);
  });

  it("verifies a window from --since and a chain across an archive file as the loop does", async () => {
    const teamId = await ledger();
    const since = (
      sql().prepare("SELECT at FROM ledger_entries WHERE team_id = ? AND seq = 10").get(teamId) as {
        at: string;
      }
    ).at;
    const chain = await chainOf(store);
    const answered = verifyPoolStats.answered;
    expect(await chain.verify(teamId, { since })).toEqual(await onLoop(teamId, { since }));
    // A copy of the file stands for the archive: a crossing deleted from the live file is read from the copy.
    sql().pragma("wal_checkpoint(TRUNCATE)");
    const archive = join(dir, `archive-${teamId}.db`);
    copyFileSync(join(dir, "ledger.db"), archive);
    sql().prepare("DELETE FROM crossings WHERE id = (SELECT min(id) FROM crossings WHERE team_id = ?)").run(teamId);
    const withArchive = await chain.verify(teamId, { archive });
    expect(withArchive).toEqual({ ok: true, count: 27, digest: (await chain.head(teamId))!.digest });
    const without = await chain.verify(teamId);
    expect(without.ok ? null : without.first_bad.reason).toMatch(
      /^row deleted: crossings \d+ is no longer in the database/,
    );
    expect(without).toEqual(await onLoop(teamId));
    expect(verifyPoolStats.answered).toBe(answered + 3);
  });

  it("answers a missing archive file with the loop's own error", async () => {
    const teamId = await ledger();
    const archive = join(dir, "no-such-archive.db");
    const loop = await onLoop(teamId, { archive }).catch((e: Error) => e);
    const served = await (await chainOf(store)).verify(teamId, { archive }).catch((e: Error) => e);
    expect(loop).toBeInstanceOf(Error);
    expect(served).toBeInstanceOf(loop.constructor as typeof Error);
    expect((served as Error).message).toBe((loop as Error).message);
  });

  it("verifies on the loop when the worker is stopped mid-job, with the same verdict", async () => {
    const teamId = await ledger();
    const chain = await chainOf(store);
    const pending = chain.verify(teamId);
    await stopVerifyWorker();
    expect(await pending).toEqual(await onLoop(teamId));
    // The next verify starts a worker again.
    const answered = verifyPoolStats.answered;
    expect((await chain.verify(teamId)).ok).toBe(true);
    expect(verifyPoolStats.answered).toBe(answered + 1);
  });

  it("answers GET /v1/ledger/verify from the worker with the team's verdict", async () => {
    const { teamId } = await store.seed();
    const token = "test-admin-token-0123456789";
    await store.teams.ensureAdminToken(token);
    const app = createApp({ store, config: defaultConfig() });
    const session = await store.sessions.create(teamId, { context: "discharge at 07374000" });
    await store.tools.put(teamId, "read_discharge", READ);
    const call = await store.calls.call(teamId, session.id, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, session.id, call.call_id, "1250 cfs");
    const count = (await (await chainOf(store)).head(teamId))!.seq;
    const answered = verifyPoolStats.answered;
    const res = await app.request("/v1/ledger/verify", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, count });
    expect(verifyPoolStats.answered).toBe(answered + 1);
  });
});

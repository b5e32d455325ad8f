// The proxy's two ledgers: the local database and the HTTP service (here the real app, reached without a socket).
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { ToolDeclarationInput } from "../../src/guard/declaration.js";
import { LedgerHttpError } from "../../src/ledger-http-error.js";
import { LocalLedger, RemoteLedger, type ProxyLedger } from "../../src/mcp/ledger-client.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { createTestApp, createTestDb } from "../helpers/db.js";
import { type SqliteStore, sqliteStore } from "../../src/store/sqlite/store.js";
import { BACKSTOP_PAGES } from "../../src/store/sqlite/checkpointer.js";
import { WAL_AUTOCHECKPOINT_PAGES } from "../../src/store/sqlite/db.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const READ: ToolDeclarationInput = { params: { station: {} }, returns: { unit: "cfs" } };
const RUNOFF: ToolDeclarationInput = {
  params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
  returns: { unit: "mm/day" },
};

/** The proxy's sequence: declare, open a session, read 1250 cfs, carry it over bare, then convert it. */
async function carryOverSequence(ledger: ProxyLedger) {
  const declared = [
    await ledger.declare("mcp_read_discharge", READ),
    await ledger.declare("mcp_read_discharge", READ),
    await ledger.declare("mcp_runoff_depth", RUNOFF),
  ];
  const session = await ledger.openSession({ source: "mcp-proxy", upstream: "node demo/server.ts" });
  const read = await ledger.call(session, "mcp_read_discharge", { station: "07374000" });
  const labelled = await ledger.result(session, read.call_id, 1250);
  const carried = await ledger.call(session, "mcp_runoff_depth", { discharge: 1250, area: 29000 });
  const converted = await ledger.call(session, "mcp_runoff_depth", { discharge: "1250 cfs", area: 29000 });
  const strip = <T extends { call_id: string }>({ call_id: _id, ...rest }: T): Omit<T, "call_id"> => rest;
  return { declared, labelled, carried: strip(carried), converted: strip(converted) };
}

describe("proxy ledgers", () => {
  it("the remote ledger and the local one give the same answers to the same sequence", async () => {
    const t = createTestApp();
    const remote = new RemoteLedger("http://ledger.test/", t.adminToken, (url, init) =>
      Promise.resolve(t.app.request(url, init)),
    );
    const store = createTestDb();
    const local = new LocalLedger(sqliteStore(store, { clock: systemClock }), ensureDefaultTeam(store.db), systemClock);
    const [r, l] = [await carryOverSequence(remote), await carryOverSequence(local)];
    expect(r.declared).toEqual([{ version: 1 }, { version: 1 }, { version: 1 }]);
    expect(r.labelled).toMatchObject({ ok: true, result: { value: 1250, unit: "cfs" }, violations: [] });
    expect(r.carried).toMatchObject({ ok: false, guarded: true, args: {} });
    expect(r.carried.violations.map((v) => v.code)).toEqual(["unconverted_carry_over"]);
    expect(r.converted).toMatchObject({
      ok: true,
      args: { discharge: { value: 35.39605824, unit: "m^3/s" }, area: { value: 29000, unit: "km^2" } },
    });
    expect(l).toEqual(JSON.parse(JSON.stringify(r)) as typeof r);
    store.close();
  });

  it("names the route, the status and the service's error when the remote ledger refuses", async () => {
    const t = createTestApp();
    const remote = new RemoteLedger("http://ledger.test", "not-a-token", (url, init) =>
      Promise.resolve(t.app.request(url, init)),
    );
    const e = await remote.openSession({ source: "mcp-proxy" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LedgerHttpError);
    expect((e as LedgerHttpError).status).toBe(401);
    expect((e as Error).message).toMatch(/^POST http:\/\/ledger\.test\/v1\/sessions answered 401 \(unauthenticated: /);
  });

  it("names the route when the remote ledger cannot be reached", async () => {
    const remote = new RemoteLedger("http://127.0.0.1:9", "token", () =>
      Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:9")),
    );
    await expect(remote.declare("x", READ)).rejects.toThrow(
      "PUT http://127.0.0.1:9/v1/tools/x failed: connect ECONNREFUSED 127.0.0.1:9",
    );
  });
});

describe("the local ledger of a long-running proxy", () => {
  it("checkpoints its write-ahead log on a worker thread once started, until it closes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "proxy-ledger-"));
    try {
      const ledger = await LocalLedger.open(join(dir, "ledger.db"));
      const sqlite = (ledger.store as SqliteStore).db.sqlite;
      expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
      ledger.startBackground();
      // The connection's own checkpoint is raised to a backstop: the worker checkpoints instead.
      expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(BACKSTOP_PAGES);
      await ledger.close();
      expect(sqlite.open).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

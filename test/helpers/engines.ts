// One HTTP test suite on both engines: `describe.each(ENGINES)` and `await createEngineApp(engine, ...)` give the same
// app over a fresh SQLite :memory: database or a fresh PostgreSQL database (see test/setup/pg-global.ts).
import { createApp } from "../../src/api/app.js";
import { defaultConfig } from "../../src/config.js";
import type { LedgerStore, StoreEngine } from "../../src/store/port.js";
import { openPgStore } from "../../src/store/pg/store.js";
import { createTestApp, type CallResult, type TestApp } from "./db.js";
import { createPgDatabase } from "./pg.js";

/** The engines every storage-touching suite runs on. */
export const ENGINES: readonly StoreEngine[] = ["sqlite", "postgres"];

/** A TestApp on either engine; team tokens are made through the store, so they are asynchronous. */
export type EngineApp = Pick<TestApp, "app" | "adminToken" | "defaultTeamId" | "authHeaders" | "call"> & {
  engine: StoreEngine;
  store: LedgerStore;
  /** A fresh token of the team `name`, creating the team on first use. */
  teamToken(name: string): Promise<string>;
  /** Id of the team `name` (after teamToken created it). */
  teamId(name: string): Promise<string>;
  /** Rows in `table`, on either engine. */
  count(table: string): Promise<number>;
  /** The rows of a query written with `?` placeholders, on either engine. */
  rows<R = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<R[]>;
  /** The SQLite handle, for the few assertions that read SQLite rows directly (absent on PostgreSQL). */
  db?: TestApp["db"];
};

const open: LedgerStore[] = [];

/** An app over a seeded, fresh database of `engine` with the known admin token. */
export async function createEngineApp(
  engine: StoreEngine,
  options: Parameters<typeof createTestApp>[0] = {},
): Promise<EngineApp> {
  if (engine === "sqlite") {
    const t = createTestApp(options);
    const count = async (table: string) =>
      (t.db.sqlite.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
    const rows = async <R>(sql: string, ...params: unknown[]) => t.db.sqlite.prepare(sql).all(...params) as R[];
    return { ...t, engine, count, rows, teamToken: async (n) => t.teamToken(n), teamId: async (n) => t.teamId(n) };
  }
  const store = await openPgStore(await createPgDatabase(), {
    ...(options.clock ? { clock: options.clock } : {}),
    poolSize: 4,
    undeclaredTools: options.config?.undeclaredTools,
  });
  open.push(store);
  const { teamId: defaultTeamId } = await store.seed();
  const adminToken = "test-admin-token-0123456789";
  await store.teams.ensureAdminToken(adminToken);
  const app = createApp({
    store,
    config: defaultConfig(options.config),
    clock: options.clock,
    logger: options.logger,
    packFetch: options.packFetch,
  });
  const authHeaders = (token: string = adminToken): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
  });
  const call = async (
    method: string,
    path: string,
    opts: { body?: unknown; token?: string | null } = {},
  ): Promise<CallResult> => {
    const headers: Record<string, string> =
      opts.token === null ? { "content-type": "application/json" } : authHeaders(opts.token ?? adminToken);
    const res = await app.request(path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: unknown = null;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: res.status, body, headers: res.headers };
  };
  const teamId = async (name: string): Promise<string> => {
    const team = await store.teams.byName(name);
    if (!team) throw new Error(`test team "${name}" does not exist yet: call teamToken("${name}") first`);
    return team.id;
  };
  const teamToken = async (name: string): Promise<string> => {
    const team = (await store.teams.byName(name)) ?? (await store.teams.create(name));
    return (await store.teams.createToken(team.id, `test ${name}`)).token;
  };
  const count = async (table: string) =>
    (await store.db.pool.query<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`)).rows[0]!.n;
  const rows = async <R>(sql: string, ...params: unknown[]) => {
    let n = 0;
    return (
      await store.db.pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as R[];
  };
  return { engine, store, app, adminToken, defaultTeamId, authHeaders, call, teamToken, teamId, count, rows };
}

/** Closes the PostgreSQL pools this file opened (call from afterAll). */
export async function closeEngineApps(): Promise<void> {
  await Promise.all(open.splice(0).map((s) => s.close()));
}

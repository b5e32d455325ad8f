// Test helpers: a private in-memory database through the real migrations, and an app around it.
import { createApp } from "../../src/api/app.js";
import type { LedgerApp, Logger } from "../../src/api/env.js";
import type { Clock } from "../../src/clock.js";
import type { Fetch } from "../../src/packs/fetch.js";
import { defaultConfig, type Config } from "../../src/config.js";
import { openDb, type LedgerDb } from "../../src/store/sqlite/db.js";
import type { LedgerStore } from "../../src/store/port.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";
import { seedDatabase } from "../../src/store/sqlite/seed.js";
import { createTeam, createToken, ensureAdminToken, findTeamByName } from "../../src/store/sqlite/teams.js";
import type { Telemetry } from "../../src/telemetry/telemetry.js";

/** A fresh ":memory:" database, migrated from zero. */
export function createTestDb(): LedgerDb {
  return openDb(":memory:");
}

/** A JSON answer read back by `call`. */
export type CallResult = { status: number; body: unknown; headers: Headers };

/** What createTestApp gives a route test. */
export type TestApp = {
  app: LedgerApp;
  /** The open database the app uses (`db.db` is drizzle, `db.sqlite` the raw handle). */
  db: LedgerDb;
  /** The store port the app's routes use, over `db`. */
  store: LedgerStore;
  /** The admin token (also a token of team `default`). */
  adminToken: string;
  /** Id of the team `default`. */
  defaultTeamId: string;
  /** A fresh token of the team `name`, creating the team on first use. */
  teamToken(name: string): string;
  /** Id of the team `name` (after teamToken created it). */
  teamId(name: string): string;
  /** Authorization and JSON content-type headers for `token` (the admin token by default). */
  authHeaders(token?: string): Record<string, string>;
  /** Sends a request (body as JSON when given) and parses the JSON answer (or text, or null). */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string | null; headers?: Record<string, string> },
  ): Promise<CallResult>;
};

/** Silences 500 logging in tests that provoke one on purpose; collects what would have been logged. */
export function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, error: (message) => void lines.push(message) };
}

/** An app over a seeded in-memory database with a known admin token. */
export function createTestApp(
  options: {
    config?: Partial<Config>;
    clock?: Clock;
    logger?: Logger;
    packFetch?: Fetch;
    telemetry?: Telemetry;
    /** A SQLite file instead of a private ":memory:" database. */
    file?: string;
  } = {},
): TestApp {
  const store = options.file === undefined ? createTestDb() : openDb(options.file);
  const { teamId: defaultTeamId } = seedDatabase(store);
  const adminToken = "test-admin-token-0123456789";
  ensureAdminToken(store.db, adminToken);
  const port = sqliteStore(store, { clock: options.clock, undeclaredTools: options.config?.undeclaredTools });
  const app = createApp({
    store: port,
    config: defaultConfig(options.config),
    clock: options.clock,
    logger: options.logger,
    packFetch: options.packFetch,
    telemetry: options.telemetry,
  });
  const teamId = (name: string): string => {
    const team = findTeamByName(store.db, name);
    if (!team) throw new Error(`test team "${name}" does not exist yet: call teamToken("${name}") first`);
    return team.id;
  };
  const teamToken = (name: string): string => {
    const team = findTeamByName(store.db, name) ?? createTeam(store.db, name);
    return createToken(store.db, team.id, `test ${name}`).token;
  };
  const authHeaders = (token: string = adminToken): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
  });
  const call = async (
    method: string,
    path: string,
    opts: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {},
  ): Promise<CallResult> => {
    const headers: Record<string, string> = {
      ...(opts.token === null ? { "content-type": "application/json" } : authHeaders(opts.token ?? adminToken)),
      ...opts.headers,
    };
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
  return { app, db: store, store: port, adminToken, defaultTeamId, teamToken, teamId, authHeaders, call };
}

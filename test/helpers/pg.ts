// PostgreSQL for test files: each call makes a new database on the run's server (see test/setup/pg-global.ts).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { createDatabaseSql, databaseUrl } from "./pg-url.js";

/**
 * A new database on the test server and its URL: migrated (copied from the run's template) unless `migrated` is false,
 * in which case it is empty, as a first `serve` or `migrate` would find it.
 */
export async function createPgDatabase(options: { migrated?: boolean } = {}): Promise<string> {
  const admin = inject("pgAdminUrl");
  // A fork may run several files, each with fresh module state: a random part keeps names apart.
  const name = `${inject("pgDatabasePrefix")}${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(createDatabaseSql(name, options.migrated === false ? "template0" : inject("pgTemplate")));
  } finally {
    await client.end();
  }
  return databaseUrl(admin, name);
}

// Migrating PostgreSQL: several processes starting on one new database apply the migrations exactly once.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { openPg, PG_MIGRATIONS_DIR } from "../../../src/store/pg/open.js";
import { createPgDatabase } from "../../helpers/pg.js";

const BIN = fileURLToPath(new URL("../../../bin/agent-ledger.js", import.meta.url));
const MIGRATIONS = readdirSync(PG_MIGRATIONS_DIR).filter((f) => f.endsWith(".sql")).length;

/** Runs `agent-ledger migrate --db url` and resolves to its exit code and output. */
function migrate(url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, "migrate", "--db", url], { env: { ...process.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("PostgreSQL migrations", () => {
  test("four processes migrating one new database at once: all succeed, one applies every migration", async () => {
    const url = await createPgDatabase({ migrated: false });
    const runs = await Promise.all([migrate(url), migrate(url), migrate(url), migrate(url)]);
    for (const r of runs) expect(r, r.stderr).toMatchObject({ code: 0, stderr: "" });
    const appliers = runs.filter((r) => r.stdout.startsWith("applied "));
    expect(appliers.map((r) => r.stdout.replace(/ to .*;/, " to URL;"))).toEqual([
      `applied ${MIGRATIONS} migration(s) to URL; the schema is current\n`,
    ]);
    expect(runs.filter((r) => r.stdout.endsWith(": the schema was already current\n"))).toHaveLength(3);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const n = await client.query("SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations");
      expect(n.rows[0].n).toBe(MIGRATIONS);
      const t = await client.query(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(t.rows[0].n).toBeGreaterThan(10);
    } finally {
      await client.end();
    }
  }, 120_000);

  test("the migrate message hides the password of the URL", async () => {
    const url = await createPgDatabase({ migrated: false });
    const r = await migrate(url);
    expect(r.code).toBe(0);
    const password = new URL(url).password;
    expect(password.length).toBeGreaterThan(0);
    expect(r.stdout).not.toContain(password);
    expect(r.stdout).toMatch(/ to postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
  }, 60_000);

  test("opening a database whose text sorts by a language's rules is refused with how to create one", async (ctx) => {
    const url = await createPgDatabase({ migrated: false });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const name = new URL(url).pathname.slice(1);
    const collations = await client.query(
      "SELECT collname FROM pg_collation WHERE collprovider = 'i' AND collname = 'en-x-icu' UNION ALL SELECT 'none' LIMIT 1",
    );
    await client.end();
    // A server built without ICU has no linguistic collation to provoke the refusal with.
    if (collations.rows[0].collname === "none") ctx.skip();
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, "/postgres") });
    await admin.connect();
    try {
      await admin.query(
        `CREATE DATABASE "${name}_icu" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C'`,
      );
    } finally {
      await admin.end();
    }
    await expect(openPg(url.replace(/\/[^/]*$/, `/${name}_icu`))).rejects.toThrow(
      /sorts text by a language's rules, but the ledger's ids and cursors need byte order: create it with CREATE DATABASE/,
    );
  });
});

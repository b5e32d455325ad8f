import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { MIGRATIONS_DIR, openDb } from "../../../src/store/sqlite/db.js";
import * as schema from "../../../src/store/sqlite/schema.js";

/** Every table schema.ts declares, so a table added there without a migration fails this file. */
const SCHEMA_TABLES = Object.values(schema)
  .filter((v) => is(v, SQLiteTable))
  .map((t) => getTableName(t as SQLiteTable))
  .sort();

const tableNames = (db: ReturnType<typeof openDb>): string[] =>
  (
    db.sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "ledger-db-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("openDb", () => {
  it("migrates a fresh in-memory database from zero to every schema table", () => {
    const store = openDb(":memory:");
    const migrationFiles = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith(".sql"));
    expect(store.applied).toBe(migrationFiles.length);
    expect(SCHEMA_TABLES).toContain("teams");
    expect(SCHEMA_TABLES.length).toBeGreaterThanOrEqual(15);
    expect(tableNames(store)).toEqual(["__drizzle_migrations", ...SCHEMA_TABLES].sort());
    store.close();
  });

  it("sets WAL, busy_timeout 5000, synchronous NORMAL and foreign_keys on for a file database", () => {
    const file = join(tempDir(), "nested", "dir", "ledger.db");
    const store = openDb(file);
    expect(store.sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(store.sqlite.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect(store.sqlite.pragma("synchronous", { simple: true })).toBe(1);
    expect(store.sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    store.close();
  });

  it("checkpoints the WAL when it reaches 4,000 pages (16 MiB), with either sync setting", () => {
    for (const sync of ["normal", "full"] as const) {
      const store = openDb(join(tempDir(), `${sync}.db`), { sync });
      expect(store.sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(4000);
      store.close();
    }
  });

  it("sets synchronous FULL when opened with sync full (AGENT_LEDGER_SYNC=full)", () => {
    const store = openDb(join(tempDir(), "full.db"), { sync: "full" });
    expect(store.sqlite.pragma("synchronous", { simple: true })).toBe(2);
    expect(store.sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    store.close();
  });

  it("creates the parent directory of a file database", () => {
    const dir = tempDir();
    const store = openDb(join(dir, "a", "b", "x.db"));
    store.close();
    expect(readdirSync(join(dir, "a", "b"))).toContain("x.db");
  });

  it("applies nothing on the second open and keeps the rows", () => {
    const file = join(tempDir(), "ledger.db");
    const first = openDb(file);
    first.sqlite.prepare("INSERT INTO teams (id, name) VALUES ('t1', 'kept')").run();
    first.close();
    const second = openDb(file);
    expect(second.applied).toBe(0);
    expect(second.sqlite.prepare("SELECT name FROM teams WHERE id = 't1'").get()).toEqual({ name: "kept" });
    second.close();
  });

  it("enforces foreign keys after migrating", () => {
    const store = openDb(":memory:");
    expect(() =>
      store.sqlite.prepare("INSERT INTO tokens (id, team_id, hash) VALUES ('k', 'no-such-team', 'h')").run(),
    ).toThrow(/FOREIGN KEY constraint failed/);
    store.close();
  });
});

describe("several processes opening one new file", () => {
  it("all migrate it without error: the losers of the race retry and find the migrations applied", async () => {
    const dbModule = new URL("../../../src/store/sqlite/db.ts", import.meta.url).href;
    const failures: string[] = [];
    for (let trial = 0; trial < 3; trial += 1) {
      const file = join(mkdtempSync(join(tmpdir(), "ledger-race-")), "new.db");
      await Promise.all(
        [0, 1, 2, 3].map(
          () =>
            new Promise<void>((resolve) => {
              const p = spawn(
                process.execPath,
                [
                  "--import",
                  "tsx",
                  "-e",
                  `import(${JSON.stringify(dbModule)}).then((m) => m.openDb(${JSON.stringify(file)}).close())`,
                ],
                { stdio: ["ignore", "ignore", "pipe"] },
              );
              let err = "";
              p.stderr.on("data", (d: Buffer) => (err += d.toString()));
              p.on("exit", (code) => {
                if (code !== 0) failures.push(err.slice(0, 300));
                resolve();
              });
            }),
        ),
      );
    }
    expect(failures).toEqual([]);
  }, 60_000);
});

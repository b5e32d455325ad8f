// Store faults answered as faults: a full disk is 507 storage_full, a store that stays busy past its timeout is
// 503 storage_busy with Retry-After, never 500 internal; reads keep working and writes recover once the fault is gone.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app.js";
import { defaultConfig } from "../../src/config.js";
import { openPgStore } from "../../src/store/pg/store.js";
import { captureLogger, createTestApp } from "../helpers/db.js";
import { createPgDatabase } from "../helpers/pg.js";

type ErrorBody = { error: { code: string; message: string } };

const claim = (id: string, text = `Claim ${id}.`) => ({ body: { id, text, status: "live" } });

/** Mounts a 4 MB tmpfs at a new directory, or answers null when this machine does not allow it (not root, no mount). */
function smallTmpfs(): string | null {
  const dir = mkdtempSync(join(tmpdir(), "ledger-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

const tmpfs = smallTmpfs();
if (tmpfs === null) console.log("disk-full test skipped: this machine does not allow mounting a tmpfs (needs root)");

describe.skipIf(tmpfs === null)("a full disk (a 4 MB tmpfs)", () => {
  afterAll(() => {
    if (tmpfs === null) return;
    // Lazy: a test that failed may have left the file open.
    execFileSync("umount", ["-l", tmpfs]);
    rmSync(tmpfs, { recursive: true, force: true });
  });

  it("answers 507 storage_full, keeps reads working, and accepts writes again once space is freed", async () => {
    const dir = tmpfs as string;
    const logger = captureLogger();
    const t = createTestApp({ file: join(dir, "ledger.db"), logger });
    expect((await t.call("POST", "/v1/claims", claim("FIRST"))).status).toBe(201);
    // Leave a little room, then write claims of 9 kB until the disk refuses one.
    const filler = join(dir, "filler");
    writeFileSync(filler, Buffer.alloc(3 * 1024 * 1024));
    let full: { status: number; body: unknown; headers: Headers } | null = null;
    for (let i = 0; i < 2000 && full === null; i++) {
      const r = await t.call("POST", "/v1/claims", claim(`BIG-${i}`, `${i} ${"x".repeat(9_000)}`));
      if (r.status !== 201) full = r;
    }
    expect(full?.status).toBe(507);
    expect((full?.body as ErrorBody | undefined)?.error).toEqual({
      code: "storage_full",
      message: "the ledger's disk is full: nothing was stored; reads still work, and writes resume once space is freed",
    });
    expect(logger.lines).toEqual([]);
    const read = await t.call("GET", "/v1/claims");
    expect(read.status).toBe(200);
    rmSync(filler);
    expect((await t.call("POST", "/v1/claims", claim("AFTER"))).status).toBe(201);
    const ids = ((await t.call("GET", "/v1/claims")).body as { items: { id: string }[] }).items.map((c) => c.id);
    expect(ids).toContain("AFTER");
    t.db.sqlite.close();
  }, 60_000);
});

describe("a store busy past its timeout", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-busy-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers 503 storage_busy with Retry-After on SQLite when another process holds the write lock past 5 s", async () => {
    const file = join(dir, "busy.db");
    const logger = captureLogger();
    const t = createTestApp({ file, logger });
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    try {
      const r = await t.call("POST", "/v1/claims", claim("WAITED"));
      expect([r.status, r.headers.get("retry-after"), (r.body as ErrorBody).error.code]).toEqual([
        503,
        "1",
        "storage_busy",
      ]);
      expect(logger.lines).toEqual([]);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect((await t.call("POST", "/v1/claims", claim("WAITED"))).status).toBe(201);
    t.db.sqlite.close();
  }, 30_000);

  it("answers 503 storage_busy on PostgreSQL when a lock outlasts the database's lock_timeout", async () => {
    const url = await createPgDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const name = (await admin.query<{ n: string }>("SELECT current_database() AS n")).rows[0]?.n as string;
    await admin.query(`ALTER DATABASE "${name}" SET lock_timeout = '300ms'`);
    const store = await openPgStore(url, { poolSize: 2 });
    try {
      await store.seed();
      const token = "test-admin-token-0123456789";
      await store.teams.ensureAdminToken(token);
      const logger = captureLogger();
      const app = createApp({ store, config: defaultConfig(), logger });
      const post = (id: string) =>
        app.request("/v1/claims", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(claim(id).body),
        });
      await admin.query("BEGIN");
      await admin.query("LOCK TABLE claims IN ACCESS EXCLUSIVE MODE");
      const r = await post("LOCKED");
      await admin.query("ROLLBACK");
      expect([r.status, r.headers.get("retry-after"), ((await r.json()) as ErrorBody).error.code]).toEqual([
        503,
        "1",
        "storage_busy",
      ]);
      expect(logger.lines).toEqual([]);
      expect((await post("LOCKED")).status).toBe(201);
    } finally {
      await store.close();
      await admin.end();
    }
  }, 60_000);
});

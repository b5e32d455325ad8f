// While `serve` runs, WAL checkpoints happen on a worker thread (src/store/sqlite/checkpointer.ts), not inside a
// request's commit: the serving connection's autocheckpoint is raised to a backstop, the worker copies the log back
// once it passes CHECKPOINT_BYTES, and stopping gives the connection its own checkpoints back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BACKSTOP_PAGES, startCheckpointer } from "../../../src/store/sqlite/checkpointer.js";
import { openDb, WAL_AUTOCHECKPOINT_PAGES } from "../../../src/store/sqlite/db.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const autocheckpoint = (db: ReturnType<typeof openDb>) => db.sqlite.pragma("wal_autocheckpoint", { simple: true });

describe("the WAL checkpointer", () => {
  it("checkpoints a log past 4 MiB on its own thread, and hands checkpoints back to the connection when stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "checkpointer-"));
    dirs.push(dir);
    const db = openDb(join(dir, "ledger.db"));
    const cp = startCheckpointer(db.sqlite, WAL_AUTOCHECKPOINT_PAGES)!;
    expect(autocheckpoint(db)).toBe(BACKSTOP_PAGES);
    db.sqlite.exec("CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)");
    const add = db.sqlite.prepare("INSERT INTO filler (text) VALUES (?)");
    db.sqlite.transaction(() => {
      for (let i = 0; i < 12_000; i += 1) add.run(`${i} ${"x".repeat(500)}`);
    })();
    for (let i = 0; i < 100 && cp.checkpoints() === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(cp.checkpoints()).toBeGreaterThanOrEqual(1);
    // Everything the log held is in the file: a PASSIVE checkpoint of what is left copies nothing more.
    const [left] = db.sqlite.pragma("wal_checkpoint(PASSIVE)") as { log: number; checkpointed: number }[];
    expect(left!.checkpointed).toBe(left!.log);
    await cp.stop();
    expect(autocheckpoint(db)).toBe(WAL_AUTOCHECKPOINT_PAGES);
    expect(db.sqlite.prepare("SELECT count(*) FROM filler").pluck().get()).toBe(12_000);
    db.close();
  });

  it("does nothing for an in-memory database", () => {
    const db = openDb(":memory:");
    expect(startCheckpointer(db.sqlite, WAL_AUTOCHECKPOINT_PAGES)).toBeNull();
    db.close();
  });
});

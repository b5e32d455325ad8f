// While `serve` runs, WAL checkpoints happen on a worker thread (src/store/sqlite/checkpointer.ts), not inside a
// request's commit: the serving connection's autocheckpoint is raised to a backstop, the worker copies the log back
// once it passes CHECKPOINT_BYTES, and stopping gives the connection its own checkpoints back.
import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { WriteBatcher } from "../../../src/store/sqlite/batch.js";
import { BACKSTOP_PAGES, CLOSE_PAGES, startCheckpointer } from "../../../src/store/sqlite/checkpointer.js";
import { openDb, WAL_AUTOCHECKPOINT_PAGES } from "../../../src/store/sqlite/db.js";
import { autocheckpoint, ledgerFile, removeLedgerFiles } from "./ledger-files.js";
import { fillLog, logFrames } from "./wal-log.js";

afterEach(removeLedgerFiles);

describe("the WAL checkpointer", () => {
  it("checkpoints a log past 4 MiB on its own thread, and hands checkpoints back to the connection when stopped", async () => {
    const { db } = ledgerFile();
    const cp = startCheckpointer(db.sqlite, WAL_AUTOCHECKPOINT_PAGES)!;
    expect(autocheckpoint(db)).toBe(BACKSTOP_PAGES);
    fillLog(db.sqlite, 12_000, 500);
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

  it("closes a long log while commits keep landing, so the next group commit starts it again from the beginning", async () => {
    const { file, db } = ledgerFile();
    const cp = startCheckpointer(db.sqlite, WAL_AUTOCHECKPOINT_PAGES)!;
    // A log longer than CLOSE_PAGES, then a writer that commits on every turn, as a busy `serve` does: a checkpoint
    // that copies only what the log held when it began can never catch its end.
    const add = fillLog(db.sqlite, 40_000, 900);
    expect(logFrames(file)).toBeGreaterThan(CLOSE_PAGES);
    const b = new WriteBatcher(db.sqlite);
    let writes = 0;
    const deadline = Date.now() + 20_000;
    while (cp.closes() === 0 && Date.now() < deadline) {
      await b.run(() => add.run(`busy ${writes}`));
      writes += 1;
    }
    expect(cp.closes()).toBe(1);
    await b.run(() => add.run("after the close"));
    // The log restarted: it holds the last commit's pages, not the tens of thousands written before.
    expect(logFrames(file)).toBeLessThan(100);
    expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(CLOSE_PAGES * 4096);
    expect(db.sqlite.prepare("SELECT count(*) FROM filler").pluck().get()).toBe(40_000 + writes + 1);
    await cp.stop();
    db.close();
  });

  it("does not hold the commits while a reader's snapshot keeps the log from being copied to its end", async () => {
    const { file, db } = ledgerFile();
    // A long read (a verify, a backup) that began before the writes: no checkpoint can copy past its snapshot.
    const reader = new Database(file, { readonly: true });
    reader.prepare("BEGIN").run();
    reader.prepare("SELECT count(*) FROM sqlite_schema").get();
    const cp = startCheckpointer(db.sqlite, WAL_AUTOCHECKPOINT_PAGES)!;
    const add = fillLog(db.sqlite, 40_000, 900);
    const b = new WriteBatcher(db.sqlite);
    let writes = 0;
    while (cp.checkpoints() < 3) {
      await b.run(() => add.run(`busy ${writes}`));
      writes += 1;
    }
    // Closing could not reach the log's end either, so the writes were never paused for it.
    expect(cp.closes()).toBe(0);
    expect(logFrames(file)).toBeGreaterThan(CLOSE_PAGES);
    reader.close();
    await cp.stop();
    db.close();
  });

  it("does nothing for an in-memory database", () => {
    const db = openDb(":memory:");
    expect(startCheckpointer(db.sqlite, WAL_AUTOCHECKPOINT_PAGES)).toBeNull();
    db.close();
  });
});

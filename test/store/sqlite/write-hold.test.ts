// The checkpointer closes the WAL by holding the group commits for a moment (src/store/sqlite/write-hold.ts): jobs
// queued meanwhile wait without a thread waiting, and run in their order once the hold ends.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { WriteBatcher } from "../../../src/store/sqlite/batch.js";
import { holdWrites, releaseWrites, writesHeld } from "../../../src/store/sqlite/write-hold.js";

const turn = () => new Promise((r) => setImmediate(r));

function table(): Database.Database {
  const sqlite = new Database(":memory:");
  sqlite.exec("CREATE TABLE done (id INTEGER PRIMARY KEY, job TEXT NOT NULL)");
  return sqlite;
}

describe("holding the group commits", () => {
  it("queues jobs sent with run and runNow while held, and commits them in order when released", async () => {
    const sqlite = table();
    const b = new WriteBatcher(sqlite);
    const add = sqlite.prepare("INSERT INTO done (job) VALUES (?)");
    holdWrites(sqlite);
    expect(writesHeld(sqlite)).toBe(true);
    const first = b.run(() => Number(add.run("first").lastInsertRowid));
    const now = b.runNow(() => Number(add.run("now").lastInsertRowid));
    const third = b.run(() => Number(add.run("third").lastInsertRowid));
    for (let i = 0; i < 5; i += 1) await turn();
    expect(sqlite.prepare("SELECT count(*) FROM done").pluck().get()).toBe(0);
    releaseWrites(sqlite);
    expect(writesHeld(sqlite)).toBe(false);
    expect(await Promise.all([first, now, third])).toEqual([1, 2, 3]);
    expect(sqlite.prepare("SELECT job FROM done ORDER BY id").pluck().all()).toEqual(["first", "now", "third"]);
    sqlite.close();
  });

  it("runs runNow's job at once when nothing is held, and a release with no hold changes nothing", async () => {
    const sqlite = table();
    const b = new WriteBatcher(sqlite);
    releaseWrites(sqlite);
    let ran = false;
    const p = b.runNow(() => {
      ran = true;
      return sqlite.prepare("INSERT INTO done (job) VALUES ('alone')").run().changes;
    });
    expect(ran).toBe(true);
    expect(await p).toBe(1);
    sqlite.close();
  });
});

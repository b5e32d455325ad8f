// What the WAL checkpointer's tests need of a log: one to fill, and its length read without copying it.
import { closeSync, openSync, readSync } from "node:fs";
import type { Database, Statement } from "better-sqlite3";

/** Creates `filler` and writes `rows` rows of about `width` bytes in one transaction; answers its insert statement. */
export function fillLog(sqlite: Database, rows: number, width: number): Statement<[string]> {
  sqlite.exec("CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)");
  const add = sqlite.prepare<[string]>("INSERT INTO filler (text) VALUES (?)");
  sqlite.transaction(() => {
    for (let i = 0; i < rows; i += 1) add.run(`${i} ${"x".repeat(width)}`);
  })();
  return add;
}

/** The log's length in frames, as the wal-index header in `-shm` holds it (mxFrame, at byte 16): read, not copied. */
export function logFrames(file: string): number {
  const fd = openSync(`${file}-shm`, "r");
  const b = Buffer.alloc(20);
  readSync(fd, b, 0, 20, 0);
  closeSync(fd);
  return b.readUInt32LE(16);
}

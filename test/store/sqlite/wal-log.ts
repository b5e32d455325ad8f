// What the WAL checkpointer's tests (and bench:http:sustained) need of a log: one to fill, and its length read
// without copying it.
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

/**
 * The log's length in frames, and its page size, as the wal-index header in `${file}-shm` holds them (mxFrame, a
 * native u32 at byte 16; szPage, a u16 at byte 14): read, not copied, so looking does not checkpoint. A restarted log
 * is rewritten from the start of a `-wal` file that keeps its size, so the file's size does not say this.
 */
export function walIndex(file: string): { frames: number; pageSize: number } {
  const fd = openSync(`${file}-shm`, "r");
  const b = Buffer.alloc(20);
  readSync(fd, b, 0, 20, 0);
  closeSync(fd);
  return { frames: b.readUInt32LE(16), pageSize: b.readUInt16LE(14) };
}

/** The log's length in frames (`walIndex`). */
export function logFrames(file: string): number {
  return walIndex(file).frames;
}

// Read connections for large verifies, kept between them (one idle per file and thread). Opening one is cheap, but
// closing one that mapped a large file and filled its page cache took about a tenth of a second, paid per team by a
// verify of every team, and a new one faults the mapped pages in again.
import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { PAGE_CACHE_KIB } from "./page-cache.js";

/**
 * A verify reader's memory map of the file (SQLite's largest by default, 2 GiB): its pages are read in place instead
 * of copied into the page cache, about a quarter faster for the long sequential reads a verify makes. Only a
 * verify's own connections map the file; a server's connection does not.
 */
export const VERIFY_MMAP_BYTES = 2_147_418_112;

const idle = new Map<string, { db: Database.Database; ino: number }>();

/** A read-only connection to `file`: the one kept from the last verify of the file on this thread, or a new one. */
export function takeReader(file: string): Database.Database {
  // A restore replaces the file under the same name: a connection to the old inode is not reused.
  const ino = statSync(file).ino;
  const hit = idle.get(file);
  idle.delete(file);
  if (hit && hit.ino === ino) return hit.db;
  hit?.db.close();
  const db = new Database(file, { fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  db.pragma("query_only = ON");
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  db.pragma(`mmap_size = ${VERIFY_MMAP_BYTES}`);
  inodes.set(db, ino);
  return db;
}

const inodes = new WeakMap<Database.Database, number>();

/** Ends a reader's use: its transaction ended, its page cache given back, kept for the next verify of its file. */
export function giveBack(db: Database.Database): void {
  if (db.inTransaction) db.exec("COMMIT");
  if (!db.open) return;
  db.pragma("shrink_memory");
  const kept = idle.get(db.name);
  if (kept && kept.db !== db) {
    db.close();
    return;
  }
  idle.set(db.name, { db, ino: inodes.get(db) ?? -1 });
}

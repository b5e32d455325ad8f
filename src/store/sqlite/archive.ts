// Retention: sessions created before a date move, with their calls, crossings, audits and harness runs, into an
// archive file of the same schema; they leave the live file only once the archive holds a verified copy.
import { existsSync } from "node:fs";
import { openDb, type LedgerDb } from "./db.js";

/** What an archive run moved: the sessions, and the rows newly written to the archive by table. */
export type ArchiveReport = { sessions: number; rows: Record<string, number>; archive: string };

/** The archive was not written as expected: nothing was deleted from the live file. */
export class ArchiveError extends Error {
  readonly code = "archive_failed";
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

// Rows that belong to a moved session, child tables after their parents; each keyed so the copy can be compared.
const MOVED: { table: string; where: string; key: string }[] = [
  { table: "sessions", where: "id IN (SELECT id FROM temp.moving)", key: "id" },
  { table: "session_labels", where: "session_id IN (SELECT id FROM temp.moving)", key: "session_id, key" },
  { table: "calls", where: "session_id IN (SELECT id FROM temp.moving)", key: "id" },
  { table: "crossings", where: "session_id IN (SELECT id FROM temp.moving)", key: "id" },
  { table: "audits", where: "session_id IN (SELECT id FROM temp.moving)", key: "id" },
  {
    table: "audit_items",
    where: "audit_id IN (SELECT id FROM main.audits WHERE session_id IN (SELECT id FROM temp.moving))",
    key: "id",
  },
  { table: "bench_runs", where: "session_id IN (SELECT id FROM temp.moving)", key: "session_id" },
];
// What a moved session needs to be read, exported and replayed from the archive alone (copied, never removed).
const CONTEXT = ["teams", "datums", "station_offsets", "tools"];

/**
 * Moves every session created before `before` (an ISO instant) from `live` into the SQLite archive `file`
 * (created and migrated when absent; an existing archive gains the new sessions). The copy is committed and compared
 * row for row (every moved key present in the archive, `integrity_check` ok) before one transaction deletes the
 * rows from the live file; a crash in between leaves them in both, and the next run completes the move.
 * Evaluations stay in the live file: their stored reports name session and call ids, which the archive still answers.
 */
export function archiveSessions(live: LedgerDb, before: string, file: string): ArchiveReport {
  if (live.file === ":memory:") throw new ArchiveError("the database is :memory:, so there is nothing to archive");
  const fresh = !existsSync(file);
  const archive = openDb(file, { sync: "full" });
  archive.close();
  if (fresh && !existsSync(file)) throw new ArchiveError(`could not create the archive ${file}`);
  const sql = live.sqlite;
  sql.prepare("ATTACH DATABASE ? AS archive").run(file);
  try {
    sql.exec("CREATE TEMP TABLE IF NOT EXISTS moving (id TEXT PRIMARY KEY)");
    sql.exec("DELETE FROM temp.moving");
    const sessions = sql
      .prepare("INSERT INTO temp.moving SELECT id FROM main.sessions WHERE created_at < ?")
      .run(before).changes;
    const rows: Record<string, number> = {};
    // 1. Copy, and commit the archive.
    sql
      .transaction(() => {
        for (const t of CONTEXT) sql.exec(`INSERT OR IGNORE INTO archive.${t} SELECT * FROM main.${t}`);
        for (const m of MOVED)
          rows[m.table] = sql
            .prepare(`INSERT OR IGNORE INTO archive.${m.table} SELECT * FROM main.${m.table} WHERE ${m.where}`)
            .run().changes;
      })
      .immediate();
    // 2. Verify: the archive file is sound and holds every row about to be deleted.
    const check = sql.prepare("PRAGMA archive.integrity_check").pluck().all() as string[];
    if (check.length !== 1 || check[0] !== "ok")
      throw new ArchiveError(
        `the archive ${file} fails integrity_check (${check.slice(0, 3).join("; ")}); nothing was deleted`,
      );
    for (const m of MOVED) {
      const missing = sql
        .prepare(
          `SELECT count(*) FROM (SELECT ${m.key} FROM main.${m.table} WHERE ${m.where} EXCEPT SELECT ${m.key} FROM archive.${m.table})`,
        )
        .pluck()
        .get() as number;
      if (missing > 0)
        throw new ArchiveError(`${missing} row(s) of ${m.table} are not in the archive ${file}; nothing was deleted`);
    }
    // 3. Delete from the live file, children first, in one transaction.
    sql
      .transaction(() => {
        for (const m of [...MOVED].reverse()) sql.exec(`DELETE FROM main.${m.table} WHERE ${m.where}`);
      })
      .immediate();
    sql.exec("DELETE FROM temp.moving");
    return { sessions, rows, archive: file };
  } finally {
    sql.exec("DETACH DATABASE archive");
  }
}

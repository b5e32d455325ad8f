// Ledger database files for backup and restore: opened without migrating, checked with integrity_check, and
// copied with SQLite's online backup API (a consistent snapshot even while a server writes).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openDb } from "../store/sqlite/db.js";
import { appliedMigrations, migrationCount, schemaDifferences } from "../store/sqlite/schema-check.js";
import { CliError } from "./shared.js";

/** Opens an existing SQLite file as it is (no migration, no pragmas beyond a busy timeout). */
export function openExisting(file: string, options: { readonly?: boolean } = {}): Database.Database {
  const db = new Database(file, { fileMustExist: true, readonly: options.readonly ?? false });
  db.pragma("busy_timeout = 5000");
  return db;
}

/** A one-line account of integrity_check problems: how many, and the first one. */
export function integritySummary(problems: readonly string[]): string {
  const first = problems[0] ?? "";
  const shown = first.length > 120 ? `${first.slice(0, 117)}...` : first;
  return `${problems.length} problem${problems.length === 1 ? "" : "s"}, the first: ${shown}`;
}

/** The problems PRAGMA integrity_check reports, [] for a sound file; a file that is not SQLite is a CliError. */
export function integrityProblems(db: Database.Database, file: string): string[] {
  try {
    const rows = db.pragma("integrity_check") as { integrity_check: string }[];
    // One problem per line, whether SQLite answers one row per problem or several lines in one row.
    const lines = rows.flatMap((r) => r.integrity_check.split("\n")).filter((l) => l.trim() !== "");
    return lines.length === 1 && lines[0] === "ok" ? [] : lines;
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code === "SQLITE_NOTADB")
      throw new CliError(`${file} is not a SQLite database (${err.message}): nothing was changed`);
    if (err.code?.startsWith("SQLITE_CORRUPT")) return [err.message ?? err.code];
    throw e;
  }
}

/** Throws unless the file holds an agent-ledger schema (the drizzle migrations table and the sessions table). */
export function assertLedger(db: Database.Database, file: string): void {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  if (!tables.has("__drizzle_migrations") || !tables.has("sessions")) {
    throw new CliError(
      `${file} is a SQLite database but not an agent-ledger one (no __drizzle_migrations or sessions table): nothing was changed`,
    );
  }
}

const COUNTED = ["sessions", "calls", "crossings", "claims", "runs"] as const;

/** "3 sessions, 40 calls, ..." for the tables the file has. */
export function describeLedger(db: Database.Database): string {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  return COUNTED.filter((t) => tables.has(t))
    .map((t) => `${db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number} ${t}`)
    .join(", ");
}

/**
 * Copies the open database `source` into the file `dest` with the online backup API, all remaining pages in one
 * step after the first: another connection's commit between steps would restart a page-by-page copy, so one step
 * gives a snapshot that a busy writer cannot starve. Answers the number of pages copied.
 */
export async function onlineCopy(source: Database.Database, dest: string): Promise<number> {
  const done = await source.backup(dest, { progress: () => 0x7fffffff });
  return done.totalPages;
}

/**
 * Throws unless the file's schema is exactly what our migrations make (tables, indexes, triggers, views). A backup
 * made by an older version is migrated in a scratch copy first, as serve would migrate it, and that copy compared.
 */
export async function assertOurSchema(db: Database.Database, file: string, verb: string): Promise<void> {
  let differences: string[];
  if (appliedMigrations(db) === migrationCount()) differences = schemaDifferences(db);
  else {
    const dir = mkdtempSync(join(tmpdir(), "ledger-schema-"));
    try {
      await onlineCopy(db, join(dir, "check.db"));
      let migrated: ReturnType<typeof openDb>;
      try {
        migrated = openDb(join(dir, "check.db"));
      } catch (e) {
        throw new CliError(
          `${file} cannot be brought to our schema (${(e as Error).message}): refusing to ${verb} it; nothing was changed`,
        );
      }
      try {
        differences = schemaDifferences(migrated.sqlite);
      } finally {
        migrated.sqlite.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (differences.length > 0)
    throw new CliError(
      `${file} does not have the schema our migrations make: it has ${differences.join("; ")}. Refusing to ${verb} ` +
        "a database whose schema was changed outside our migrations (a foreign trigger runs on every write); nothing was changed",
    );
}

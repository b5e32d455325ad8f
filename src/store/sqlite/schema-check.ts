// A database is ours only when its schema is exactly what our migrations make: integrity_check passes a backup that
// carries a foreign trigger (one setting is_admin on every new token did), so restore and copy compare every
// table, index, trigger and view with a freshly migrated database before they trust the file.
import type Database from "better-sqlite3";
import { openDb } from "./db.js";

type Entry = { type: string; name: string; tbl_name: string; sql: string | null };

// SQLite's own tables (sqlite_sequence, sqlite_stat1 from ANALYZE) come and go with use, not with the schema.
const ENTRIES = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'";

let expected: Map<string, Entry> | undefined;

const keyOf = (e: Entry): string => `${e.type} ${e.name}`;

/** The schema our migrations make, read once from a fresh in-memory database. */
function migratedSchema(): Map<string, Entry> {
  if (expected) return expected;
  const fresh = openDb(":memory:");
  try {
    expected = new Map((fresh.sqlite.prepare(ENTRIES).all() as Entry[]).map((e) => [keyOf(e), e]));
  } finally {
    fresh.sqlite.close();
  }
  return expected;
}

/** How many of our migrations a database has applied (0 when it has no migrations table). */
export function appliedMigrations(db: Database.Database): number {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  return has ? (db.prepare("SELECT count(*) FROM __drizzle_migrations").pluck().get() as number) : 0;
}

/** How many migrations this build has. */
export function migrationCount(): number {
  const fresh = openDb(":memory:");
  try {
    return appliedMigrations(fresh.sqlite);
  } finally {
    fresh.sqlite.close();
  }
}

/**
 * Every way the database's schema differs from a freshly migrated one, one plain sentence each ("a trigger
 * tokens_admin that our migrations do not make"); [] when it is exactly ours. Compare a fully migrated database.
 */
export function schemaDifferences(db: Database.Database): string[] {
  const want = migratedSchema();
  const have = new Map((db.prepare(ENTRIES).all() as Entry[]).map((e) => [keyOf(e), e]));
  const out: string[] = [];
  for (const [k, e] of have) {
    const ours = want.get(k);
    if (!ours) out.push(`a ${e.type} ${e.name} (on ${e.tbl_name}) that our migrations do not make`);
    else if (ours.sql !== e.sql || ours.tbl_name !== e.tbl_name)
      out.push(`the ${e.type} ${e.name} defined differently from what our migrations make`);
  }
  for (const [k, e] of want) if (!have.has(k)) out.push(`no ${e.type} ${e.name}, which our migrations make`);
  return out;
}

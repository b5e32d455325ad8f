// Copies a SQLite ledger into an empty PostgreSQL one: every table of the schema, every row with its ids, in one
// transaction; identity sequences then continue after the copied ids. Tables are found from the drizzle schemas, so
// a table added to both schemas is copied without touching this file.
import type { Database } from "better-sqlite3";
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import type pg from "pg";
import * as pgSchema from "./schema.js";
import { inTransaction, type Q } from "./tx.js";
import { hexOf } from "../common/chain.js";

type Column = { name: string; sqlType: string; kind: "boolean" | "other"; identity: boolean };
type Table = { name: string; columns: Column[]; dependsOn: string[] };

/** The tables of the pg schema, parents before children (foreign keys). */
export function copyOrder(): Table[] {
  const tables: Table[] = Object.values(pgSchema)
    .filter((t) => is(t, PgTable))
    .map((t) => {
      const c = getTableConfig(t as PgTable);
      return {
        name: c.name,
        columns: c.columns.map((col) => ({
          name: col.name,
          sqlType: col.getSQLType(),
          kind: col.columnType === "PgBoolean" ? "boolean" : "other",
          identity: (col as { generatedIdentity?: unknown }).generatedIdentity !== undefined,
        })),
        dependsOn: c.foreignKeys
          .map((fk) => getTableConfig(fk.reference().foreignTable).name)
          .filter((n) => n !== c.name),
      };
    });
  // By name first, so the order does not hang on how a module loader lists the schema's exports.
  tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const done = new Set<string>();
  const ordered: Table[] = [];
  while (ordered.length < tables.length) {
    const next = tables.find((t) => !done.has(t.name) && t.dependsOn.every((d) => done.has(d)));
    if (!next) throw new Error("the pg schema's foreign keys form a cycle; copy cannot order its tables");
    ordered.push(next);
    done.add(next.name);
  }
  return ordered;
}

/** Rows per table, for the copy's report and check. */
export type TableCounts = Record<string, number>;

/** Raised when the target already holds a ledger: copying into it would mix two ledgers' ids. */
export class TargetNotEmptyError extends Error {
  readonly code = "target_not_empty";
}

const BATCH = 2000;

/** Tables that triggers on other tables keep (migration 0009): copying their rows as well would count twice. */
const KEPT_BY_TRIGGERS = new Set(["violation_counts"]);

/** The element type of a column's SQL type for unnest (`text`, `double precision`, `bigint`, ...). */
const arrayType = (sqlType: string): string => `${sqlType}[]`;

async function copyTable(q: Q, sqlite: Database, t: Table): Promise<number> {
  const names = t.columns.map((c) => `"${c.name}"`).join(", ");
  const stmt = sqlite
    .prepare(`SELECT ${t.columns.map((c) => `"${c.name}"`).join(", ")} FROM "${t.name}" ORDER BY rowid`)
    .raw(true);
  const insert = `INSERT INTO "${t.name}" (${names}) OVERRIDING SYSTEM VALUE SELECT * FROM unnest(${t.columns
    .map((c, i) => `$${i + 1}::${arrayType(c.sqlType)}`)
    .join(", ")})`;
  let n = 0;
  let batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const cols = t.columns.map((c, i) =>
      batch.map((row) => {
        const v = row[i];
        // The chain's digests are bytes on SQLite since 0022_chain_bytes and hex text on PostgreSQL.
        if (v instanceof Uint8Array && c.sqlType === "text") return hexOf(v);
        return c.kind === "boolean" && v !== null ? v === 1 || v === true : v;
      }),
    );
    await q(insert, cols);
    n += batch.length;
    batch = [];
  };
  for (const row of stmt.iterate() as Iterable<unknown[]>) {
    batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  // The next id the sequence hands out comes after every copied one.
  for (const c of t.columns.filter((col) => col.identity))
    await q(
      `SELECT setval(pg_get_serial_sequence('"${t.name}"', '${c.name}'), coalesce((SELECT max("${c.name}") FROM "${t.name}"), 0) + 1, false)`,
    );
  return n;
}

/** Row counts of every table on PostgreSQL. */
export async function pgCounts(q: Q): Promise<TableCounts> {
  const counts: TableCounts = {};
  for (const t of copyOrder()) counts[t.name] = (await q<{ n: number }>(`SELECT count(*) AS n FROM "${t.name}"`))[0]!.n;
  return counts;
}

/** Row counts of every table in the SQLite file. */
export function sqliteCounts(sqlite: Database): TableCounts {
  const counts: TableCounts = {};
  for (const t of copyOrder())
    counts[t.name] = (sqlite.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n;
  return counts;
}

/** Copies every row of `sqlite` into the empty, migrated PostgreSQL database behind `pool`; answers the counts copied. */
export async function copySqliteToPg(sqlite: Database, pool: pg.Pool, target: string): Promise<TableCounts> {
  return inTransaction(pool, async (q) => {
    // Nobody else writes while the copy runs: another instance serving the target would interleave its own ids.
    await q("LOCK TABLE teams, sessions, calls, crossings, claims, claim_events, runs, run_claims IN EXCLUSIVE MODE");
    const present = await pgCounts(q);
    const filled = Object.entries(present).filter(([t, n]) => n > 0 && !KEPT_BY_TRIGGERS.has(t));
    if (filled.length > 0)
      throw new TargetNotEmptyError(
        `${target} already holds a ledger (${filled.map(([t, n]) => `${n} row(s) in ${t}`).join(", ")}): ` +
          "copy writes into an empty database only, so that every id stays what it was; create a new database and copy into it",
      );
    const copied: TableCounts = {};
    for (const t of copyOrder()) if (!KEPT_BY_TRIGGERS.has(t.name)) copied[t.name] = await copyTable(q, sqlite, t);
    // Filled by the target's own triggers as the rows above went in; counted so the check compares them too.
    for (const name of KEPT_BY_TRIGGERS)
      copied[name] = (await q<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`))[0]!.n;
    return copied;
  });
}

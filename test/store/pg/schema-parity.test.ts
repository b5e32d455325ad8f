// The PostgreSQL schema is the SQLite schema's twin: same tables, columns, nullability, defaults' presence and indexes.
import { is } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, test } from "vitest";
import * as pgSchema from "../../../src/store/pg/schema.js";
import * as sqliteSchema from "../../../src/store/sqlite/schema.js";

type Shape = {
  columns: Record<string, { notNull: boolean; hasDefault: boolean; primary: boolean; family: string }>;
  indexes: Record<string, { columns: string[]; unique: boolean; partial: boolean }>;
  foreignKeys: string[];
};

// SQLite's integer holds booleans (mode boolean) and row ids; real holds magnitudes. The families pair them up.
const FAMILY: Record<string, string> = {
  SQLiteText: "text",
  SQLiteTextJson: "json",
  SQLiteInteger: "integer",
  SQLiteBoolean: "boolean",
  SQLiteReal: "double",
  // The chain's digests and fingerprints: bytes on SQLite since 0022_chain_bytes, the same values as hex text on
  // PostgreSQL (every reader takes either form through hexOf, and copy carries bytes across as hex).
  SQLiteBlobBuffer: "text",
  PgText: "text",
  PgCustomColumn: "json",
  PgInteger: "integer",
  PgBigInt53: "integer",
  PgBoolean: "boolean",
  PgDoublePrecision: "double",
};

const family = (columnType: string): string => FAMILY[columnType] ?? `unknown ${columnType}`;

function shapeOf(config: ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>): Shape {
  const columns: Shape["columns"] = {};
  const compositePk = new Set(config.primaryKeys.flatMap((pk) => pk.columns.map((c) => c.name)));
  for (const c of config.columns) {
    columns[c.name] = {
      notNull: c.notNull,
      hasDefault: c.hasDefault,
      primary: c.primary || compositePk.has(c.name),
      family: family(c.columnType),
    };
  }
  const indexes: Shape["indexes"] = {};
  for (const i of config.indexes) {
    const cfg = i.config as { name: string; columns: { name?: string }[]; unique: boolean; where?: unknown };
    indexes[cfg.name] = {
      columns: cfg.columns.map((c) => c.name ?? "?"),
      unique: cfg.unique,
      partial: cfg.where !== undefined,
    };
  }
  const foreignKeys = config.foreignKeys
    .map((fk) => {
      const r = fk.reference();
      return `${r.columns.map((c) => c.name).join(",")} -> ${r.foreignColumns.map((c) => c.name).join(",")}`;
    })
    .sort();
  return { columns, indexes, foreignKeys };
}

const sqliteTables = new Map(
  Object.values(sqliteSchema)
    .filter((t) => is(t, SQLiteTable))
    .map((t) => {
      const c = sqliteConfig(t as SQLiteTable);
      return [c.name, shapeOf(c)] as const;
    }),
);
const pgTables = new Map(
  Object.values(pgSchema)
    .filter((t) => is(t, PgTable))
    .map((t) => {
      const c = pgConfig(t as PgTable);
      return [c.name, shapeOf(c)] as const;
    }),
);

describe("the PostgreSQL schema mirrors the SQLite schema", () => {
  test("both declare the same tables", () => {
    expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort());
    expect(sqliteTables.size).toBeGreaterThan(10);
  });

  test.each([...sqliteTables.keys()].sort())("table %s has the same columns, indexes and foreign keys", (name) => {
    const lite = sqliteTables.get(name);
    const twin = pgTables.get(name);
    expect(twin, `src/store/pg/schema.ts has no table ${name}`).toBeDefined();
    expect(twin?.columns).toEqual(lite?.columns);
    expect(twin?.indexes).toEqual(lite?.indexes);
    expect(twin?.foreignKeys).toEqual(lite?.foreignKeys);
  });

  test("no magnitude is a 4-byte real on PostgreSQL", () => {
    const reals = [...pgTables.entries()].flatMap(([t, s]) =>
      Object.entries(s.columns)
        .filter(([, c]) => c.family.startsWith("unknown"))
        .map(([c]) => `${t}.${c}`),
    );
    expect(reals).toEqual([]);
  });
});

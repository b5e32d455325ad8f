// The row side of a whole-chain verify: every chained table of a team read once, each row hashed. Kept apart from the
// entries' side so that it can run on a worker thread (chain-rows-worker.ts) while the entries are walked on the
// caller's thread; the two meet in chain-verify.ts, which compares them.
import type { Database, Statement } from "better-sqlite3";
import { CHAIN_TABLES, CHAINED_ROWS, type ChainTableName } from "../common/chain-tables.js";
import { canonicalParts, canonicalValue, sha256Hex } from "../common/chain.js";

/** The chained tables in a fixed order: a table's index in it is how both sides name the table. */
export const CHAIN_NAMES = Object.keys(CHAIN_TABLES) as ChainTableName[];

/** Per table in CHAIN_NAMES, whether its key (first canonical column) is a number. */
export const NUMERIC_KEY = CHAIN_NAMES.map((n) => CHAIN_TABLES[n].columns[0]![1] === "num");

/**
 * A table's canonical text made mostly by SQLite: the text columns JSON-quoted and joined with their keys in SQL
 * (json_quote writes a string exactly as JSON.stringify does), so a row reaches JavaScript as a few strings instead
 * of one per column. Numbers and booleans come as values and are written here, since SQLite writes a real with 15
 * digits where the canonical form has the shortest round-trip text. A value of another type than its column's
 * (a tampered row) is written as a control character, so its row differs and is then hashed from its values.
 */
type SqlCanonical = { text: (r: readonly unknown[]) => string; countsAt: number };

/**
 * Adds a table's canonical text to a select list (whose first item is the row key) and answers how to join it: the
 * tables of one source (calls and results) are read in one scan, each from its own items.
 */
function sqlCanonical(name: ChainTableName, exprs: string[]): SqlCanonical {
  const { parts, tail } = canonicalParts(name);
  // The JavaScript joining the row's values: `v[i]` for a piece of text made by SQLite, `num(v[i])` for a value.
  const joins: string[] = [];
  let seg: string[] = [];
  const flush = () => {
    if (seg.length === 0) return;
    exprs.push(seg.join(" || "));
    joins.push(`v[${exprs.length - 1}]`);
    seg = [];
  };
  for (const part of parts) {
    seg.push(`'${part.head.replaceAll("'", "''")}'`);
    const col = part.column;
    if (part.kind === "text") {
      seg.push(`CASE typeof(${col}) WHEN 'text' THEN json_quote(${col}) WHEN 'null' THEN 'null' ELSE char(1) END`);
      continue;
    }
    flush();
    exprs.push(col);
    joins.push(`${part.kind}(v[${exprs.length - 1}])`);
  }
  flush();
  const counts = CHAINED_ROWS[name];
  if (counts) exprs.push(`(${counts})`);
  // Only indexes and the JSON-quoted closing text enter the source, never a value (as in common/chain.ts).
  const text = new Function("num", "bool", `return (v) => ${joins.join(" + ")} + ${JSON.stringify(tail)};`)(
    (v: unknown) => canonicalValue("num", v),
    (v: unknown) => canonicalValue("bool", v),
  ) as (r: readonly unknown[]) => string;
  return { text, countsAt: counts ? exprs.length - 1 : -1 };
}

/** The tables read in one scan: a select list over their source and each table's join. */
type GroupPlan = { select: string; plans: SqlCanonical[] };

const groupPlans = new Map<string, GroupPlan>();

function groupPlan(tis: readonly number[]): GroupPlan {
  const id = tis.join(",");
  let g = groupPlans.get(id);
  if (!g) {
    const exprs = [CHAIN_TABLES[CHAIN_NAMES[tis[0]!]!].columns[0]![0]];
    const plans = tis.map((ti) => sqlCanonical(CHAIN_NAMES[ti]!, exprs));
    g = { select: exprs.join(", "), plans };
    groupPlans.set(id, g);
  }
  return g;
}

/** One table's rows of a team: their keys, their digests (32 bytes each, in the same order) and which count. */
export type TableDigests = {
  keys: (string | number)[];
  digests: Uint8Array;
  /** Per row, 1 when it counts as a chained row (only for tables where not every row does; else null). */
  counts: Uint8Array | null;
};

/** The statement text that reads a chained row's canonical columns, in column order, by id and team. */
export function rowByKeySql(name: ChainTableName): string {
  const spec = CHAIN_TABLES[name];
  return `SELECT ${spec.columns.map((c) => c[0]).join(", ")} FROM ${spec.source} WHERE id = ? AND team_id = ?`;
}

const statements = new WeakMap<Database, Map<string, Statement>>();

/** A statement prepared once per handle, raw (rows as arrays). */
export function prepared(sqlite: Database, sql: string): Statement {
  let m = statements.get(sqlite);
  if (!m) {
    m = new Map();
    statements.set(sqlite, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = sqlite.prepare(sql).raw();
    m.set(sql, s);
  }
  return s;
}

const PAGE = 4096;

/**
 * A piece of the rows' work: the tables of one source (calls and results are one), over a range of its rowids
 * (`lo` inclusive, `hi` exclusive), or, for a team with a small share of a large table, all its rows through the
 * team's index (`hi` null).
 */
export type RowsUnit = { tis: number[]; lo: number; hi: number | null };

/** Tables read together, largest first. */
const GROUPS: number[][] = [["crossings"], ["calls", "results"], ["sessions"], ["runs"], ["run_claims"]]
  .map((g) => g.map((n) => CHAIN_NAMES.indexOf(n as ChainTableName)))
  .concat(
    CHAIN_NAMES.map((_, i) => i)
      .filter((i) => !["crossings", "calls", "results", "sessions", "runs", "run_claims"].includes(CHAIN_NAMES[i]!))
      .map((i) => [i]),
  );

/** Rowids per unit of a large source: small enough that two threads sharing the units end close together. */
const UNIT_ROWS = 100_000;

/**
 * A team's rows cut into units, largest sources first. A source is read in rowid ranges, skipping other teams' rows
 * (sequential pages, no index lookups, no sort), when the team may hold a good share of it (`bound`, an upper bound
 * on the team's rows in any one table, at least a quarter of its rowids); else through the team's index, so a small
 * team in a large file reads only its own rows.
 */
export function rowsUnits(sqlite: Database, bound: number): RowsUnit[] {
  const units: RowsUnit[] = [];
  for (const tis of GROUPS) {
    const source = CHAIN_TABLES[CHAIN_NAMES[tis[0]!]!].source;
    const last = (prepared(sqlite, `SELECT max(rowid) FROM ${source}`).get() as [number | null])[0] ?? 0;
    if (bound * 4 < last) {
      units.push({ tis, lo: 0, hi: null });
      continue;
    }
    // At most a thousand units a source, so a claim's 16 bits always hold them.
    const size = Math.max(UNIT_ROWS, Math.ceil((last + 1) / 1000));
    for (let lo = 0; lo <= last; lo += size) units.push({ tis, lo, hi: Math.min(lo + size, last + 1) });
  }
  return units;
}

/** The team's rows of a unit's source (`select`, then the rowid when paged by range). */
function* unitRows(sqlite: Database, teamId: string, unit: RowsUnit, select: string): Generator<unknown[]> {
  const source = CHAIN_TABLES[CHAIN_NAMES[unit.tis[0]!]!].source;
  if (unit.hi === null) {
    yield* prepared(sqlite, `SELECT ${select} FROM ${source} WHERE team_id = ?`).iterate(teamId) as IterableIterator<
      unknown[]
    >;
    return;
  }
  const page = prepared(
    sqlite,
    `SELECT ${select}, rowid FROM ${source} NOT INDEXED
      WHERE team_id = ? AND rowid >= ? AND rowid < ? ORDER BY rowid LIMIT ${PAGE}`,
  );
  let from = unit.lo;
  for (;;) {
    const rows = page.all(teamId, from, unit.hi) as unknown[][];
    for (const r of rows) yield r;
    if (rows.length < PAGE) return;
    from = (rows[rows.length - 1]![rows[0]!.length - 1] as number) + 1;
  }
}

/** One table's rows of a unit, hashed: which table, and its digests. */
export type RowsPart = { ti: number; rows: TableDigests };

/**
 * A unit's rows, each hashed from the canonical text SQLite helps make (every table of the unit from one scan). A
 * row whose digest then differs from its entry's is hashed again from its values before it is called changed
 * (chain-verify.ts), so this path can only be faster, never different.
 */
export function unitDigests(sqlite: Database, teamId: string, unit: RowsUnit): RowsPart[] {
  const g = groupPlan(unit.tis);
  const keys: (string | number)[] = [];
  let cap = 1024;
  let digests = g.plans.map(() => Buffer.alloc(cap * 32));
  let flags = g.plans.map((p) => (p.countsAt >= 0 ? new Uint8Array(cap) : null));
  let n = 0;
  for (const r of unitRows(sqlite, teamId, unit, g.select)) {
    if (n === cap) {
      cap *= 2;
      digests = digests.map((d) => {
        const bigger = Buffer.alloc(cap * 32);
        d.copy(bigger);
        return bigger;
      });
      flags = flags.map((f) => {
        if (f === null) return null;
        const bigger = new Uint8Array(cap);
        bigger.set(f);
        return bigger;
      });
    }
    keys.push(r[0] as string | number);
    for (let p = 0; p < g.plans.length; p += 1) {
      const plan = g.plans[p]!;
      // The hex digest written into the array: cheaper than a digest answered as a new Buffer.
      digests[p]!.write(sha256Hex(plan.text(r)), n * 32, 32, "hex");
      const f = flags[p];
      if (f) f[n] = r[plan.countsAt] === 1 ? 1 : 0;
    }
    n += 1;
  }
  return unit.tis.map((ti, p) => ({
    ti,
    rows: { keys, digests: digests[p]!.subarray(0, n * 32), counts: flags[p]?.subarray(0, n) ?? null },
  }));
}

/**
 * Hashes units of a team's rows, taking them one at a time from `claim` (an Int32Array over shared memory holding
 * the next unit from the front in its low 16 bits and the end of the untaken ones in its high 16) until none is
 * left. One thread takes from the front (the largest first), the other from the back (the smallest first), so the
 * two end close together without a plan. A claim is made with `claimOf` for `units`.
 */
export function claimUnits(
  sqlite: Database,
  teamId: string,
  units: readonly RowsUnit[],
  claim: Int32Array,
  fromBack: boolean,
): RowsPart[] {
  const out: RowsPart[] = [];
  for (;;) {
    const v = Atomics.load(claim, 0);
    const lo = v & 0xffff;
    const hi = v >>> 16;
    if (lo >= hi) return out;
    const next = fromBack ? ((hi - 1) << 16) | lo : (hi << 16) | (lo + 1);
    if (Atomics.compareExchange(claim, 0, v, next) !== v) continue;
    out.push(...unitDigests(sqlite, teamId, units[fromBack ? hi - 1 : lo]!));
  }
}

/** A claim over `count` units, none taken; shared between threads when `shared`. */
export function claimOf(count: number, shared: boolean): Int32Array {
  const claim = new Int32Array(shared ? new SharedArrayBuffer(4) : new ArrayBuffer(4));
  if (count > 0x7fff) throw new RangeError(`too many units to claim: ${count}`);
  claim[0] = count << 16;
  return claim;
}

/** Every chained table's rows of a team, hashed on this thread (`bound` as rowsUnits takes it). */
export function teamDigests(sqlite: Database, teamId: string, bound: number): RowsPart[] {
  const units = rowsUnits(sqlite, bound);
  return claimUnits(sqlite, teamId, units, claimOf(units.length, false), false);
}

// What bench:crash reads back after its kills, on either engine: sessions, calls, crossings per call and direction,
// and the row-level invariants (a gap-free sequence per session, no crossing without its call).
import Database from "better-sqlite3";
import pg from "pg";

/** What the writers were answered: ids of sessions, calls (with their tool) and results. */
export type Acks = { sessions: Set<string>; calls: Map<string, string>; results: Set<string>; requests: number };

/** What the database holds after the soak. */
export type Stored = {
  sessions: Set<string>;
  calls: { id: string; tool: string; result_raw: string | null }[];
  /** Parameter and return crossings per call id. */
  crossings: Map<string, { param: number; ret: number }>;
  /** Soak sessions whose call_count differs from their calls, or whose calls are not numbered 1..n. */
  gaps: number;
  /** Crossings of soak tools whose call is not stored. */
  orphans: number;
  /** The engine's own check: integrity_check and foreign_key_check on SQLite; on PostgreSQL, keys are enforced. */
  integrity: string;
  integrityName: string;
};

const CALLS = "SELECT id, tool, result_raw FROM calls WHERE tool LIKE 'crash_%'";
const CROSSINGS =
  "SELECT call_id, direction, count(*) AS n FROM crossings WHERE tool LIKE 'crash_%' GROUP BY call_id, direction";
const GAPS = `SELECT count(*) AS n FROM (SELECT s.id FROM sessions s LEFT JOIN calls c ON c.session_id = s.id
  WHERE s.context = 'crash soak' GROUP BY s.id
  HAVING s.call_count != count(c.id) OR coalesce(max(c.seq), 0) != count(c.id) OR count(DISTINCT c.seq) != count(c.id)) g`;
const ORPHANS = `SELECT count(*) AS n FROM crossings x LEFT JOIN calls c ON c.id = x.call_id
  WHERE x.tool LIKE 'crash_%' AND c.id IS NULL`;

function byCall(rows: { call_id: string; direction: string; n: number | string }[]): Stored["crossings"] {
  const counts = new Map<string, { param: number; ret: number }>();
  for (const r of rows) {
    const x = counts.get(r.call_id) ?? { param: 0, ret: 0 };
    if (r.direction === "param") x.param = Number(r.n);
    else x.ret = Number(r.n);
    counts.set(r.call_id, x);
  }
  return counts;
}

/** Reads a SQLite file back, with integrity_check and foreign_key_check. */
export function storedSqlite(file: string): Stored {
  const sqlite = new Database(file, { fileMustExist: true });
  try {
    const integrity = String(sqlite.pragma("integrity_check", { simple: true }));
    const fk = (sqlite.pragma("foreign_key_check") as unknown[]).length;
    return {
      sessions: new Set(sqlite.prepare("SELECT id FROM sessions").pluck().all() as string[]),
      calls: sqlite.prepare(CALLS).all() as Stored["calls"],
      crossings: byCall(sqlite.prepare(CROSSINGS).all() as { call_id: string; direction: string; n: number }[]),
      gaps: sqlite.prepare(GAPS).pluck().get() as number,
      orphans: sqlite.prepare(ORPHANS).pluck().get() as number,
      integrity: integrity === "ok" && fk === 0 ? "ok" : `${integrity}, ${fk} foreign_key_check rows`,
      integrityName: "integrity_check and foreign_key_check",
    };
  } finally {
    sqlite.close();
  }
}

/** Reads a PostgreSQL database back; no integrity_check there, so the row-level invariants carry the check. */
export async function storedPg(url: string): Promise<Stored> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const q = async <T>(sql: string) => (await c.query(sql)).rows as T[];
    const n = async (sql: string) => Number((await q<{ n: string }>(sql))[0]?.n ?? 0);
    // Foreign keys are enforced by PostgreSQL itself; count any crossing that would break one all the same.
    const badKeys = await n(
      `SELECT count(*) AS n FROM calls c LEFT JOIN sessions s ON s.id = c.session_id WHERE s.id IS NULL`,
    );
    return {
      sessions: new Set((await q<{ id: string }>("SELECT id FROM sessions")).map((r) => r.id)),
      calls: await q<Stored["calls"][number]>(CALLS),
      crossings: byCall(await q<{ call_id: string; direction: string; n: string }>(CROSSINGS)),
      gaps: await n(GAPS),
      orphans: await n(ORPHANS),
      integrity: badKeys === 0 ? "ok" : `${badKeys} calls without their session`,
      integrityName: "calls without their session",
    };
  } finally {
    await c.end();
  }
}

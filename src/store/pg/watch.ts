// The revision watch's rows on PostgreSQL, with the same query and state as SQLite (src/store/watch.ts).
import type pg from "pg";
import type { WatchedReading, WatchRepo, WatchState } from "../port.js";
import { PAGE_END_SQL, WATCHED_SQL } from "../common/watch-sql.js";

const COLUMNS = [
  "team_id",
  "series_key",
  "site",
  "collection",
  "parameter",
  "statistic",
  "session_id",
  "last_look",
  "last_run",
  "next_run",
  "requests",
] as const;

/** The PostgreSQL WatchRepo. */
export function pgWatch(pool: pg.Pool): WatchRepo {
  const typed = (q: string) =>
    q.replaceAll("$1", "$1::text").replaceAll("$2", "$2::bigint").replaceAll("$3", "$3::bigint");
  const watched = typed(WATCHED_SQL);
  const pageEnd = typed(PAGE_END_SQL);
  const states = `SELECT ${COLUMNS.join(", ")} FROM revision_watch WHERE ($1::text IS NULL OR team_id = $1) ORDER BY team_id, series_key`;
  const upsert = `INSERT INTO revision_watch (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})
    ON CONFLICT (team_id, series_key) DO UPDATE SET ${COLUMNS.slice(2)
      .map((c) => `${c} = EXCLUDED.${c}`)
      .join(", ")}`;
  return {
    watched: async (teamId, page = { after: 0, limit: Number.MAX_SAFE_INTEGER }) => {
      const args = [teamId ?? null, page.after, page.limit];
      const rows = (await pool.query(watched, args)).rows.map((r) => ({ ...r, crossing_id: Number(r.crossing_id) }));
      const end = (await pool.query(pageEnd, args)).rows[0]?.n;
      return { rows: rows as WatchedReading[], next: end === null || end === undefined ? null : Number(end) };
    },
    marker: async () =>
      Number((await pool.query("SELECT coalesce(max(id), 0) AS n FROM evaluation_sources")).rows[0]?.n ?? 0),
    states: async (teamId) => (await pool.query(states, [teamId ?? null])).rows as WatchState[],
    save: async (rows) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        for (const r of rows)
          await client.query(
            upsert,
            COLUMNS.map((c) => r[c]),
          );
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
  };
}

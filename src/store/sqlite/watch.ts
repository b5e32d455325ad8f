// The revision watch's rows on SQLite: the watched readings (one query over crossings, evaluation sources and
// revisions) and the per-(site, parameter) state in revision_watch. The PostgreSQL twin is src/store/pg/watch.ts.
import type { Database } from "better-sqlite3";
import type { WatchedReading, WatchRepo, WatchState } from "../port.js";
import { PAGE_END_SQL, WATCHED_SQL } from "../common/watch-sql.js";

/** No page: every row. */
const ALL = { after: 0, limit: Number.MAX_SAFE_INTEGER };

const STATE_COLUMNS =
  "team_id, series_key, site, collection, parameter, statistic, session_id, last_look, last_run, next_run, requests";

/** The SQLite WatchRepo. */
export function sqliteWatch(sqlite: Database): WatchRepo {
  const named = (q: string) => q.replaceAll("$1", "@team").replaceAll("$2", "@after").replaceAll("$3", "@limit");
  const watched = sqlite.prepare(named(WATCHED_SQL));
  const pageEnd = sqlite.prepare(named(PAGE_END_SQL));
  const marker = sqlite.prepare("SELECT coalesce(max(id), 0) AS n FROM evaluation_sources");
  const states = sqlite.prepare(
    `SELECT ${STATE_COLUMNS} FROM revision_watch WHERE (@team IS NULL OR team_id = @team) ORDER BY team_id, series_key`,
  );
  const upsert = sqlite.prepare(
    `INSERT OR REPLACE INTO revision_watch (${STATE_COLUMNS}) VALUES (@team_id, @series_key, @site, @collection, @parameter,
    @statistic, @session_id, @last_look, @last_run, @next_run, @requests)`,
  );
  const save = sqlite.transaction((rows: readonly WatchState[]) => {
    for (const r of rows) upsert.run(r);
  });
  return {
    watched: async (teamId, page = ALL) => {
      const args = { team: teamId ?? null, after: page.after, limit: page.limit };
      const rows = watched.all(args) as WatchedReading[];
      return { rows, next: (pageEnd.get(args) as { n: number | null }).n };
    },
    marker: async () => (marker.get() as { n: number }).n,
    states: async (teamId) => states.all({ team: teamId ?? null }) as WatchState[],
    save: async (rows) => void save.immediate(rows),
  };
}

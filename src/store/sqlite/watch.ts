// The revision watch's rows on SQLite: the watched readings (one query over crossings, evaluation sources and
// revisions) and the per-(site, parameter) state in revision_watch. The PostgreSQL twin is src/store/pg/watch.ts.
import type { Database } from "better-sqlite3";
import type { WatchedReading, WatchRepo, WatchState } from "../port.js";

/** Grades that end a watch: the reading (or a later read of its observation) is approved. */
const FINAL = "('approved', 'reviewed')";

/**
 * The watched readings of one page of evaluation links (so each page costs its size, not the whole table): $1 the team
 * (null for every team), $2 the last link id of the previous page, $3 the page size in links.
 */
export const WATCHED_SQL = `SELECT c.team_id, c.id AS crossing_id, c.tool, c.source, c.observed_at, c.observed_utc, c.value, c.unit,
  c.quality, c.created_at FROM crossings c
  WHERE c.id IN (SELECT s.crossing_id FROM evaluation_sources s WHERE s.crossing_id IS NOT NULL AND ($1 IS NULL OR s.team_id = $1)
      AND s.id > $2 ORDER BY s.id LIMIT $3)
    AND ($1 IS NULL OR c.team_id = $1)
    AND c.source LIKE 'usgs:%:%:%' AND c.direction = 'return' AND c.value IS NOT NULL AND c.unit IS NOT NULL
    AND c.observed_utc IS NOT NULL AND (c.quality IS NULL OR c.quality NOT IN ${FINAL})
    AND NOT EXISTS (SELECT 1 FROM crossings l WHERE l.team_id = c.team_id AND l.source = c.source
      AND l.observed_utc = c.observed_utc AND l.id > c.id AND l.direction = 'return' AND l.quality IN ${FINAL})
    AND NOT EXISTS (SELECT 1 FROM revisions r WHERE r.before_crossing_id = c.id AND r.after_quality IN ${FINAL})
  ORDER BY c.id`;

/** The last evaluation_sources id of the page WATCHED_SQL reads, the cursor of the next page (null: none read). */
export const PAGE_END_SQL = `SELECT max(id) AS n FROM (SELECT s.id FROM evaluation_sources s WHERE s.crossing_id IS NOT NULL
  AND ($1 IS NULL OR s.team_id = $1) AND s.id > $2 ORDER BY s.id LIMIT $3) p`;

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

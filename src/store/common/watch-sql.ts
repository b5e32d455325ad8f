// The revision watch's queries, written once for both engines (positional parameters read alike).

/** Grades that end a watch: the reading (or a later read of its observation) is approved. */
const FINAL = "('approved', 'reviewed')";

/**
 * The watched readings of one page of evaluation links (so each page costs its size, not the whole table): $1 the team
 * (null for every team), $2 the last link id of the previous page, $3 the page size in links.
 */
export const WATCHED_SQL = `SELECT c.team_id, c.id AS crossing_id, c.tool, c.source, c.observed_at, c.observed_utc, c.value, c.unit,
  c.quality, c.flags, c.created_at FROM crossings c
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

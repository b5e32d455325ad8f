// Revised readings under released claims (claim_status): each link of a released evaluation's claim to the crossing it
// cites, where that crossing was revised since, with the revision and the reading the crossing now stands at. Both
// engines share the row shape, the matching rule and the walk to the current reading; each has its own SQL.
import type { Database } from "better-sqlite3";
import type { RevisedSource, RevisedSourceMatch } from "../model.js";
import { COLUMNS } from "../common/revision-rules.js";
import type { RawRevision } from "../common/revision-rules.js";
import type { RawRevisedSource } from "../common/revised-sources.js";
import { LINK_COLUMNS, REVISED_JOINS, REVISION_COLUMNS, revisedSourcesOf } from "../common/revised-sources.js";

/** The SQLite query: links of the team's released evaluations whose crossing was revised, matched by key or text. */
const SQLITE_QUERY = `SELECT ${REVISION_COLUMNS}, ${LINK_COLUMNS}
  ${REVISED_JOINS}
  WHERE s.team_id = @team AND s.crossing_id IS NOT NULL
    AND (rc.key IN (SELECT value FROM json_each(@keys))
      OR (s.claim_text <> '' AND EXISTS (SELECT 1 FROM json_each(@texts) t
        WHERE instr(lower(s.claim_text), lower(t.value)) > 0 OR instr(lower(t.value), lower(s.claim_text)) > 0)))
  ORDER BY r.detected_at DESC, r.id DESC, s.id
  LIMIT @limit`;

const SQLITE_LATEST_OF = `SELECT ${COLUMNS} FROM revisions WHERE before_crossing_id = ? AND team_id = ? ORDER BY id DESC LIMIT 1`;

/** The SQLite implementation of RevisionsRepo.revisedSources. */
export function sqliteRevisedSources(sqlite: Database) {
  const query = sqlite.prepare(SQLITE_QUERY);
  const latest = sqlite.prepare(SQLITE_LATEST_OF);
  return async (teamId: string, match: RevisedSourceMatch, limit: number): Promise<RevisedSource[]> => {
    if (match.keys.length === 0 && match.texts.length === 0) return [];
    const rows = query.all({
      team: teamId,
      keys: JSON.stringify(match.keys),
      texts: JSON.stringify(match.texts.filter((t) => t !== "")),
      limit,
    }) as RawRevisedSource[];
    return revisedSourcesOf(rows, (id) => (latest.get(id, teamId) as RawRevision | undefined) ?? null);
  };
}

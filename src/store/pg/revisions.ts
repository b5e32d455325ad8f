// Readings and their revisions on PostgreSQL: detection inside the later reading's transaction and the RevisionsRepo,
// with the same rules and messages as the SQLite RevisionStore (src/store/revisions.ts).
import type pg from "pg";
import type { Clock } from "../../clock.js";
import type { CrossingDraft } from "../../guard/verdict.js";
import { ConflictError, NotFoundError } from "../common/errors.js";
import type { RevisionsRepo } from "../port.js";
import { inTransaction, lockKey, type Q, queryOn } from "./tx.js";
import type { AffectedEvaluation, CrossingClaim, Revision } from "../model.js";
import {
  COLUMNS,
  declaredRevision,
  detectedRevision,
  isReading,
  observedUtc,
  revisionOf,
} from "../common/revision-rules.js";
import type { RawReading, RawRevision } from "../common/revision-rules.js";
import { LINK_COLUMNS, REVISED_JOINS, REVISION_COLUMNS, revisedSourcesOf } from "../common/revised-sources.js";
import type { RawRevisedSource } from "../common/revised-sources.js";
import { pgAppend } from "./chain-append.js";

const LATEST_READING = `SELECT id, session_id, value, unit, quality, observed_at, flags FROM crossings
  WHERE team_id = $1 AND source = $2 AND observed_utc = $3 AND source IS NOT NULL AND observed_utc IS NOT NULL
  AND id < $4 AND direction = 'return' AND value IS NOT NULL AND unit IS NOT NULL AND outcome <> 'refused'
  ORDER BY id DESC LIMIT 1`;
const INSERT = `INSERT INTO revisions (team_id, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
  $15, $16, $17, $18)`;
const GET = `SELECT ${COLUMNS} FROM revisions WHERE team_id = $1 AND id = $2`;
const LIST = `SELECT ${COLUMNS} FROM revisions WHERE team_id = $1
  AND ($2::text IS NULL OR source = $2) AND ($3::text IS NULL OR detected_at >= $3)
  AND ($4::text IS NULL OR (detected_at, id) < ($4, $5::text))
  ORDER BY detected_at DESC, id DESC LIMIT $6`;
const AFFECTED = `SELECT s.run_id AS evaluation_id, s.task, s.claim_id FROM evaluation_sources s
  WHERE s.team_id = $1 AND s.crossing_id = $2 ORDER BY s.id`;
const CLAIMS_OF = `SELECT s.id, s.run_id AS evaluation_id, s.task, s.claim_id, s.claim_text, s.locator, s.status,
  s.run_index AS run, s.created_at FROM evaluation_sources s WHERE s.team_id = $1 AND s.crossing_id = $2 AND s.id > $3
  ORDER BY s.id LIMIT $4`;
const CROSSING = `SELECT id, session_id, direction, value, unit, quality, source, observed_at, outcome FROM crossings
  WHERE id = $1 AND team_id = $2`;
const LATEST_OF = `SELECT ${COLUMNS} FROM revisions WHERE before_crossing_id = $1 AND team_id = $2 ORDER BY id DESC LIMIT 1`;
/** As the SQLite query (src/store/revised-sources.ts): released links to revised crossings, matched by key or text. */
const REVISED_SOURCES = `SELECT ${REVISION_COLUMNS}, ${LINK_COLUMNS}
  ${REVISED_JOINS}
  WHERE s.team_id = $1 AND s.crossing_id IS NOT NULL
    AND (rc.key = ANY($2::text[])
      OR (s.claim_text <> '' AND EXISTS (SELECT 1 FROM unnest($3::text[]) t(v)
        WHERE strpos(lower(s.claim_text), lower(t.v)) > 0 OR strpos(lower(t.v), lower(s.claim_text)) > 0)))
  ORDER BY r.detected_at DESC, r.id DESC, s.id
  LIMIT $4`;
/** Writes readings' flags: the crossing insert leaves them out, as a result with readings always comes this way. */
const SET_FLAGS = `UPDATE crossings SET flags = x.flags FROM unnest($1::bigint[], $2::text[]) AS x(id, flags)
  WHERE crossings.id = x.id`;
/** The ids of a call's last `n` crossings: the ones its result just wrote. */
const RESULT_IDS = "SELECT id FROM crossings WHERE call_id = $1 AND team_id = $2 ORDER BY id DESC LIMIT $3";

const ORDER: readonly (keyof RawRevision)[] = [
  "id",
  "kind",
  "source",
  "observed_at",
  "reason",
  "revised_by",
  "before_crossing_id",
  "before_session_id",
  "before_value",
  "before_unit",
  "before_quality",
  "after_crossing_id",
  "after_session_id",
  "after_value",
  "after_unit",
  "after_quality",
  "detected_at",
];

const numbered = (r: RawRevision): RawRevision => ({
  ...r,
  before_crossing_id: Number(r.before_crossing_id),
  after_crossing_id: r.after_crossing_id === null ? null : Number(r.after_crossing_id),
});

async function insert(q: Q, teamId: string, row: RawRevision): Promise<void> {
  await q(INSERT, [teamId, ...ORDER.map((k) => row[k])]);
  await pgAppend(q, teamId, [["revisions", row.id]]);
}

async function revisionWith(q: Q, teamId: string, raw: RawRevision): Promise<Revision> {
  const r = numbered(raw);
  return revisionOf(r, await q<AffectedEvaluation>(AFFECTED, [teamId, r.before_crossing_id]));
}

/** The ids of a just-stored result's crossings, in the order of its drafts. */
async function readingIds(q: Q, teamId: string, callId: string, drafts: readonly CrossingDraft[]): Promise<number[]> {
  return (await q<{ id: number }>(RESULT_IDS, [callId, teamId, drafts.length])).map((r) => Number(r.id)).reverse();
}

/** Writes a just-stored result's readings' flags (the crossing insert leaves them out), before the rows are chained. */
export async function setReadingFlags(
  q: Q,
  teamId: string,
  callId: string,
  drafts: readonly CrossingDraft[],
): Promise<void> {
  if (!drafts.some((c) => isReading(c) && c.flags != null)) return;
  const ids = await readingIds(q, teamId, callId, drafts);
  const flagged = drafts.flatMap((c, i) => (isReading(c) && c.flags != null && ids[i] !== undefined ? [i] : []));
  if (flagged.length) await q(SET_FLAGS, [flagged.map((i) => ids[i]), flagged.map((i) => drafts[i]!.flags)]);
}

/**
 * Records the revisions a just-stored result's readings make, in its transaction: each reading that re-reads an earlier
 * reading of the team's (same source, same observation instant) with another value or quality. Costs nothing for a
 * result without readings.
 */
export async function detectRevisions(
  q: Q,
  teamId: string,
  sessionId: string,
  callId: string,
  tool: string,
  drafts: readonly CrossingDraft[],
  at: string,
): Promise<void> {
  if (!drafts.some(isReading)) return;
  const ids = await readingIds(q, teamId, callId, drafts);
  for (const [i, c] of drafts.entries()) {
    const id = ids[i];
    if (id === undefined || !isReading(c)) continue;
    const key = observedUtc(c.observedAt);
    if (key === null || c.value === null || c.unit === null) continue;
    const [prior] = await q<RawReading>(LATEST_READING, [teamId, c.source, key, id]);
    if (!prior) continue;
    const row = detectedRevision(prior, c, { crossingId: id, sessionId, tool, at });
    if (row) await insert(q, teamId, row);
  }
}

type RawCrossing = RawReading & {
  direction: string;
  source: string | null;
  outcome: string;
  value: number | null;
  unit: string | null;
};

/** The RevisionsRepo over the pool. */
export function pgRevisions(pool: pg.Pool, clock: Clock): RevisionsRepo {
  const q = queryOn(pool);
  return {
    declare: (teamId, crossingId, input) =>
      inTransaction(pool, async (tq) => {
        // One declaration per crossing at a time, so "already stands at" is decided over the latest revision.
        await tq("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("revise", teamId, String(crossingId))]);
        const [c] = await tq<RawCrossing>(CROSSING, [crossingId, teamId]);
        if (!c) throw new NotFoundError(`no crossing '${crossingId}'`);
        if (c.direction !== "return" || c.value === null || c.unit === null || c.outcome === "refused") {
          throw new ConflictError(
            `crossing ${crossingId} is not a stored return value with a unit, so it cannot be revised; revise the crossing of the tool's result`,
          );
        }
        const [latest] = await tq<RawRevision>(LATEST_OF, [crossingId, teamId]);
        const row = declaredRevision(
          crossingId,
          { ...c, id: Number(c.id), value: c.value, unit: c.unit },
          latest,
          input,
          clock.now(),
        );
        await insert(tq, teamId, row);
        return revisionWith(tq, teamId, row);
      }),
    get: async (teamId, id) => {
      const [r] = await q<RawRevision>(GET, [teamId, id]);
      if (!r) throw new NotFoundError(`no revision '${id}'`);
      return revisionWith(q, teamId, r);
    },
    list: async (teamId, filter) => {
      const rows = await q<RawRevision>(LIST, [
        teamId,
        filter.source ?? null,
        filter.since ?? null,
        filter.before?.[0] ?? null,
        filter.before?.[1] ?? null,
        filter.limit + 1,
      ]);
      const items: Revision[] = [];
      for (const r of rows.slice(0, filter.limit)) items.push(await revisionWith(q, teamId, r));
      const last = items[items.length - 1];
      return { items, next_cursor: rows.length > filter.limit && last ? ([last.detected_at, last.id] as const) : null };
    },
    claimsOf: async (teamId, crossingId, page) => {
      if ((await q(CROSSING, [crossingId, teamId])).length === 0)
        throw new NotFoundError(`no crossing '${crossingId}'`);
      const rows = await q<CrossingClaim & { id: number }>(CLAIMS_OF, [
        teamId,
        crossingId,
        page.after ?? 0,
        page.limit + 1,
      ]);
      const items = rows.slice(0, page.limit).map(({ id: _id, ...c }) => c);
      const last = rows[page.limit - 1];
      return { items, next_cursor: rows.length > page.limit && last ? Number(last.id) : null };
    },
    revisedSources: async (teamId, match, limit) => {
      if (match.keys.length === 0 && match.texts.length === 0) return [];
      const rows = await q<RawRevisedSource>(REVISED_SOURCES, [
        teamId,
        [...match.keys],
        match.texts.filter((t) => t !== ""),
        limit,
      ]);
      return revisedSourcesOf(rows, async (id) => (await q<RawRevision>(LATEST_OF, [id, teamId]))[0] ?? null);
    },
  };
}

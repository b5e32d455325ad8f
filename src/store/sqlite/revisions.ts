// Readings and their revisions: detection inside the later reading's transaction, declared revisions, and listing with
// the released evaluations each revision affects.
import type { Database, Statement } from "better-sqlite3";
import type { CrossingDraft } from "../../guard/verdict.js";
import { ConflictError, NotFoundError } from "../common/errors.js";
import type { AffectedEvaluation, CrossingClaim, Revision } from "../model.js";
import type { RawReading, RawRevision } from "../common/revision-rules.js";
import { COLUMNS, declaredRevision, detectedRevision, observedUtc, revisionOf } from "../common/revision-rules.js";
import { sqliteChain } from "./chain.js";

/** Repository of revisions and of the evaluation-source links they affect. Every method is scoped to a team. */
export class RevisionStore {
  private readonly s: Record<string, Statement>;

  constructor(private readonly sqlite: Database) {
    const p = (sql: string) => sqlite.prepare(sql);
    this.s = {
      // The latest earlier reading of (source, instant): crossings_team_reading_idx, newest first.
      latestReading: p(`SELECT id, session_id, value, unit, quality, observed_at, flags FROM crossings
        WHERE team_id = ? AND source = ? AND observed_utc = ? AND source IS NOT NULL AND observed_utc IS NOT NULL
        AND id < ? AND direction = 'return' AND value IS NOT NULL AND unit IS NOT NULL AND outcome != 'refused'
        ORDER BY id DESC LIMIT 1`),
      insert:
        p(`INSERT INTO revisions (team_id, ${COLUMNS}) VALUES (@team_id, @id, @kind, @source, @observed_at, @reason, @revised_by,
        @before_crossing_id, @before_session_id, @before_value, @before_unit, @before_quality, @after_crossing_id,
        @after_session_id, @after_value, @after_unit, @after_quality, @detected_at)`),
      get: p(`SELECT ${COLUMNS} FROM revisions WHERE team_id = ? AND id = ?`),
      list: p(`SELECT ${COLUMNS} FROM revisions WHERE team_id = @team
        AND (@source IS NULL OR source = @source) AND (@since IS NULL OR detected_at >= @since)
        AND (@before_at IS NULL OR (detected_at, id) < (@before_at, @before_id))
        ORDER BY detected_at DESC, id DESC LIMIT @limit`),
      affected: p(`SELECT s.run_id AS evaluation_id, s.task, s.claim_id FROM evaluation_sources s
        WHERE s.team_id = ? AND s.crossing_id = ? ORDER BY s.id`),
      claimsOf:
        p(`SELECT s.id, s.run_id AS evaluation_id, s.task, s.claim_id, s.claim_text, s.locator, s.status, s.run_index AS run,
        s.created_at FROM evaluation_sources s WHERE s.team_id = ? AND s.crossing_id = ? AND s.id > ? ORDER BY s.id LIMIT ?`),
      crossing: p(`SELECT id, session_id, direction, value, unit, quality, source, observed_at, outcome FROM crossings
        WHERE id = ? AND team_id = ?`),
      // The last revision of a crossing: revisions_before_idx.
      latestOf: p(
        `SELECT ${COLUMNS} FROM revisions WHERE before_crossing_id = ? AND team_id = ? ORDER BY id DESC LIMIT 1`,
      ),
    };
  }

  /**
   * Records a revision when a just-inserted reading (crossing `id`) re-reads an earlier reading of the same source and
   * observation time with another value or quality. Runs inside the caller's transaction; the caller only calls it for a
   * reading (`isReading`), so a result that is not one costs nothing here.
   */
  detect(teamId: string, sessionId: string, id: number, tool: string, c: CrossingDraft, at: string): Revision | null {
    const key = observedUtc(c.observedAt);
    if (key === null || c.value === null || c.unit === null) return null;
    const prior = this.s.latestReading!.get(teamId, c.source, key, id) as RawReading | undefined;
    if (!prior) return null;
    const row = detectedRevision(prior, c, { crossingId: id, sessionId, tool, at });
    if (!row) return null;
    this.s.insert!.run({ ...row, team_id: teamId });
    sqliteChain(this.sqlite).append(teamId, "revisions", [row.id]);
    return this.toRevision(teamId, row);
  }

  /** Declares a revision of a stored return value that no tool will re-read (`POST /v1/crossings/{id}/revise`). */
  declare(
    teamId: string,
    crossingId: number,
    input: { value: number; unit: string; quality?: string | null; reason: string; revised_by: string },
    now: Date,
  ): Revision {
    const c = this.s.crossing!.get(crossingId, teamId) as
      | (RawReading & {
          direction: string;
          source: string | null;
          outcome: string;
          value: number | null;
          unit: string | null;
        })
      | undefined;
    if (!c) throw new NotFoundError(`no crossing '${crossingId}'`);
    if (c.direction !== "return" || c.value === null || c.unit === null || c.outcome === "refused") {
      throw new ConflictError(
        `crossing ${crossingId} is not a stored return value with a unit, so it cannot be revised; revise the crossing of the tool's result`,
      );
    }
    const row = declaredRevision(crossingId, c, this.latestOf(teamId, crossingId), input, now);
    this.s.insert!.run({ ...row, team_id: teamId });
    sqliteChain(this.sqlite).append(teamId, "revisions", [row.id]);
    return this.toRevision(teamId, row);
  }

  /** One revision, or 404. */
  get(teamId: string, id: string): Revision {
    const r = this.s.get!.get(teamId, id) as RawRevision | undefined;
    if (!r) throw new NotFoundError(`no revision '${id}'`);
    return this.toRevision(teamId, r);
  }

  /** A page of revisions, newest first. */
  list(
    teamId: string,
    filter: { source?: string; since?: string; limit: number; before?: readonly [string, string] | null },
  ): { items: Revision[]; next_cursor: readonly [string, string] | null } {
    const rows = this.s.list!.all({
      team: teamId,
      source: filter.source ?? null,
      since: filter.since ?? null,
      before_at: filter.before?.[0] ?? null,
      before_id: filter.before?.[1] ?? null,
      limit: filter.limit + 1,
    }) as RawRevision[];
    const items = rows.slice(0, filter.limit).map((r) => this.toRevision(teamId, r));
    const last = items[items.length - 1];
    return { items, next_cursor: rows.length > filter.limit && last ? [last.detected_at, last.id] : null };
  }

  /** The last revision recorded against a crossing, or null. */
  latestOf(teamId: string, crossingId: number): RawRevision | null {
    return (this.s.latestOf!.get(crossingId, teamId) as RawRevision | undefined) ?? null;
  }

  /** The released evaluations and claims that rest on a crossing, oldest first, a page at a time; 404 for none of the team's. */
  claimsOf(
    teamId: string,
    crossingId: number,
    page: { limit: number; after?: number | null } = { limit: 500 },
  ): { items: CrossingClaim[]; next_cursor: number | null } {
    if (!this.s.crossing!.get(crossingId, teamId)) throw new NotFoundError(`no crossing '${crossingId}'`);
    const rows = this.s.claimsOf!.all(teamId, crossingId, page.after ?? 0, page.limit + 1) as (CrossingClaim & {
      id: number;
    })[];
    const items = rows.slice(0, page.limit).map(({ id: _id, ...c }) => c);
    const last = rows[page.limit - 1];
    return { items, next_cursor: rows.length > page.limit && last ? last.id : null };
  }

  private toRevision(teamId: string, r: RawRevision): Revision {
    return revisionOf(r, this.s.affected!.all(teamId, r.before_crossing_id) as AffectedEvaluation[]);
  }
}

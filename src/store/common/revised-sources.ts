// Released claims resting on revised readings: the columns, joins and the walk to the current reading, both engines.
import { COLUMNS } from "./revision-rules.js";
import type { CurrentReading } from "../model.js";
import type { RevisedSource } from "../model.js";
import { differs } from "./revision-rules.js";
import { revisionOf } from "./revision-rules.js";
import type { RawRevision } from "./revision-rules.js";

/** A joined row: the revision's columns, then the link's. */
export type RawRevisedSource = RawRevision & {
  evaluation_id: string;
  task: string | null;
  claim_id: string | null;
  claim_text: string;
  run: number;
  claim_key: string | null;
  claim_value: string | null;
  link_crossing_id: number;
  link_value: number | null;
  link_unit: string | null;
  link_quality: string | null;
};

/** The revision columns, qualified by the `r.` alias of a join. */
export const REVISION_COLUMNS = COLUMNS.split(",")
  .map((c) => `r.${c.trim()}`)
  .join(", ");

/** The link columns every engine selects after the revision's. */
export const LINK_COLUMNS = `s.run_id AS evaluation_id, s.task, s.claim_id, s.claim_text, s.run_index AS run,
  rc.key AS claim_key, rc.value AS claim_value, s.crossing_id AS link_crossing_id, s.value AS link_value,
  s.unit AS link_unit, s.quality AS link_quality`;

/**
 * The joins and the revision condition both engines share: a revision of the cited crossing itself, or of a later
 * reading of the same observation (same source and instant) by the team; an earlier reading's revision is older news the
 * evaluation already weighed.
 */
export const REVISED_JOINS = `FROM evaluation_sources s
  JOIN crossings c ON c.id = s.crossing_id AND c.team_id = s.team_id
  JOIN revisions r ON r.team_id = s.team_id AND r.before_crossing_id IN (
    SELECT c.id UNION ALL SELECT rb.id FROM crossings rb WHERE rb.team_id = c.team_id AND rb.source = c.source
      AND rb.observed_utc = c.observed_utc AND rb.source IS NOT NULL AND rb.observed_utc IS NOT NULL AND rb.id > c.id)
  LEFT JOIN run_claims rc ON rc.team_id = s.team_id AND rc.run_id = s.run_id AND rc.run_index = s.run_index
    AND rc.claim_id = s.claim_id`;

// A revision chain longer than this is treated as a loop in the data rather than walked on.
const MAX_HOPS = 50;

/**
 * The reading a crossing stands at after its revisions: the latest revision of the crossing gives the value; when a
 * later reading (another crossing) holds it, that crossing's own revisions are followed in turn.
 */
export async function currentReading(
  start: RawRevision,
  latestOf: (crossingId: number) => RawRevision | null | Promise<RawRevision | null>,
): Promise<CurrentReading> {
  let crossing = Number(start.before_crossing_id);
  let last: RawRevision | null = null;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const latest = await latestOf(crossing);
    if (!latest) break;
    last = latest;
    // A declared revision keeps the value on the crossing itself: nothing later to follow.
    if (latest.after_crossing_id === null) break;
    crossing = Number(latest.after_crossing_id);
  }
  const r = last ?? start;
  return {
    crossing_id: r.after_crossing_id === null ? Number(r.before_crossing_id) : Number(r.after_crossing_id),
    value: r.after_value,
    unit: r.after_unit,
    quality: r.after_quality,
  };
}

const parseJson = (text: string | null): unknown => {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * The rows as the port answers them: per link (evaluation, run, claim, cited crossing) its newest revision only (rows
 * come newest first), with the reading it stands at now; a link whose reading came back to the cited value is dropped.
 */
export async function revisedSourcesOf(
  rows: readonly RawRevisedSource[],
  latestOf: (crossingId: number) => RawRevision | null | Promise<RawRevision | null>,
): Promise<RevisedSource[]> {
  const seen = new Set<string>();
  const out: RevisedSource[] = [];
  for (const row of rows) {
    const link = JSON.stringify([row.evaluation_id, row.run, row.claim_id, Number(row.link_crossing_id)]);
    if (seen.has(link)) continue;
    seen.add(link);
    const r = await revisedSourceOf(row, latestOf);
    const was = r.link.reading;
    const same =
      was.value !== null &&
      was.unit !== null &&
      differs({ value: was.value, unit: was.unit }, r.current) === false &&
      was.quality === r.current.quality;
    if (!same) out.push(r);
  }
  return out;
}

/** A joined row as the port answers it, with its current reading. */
export async function revisedSourceOf(
  row: RawRevisedSource,
  latestOf: (crossingId: number) => RawRevision | null | Promise<RawRevision | null>,
): Promise<RevisedSource> {
  const raw: RawRevision = {
    ...row,
    before_crossing_id: Number(row.before_crossing_id),
    after_crossing_id: row.after_crossing_id === null ? null : Number(row.after_crossing_id),
  };
  const { affected: _affected, ...revision } = revisionOf(raw, []);
  return {
    revision,
    link: {
      evaluation_id: row.evaluation_id,
      task: row.task,
      claim_id: row.claim_id,
      claim_text: row.claim_text,
      run: Number(row.run),
      key: row.claim_key,
      value: parseJson(row.claim_value),
      crossing_id: Number(row.link_crossing_id),
      reading: { value: row.link_value, unit: row.link_unit, quality: row.link_quality },
    },
    current: await currentReading(raw, latestOf),
  };
}

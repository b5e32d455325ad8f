// Readings and revisions, the rules both engines apply: what is a reading, when two differ, a revision's row.
import type { AffectedEvaluation } from "../model.js";
import { ConflictError } from "./errors.js";
import type { CrossingDraft } from "../../guard/verdict.js";
import { DEFAULT_QUALITY, flagsWords } from "../../quantity/quality.js";
import { DimensionalityError } from "../../quantity/errors.js";
import { REVISION_TOLERANCE } from "../../gates/ledger-evidence.js";
import type { Revision } from "../model.js";
import { canonicalUnit } from "../../quantity/units.js";
import { newId } from "./ids.js";
import { tryConvert } from "../../quantity/units.js";
import { DateTime } from "luxon";

export type RawRevision = {
  id: string;
  kind: "detected" | "declared";
  source: string | null;
  observed_at: string | null;
  reason: string;
  revised_by: string;
  before_crossing_id: number;
  before_session_id: string;
  before_value: number;
  before_unit: string;
  before_quality: string | null;
  after_crossing_id: number | null;
  after_session_id: string | null;
  after_value: number;
  after_unit: string;
  after_quality: string | null;
  detected_at: string;
};

export type RawReading = {
  id: number;
  session_id: string;
  value: number;
  unit: string;
  quality: string | null;
  observed_at: string;
  /** Stored flags text (flagsKey), null for a row from before flags were kept; absent where not selected. */
  flags?: string | null;
};

/** The observation instant in UTC (ms), the key two spellings of one time share; null when it does not parse. */
export function observedUtc(observedAt: string | null): string | null {
  if (observedAt === null) return null;
  const dt = DateTime.fromISO(observedAt, { setZone: true });
  return dt.isValid ? dt.toUTC().toISO() : null;
}

/** True when a crossing draft is a reading: a usable scalar return with a source and an observation time. */
export function isReading(c: CrossingDraft): boolean {
  return (
    c.direction === "return" &&
    c.source !== null &&
    c.observedAt !== null &&
    c.value !== null &&
    c.unit !== null &&
    c.outcome !== "refused"
  );
}

/** True when `after` is another value than `before` (relative difference over 1e-9 in the earlier unit). */
export function differs(
  before: { value: number; unit: string },
  after: { value: number; unit: string },
): boolean | null {
  const v = tryConvert(after.value, after.unit, before.unit);
  if (v === null) return null;
  if (before.value === 0) return v !== 0;
  return Math.abs(v - before.value) / Math.abs(before.value) > REVISION_TOLERANCE;
}

/**
 * The words a revision's reason adds when a re-read changes a reading's qualifier flags, or null when it does not. An
 * unknown side (a row stored before flags were kept, or a quantity that stated none) changes nothing: else every old
 * reading would look revised the first time it is read again.
 */
export function flagsChange(before: string | null | undefined, after: string | null | undefined): string | null {
  if (before === null || before === undefined || after === null || after === undefined || before === after) return null;
  return `; its qualifier flags changed from ${flagsWords(before)} to ${flagsWords(after)}`;
}

/** A reading as text: value, unit and quality. */
export const fmt = (v: number, unit: string, q: string | null) => `${v} ${unit}${q ? ` (${q})` : ""}`;

/** The revisions columns every read selects. */
export const COLUMNS = `id, kind, source, observed_at, reason, revised_by, before_crossing_id, before_session_id, before_value, before_unit,
  before_quality, after_crossing_id, after_session_id, after_value, after_unit, after_quality, detected_at`;

/** A stored revision row as the API answers it, with the evaluation links of its earlier crossing. */
export function revisionOf(r: RawRevision, affected: AffectedEvaluation[]): Revision {
  return {
    id: r.id,
    kind: r.kind,
    source: r.source,
    observed_at: r.observed_at,
    reason: r.reason,
    revised_by: r.revised_by,
    detected_at: r.detected_at,
    before: {
      crossing_id: r.before_crossing_id,
      session_id: r.before_session_id,
      value: r.before_value,
      unit: r.before_unit,
      quality: r.before_quality,
    },
    after: {
      crossing_id: r.after_crossing_id,
      session_id: r.after_session_id,
      value: r.after_value,
      unit: r.after_unit,
      quality: r.after_quality,
    },
    affected: distinct(affected),
  };
}

/** One entry per evaluation and claim (repeated runs of one evaluation link the same claim once each), in link order. */
function distinct(rows: AffectedEvaluation[]): AffectedEvaluation[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = JSON.stringify([r.evaluation_id, r.claim_id]);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A stored crossing as both engines read it before declaring a revision on it. */
export type RevisableCrossing = {
  id: number;
  session_id: string;
  value: number;
  unit: string;
  quality: string | null;
  source: string | null;
  observed_at: string | null;
};

/** The row a declared revision writes, after the checks both engines share (422 across dimensions, 409 no change). */
export function declaredRevision(
  crossingId: number,
  c: RevisableCrossing,
  latest: RawRevision | null | undefined,
  input: { value: number; unit: string; quality?: string | null; reason: string; revised_by: string },
  now: Date,
): RawRevision {
  const unit = canonicalUnit(input.unit);
  const quality = DEFAULT_QUALITY.normalise(input.quality ?? null);
  if (differs({ value: c.value, unit: c.unit }, { value: input.value, unit }) === null) {
    throw new DimensionalityError(
      `cannot revise crossing ${crossingId} (${c.value} ${c.unit}) to ${input.value} ${input.unit}: ` +
        `the units measure different things; send the value in ${c.unit} or a unit that converts to it`,
    );
  }
  const current = latest
    ? { value: latest.after_value, unit: latest.after_unit, quality: latest.after_quality }
    : { value: c.value, unit: c.unit, quality: c.quality };
  if (differs(current, { value: input.value, unit }) === false && current.quality === quality) {
    throw new ConflictError(
      `crossing ${crossingId} already stands at ${fmt(current.value, current.unit, current.quality)}; ` +
        "a revision must change the value or the quality",
    );
  }
  return {
    id: newId(now.getTime()),
    kind: "declared",
    source: c.source,
    observed_at: c.observed_at,
    reason: input.reason,
    revised_by: input.revised_by,
    before_crossing_id: c.id,
    before_session_id: c.session_id,
    before_value: c.value,
    before_unit: c.unit,
    before_quality: c.quality,
    after_crossing_id: null,
    after_session_id: null,
    after_value: input.value,
    after_unit: unit,
    after_quality: quality,
    detected_at: now.toISOString(),
  };
}

/**
 * The row a re-read writes when it revises `prior` (the latest earlier reading of its source and instant), or null when
 * the value, quality and flags agree or the units measure different things.
 */
export function detectedRevision(
  prior: RawReading,
  c: CrossingDraft,
  read: { crossingId: number; sessionId: string; tool: string; at: string },
): RawRevision | null {
  if (c.value === null || c.unit === null) return null;
  const changed = differs(prior, { value: c.value, unit: c.unit });
  if (changed === null) return null;
  const flags = flagsChange(prior.flags, c.flags);
  if (!changed && prior.quality === c.quality && flags === null) return null;
  return {
    id: newId(Date.parse(read.at)),
    kind: "detected",
    source: c.source,
    observed_at: c.observedAt,
    reason:
      `${read.tool} read ${c.source} observed ${c.observedAt} again and returned ${fmt(c.value, c.unit, c.quality)}, ` +
      `where crossing ${prior.id} holds ${fmt(prior.value, prior.unit, prior.quality)}${flags ?? ""}`,
    revised_by: read.tool,
    // PostgreSQL answers a bigint id as text; the row holds it as a number on both engines.
    before_crossing_id: Number(prior.id),
    before_session_id: prior.session_id,
    before_value: prior.value,
    before_unit: prior.unit,
    before_quality: prior.quality,
    after_crossing_id: read.crossingId,
    after_session_id: read.sessionId,
    after_value: c.value,
    after_unit: c.unit,
    after_quality: c.quality,
    detected_at: read.at,
  };
}

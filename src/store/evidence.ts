// The EvidenceResolver port over SQLite for one team: the crossings a ledger locator names, with their revised state.
import type { Database, Statement } from "better-sqlite3";
import type { EvidenceResolver, LedgerCrossing, RevisedState, WellFormedLocator } from "../gates/ports.js";
import { tryConvert } from "../quantity/units.js";

type Statements = Record<"session" | "call" | "ofSession" | "ofCall" | "crossing" | "latestRevision", Statement>;

type RawCrossing = {
  id: number;
  session_id: string;
  call_id: string;
  seq: number;
  tool: string;
  param: string;
  value: number | null;
  unit: string;
  is_series: number;
  raw: string;
  quality: string | null;
  source: string | null;
  observed_at: string | null;
  revised: number;
};

type RawRevision = {
  id: string;
  after_crossing_id: number | null;
  after_value: number;
  after_unit: string;
  after_quality: string | null;
  detected_at: string;
};

// `revised` is one probe of revisions_before_idx per row, so only a crossing that was revised has its chain followed.
/** The crossing columns resolution reads, with whether the crossing was revised. */
export const COLUMNS = `id, session_id, call_id, seq, tool, param, value, unit, is_series, raw, quality, source, observed_at,
  EXISTS (SELECT 1 FROM revisions r WHERE r.before_crossing_id = crossings.id) AS revised`;
// A return a claim can rest on: numeric (a scalar or a series), with a unit, and not refused by the guard.
/** A usable return crossing. */
export const USABLE =
  "direction = 'return' AND unit IS NOT NULL AND (value IS NOT NULL OR is_series = 1) AND outcome != 'refused'";
/** How far a chain of revisions is followed (each link is one indexed look-up). */
export const MAX_CHAIN = 64;

const statements = new WeakMap<Database, Statements>();

function prepared(sqlite: Database): Statements {
  let s = statements.get(sqlite);
  if (!s) {
    const p = (sql: string) => sqlite.prepare(sql);
    s = {
      session: p("SELECT 1 FROM sessions WHERE id = ? AND team_id = ?"),
      call: p("SELECT 1 FROM calls WHERE session_id = ? AND seq = ? AND team_id = ?"),
      // crossings_session_seq_idx for both.
      ofSession: p(`SELECT ${COLUMNS} FROM crossings WHERE session_id = ? AND team_id = ? AND ${USABLE} ORDER BY id`),
      ofCall: p(
        `SELECT ${COLUMNS} FROM crossings WHERE session_id = ? AND seq = ? AND team_id = ? AND ${USABLE} ORDER BY id`,
      ),
      crossing: p(`SELECT ${COLUMNS}, (${USABLE}) AS usable FROM crossings WHERE id = ? AND team_id = ?`),
      latestRevision:
        p(`SELECT id, after_crossing_id, after_value, after_unit, after_quality, detected_at FROM revisions
        WHERE before_crossing_id = ? AND team_id = ? ORDER BY id DESC LIMIT 1`),
    };
    statements.set(sqlite, s);
  }
  return s;
}

/** A series as stored (the raw value as sent), in the crossing's unit; null when it cannot be read as one. */
export function seriesOf(raw: string, unit: string): (number | null)[] | null {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  let from = unit;
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const o = v as { value?: unknown; unit?: unknown };
    if (typeof o.unit === "string") from = o.unit;
    v = o.value;
  }
  if (!Array.isArray(v)) return null;
  return v.map((x) => (typeof x === "number" ? tryConvert(x, from, unit) : null));
}

/** Follows a crossing's revisions to their end: a detected revision's later reading may itself have been revised. */
function revisedState(s: Statements, teamId: string, crossingId: number): RevisedState | null {
  let state: RevisedState | null = null;
  let at: number | null = crossingId;
  for (let i = 0; at !== null && i < MAX_CHAIN; i++) {
    const r = s.latestRevision.get(at, teamId) as RawRevision | undefined;
    if (!r) break;
    state = {
      revision_id: r.id,
      value: r.after_value,
      unit: r.after_unit,
      quality: r.after_quality,
      detected_at: r.detected_at,
      crossing_id: r.after_crossing_id,
    };
    at = r.after_crossing_id;
  }
  return state;
}

function toLedger(s: Statements, teamId: string, r: RawCrossing): LedgerCrossing {
  const series = r.is_series === 1 ? seriesOf(r.raw, r.unit) : null;
  return {
    id: r.id,
    session_id: r.session_id,
    call_id: r.call_id,
    seq: r.seq,
    tool: r.tool,
    field: r.param,
    value: r.value,
    series,
    unit: r.unit,
    quality: r.quality,
    source: r.source,
    observed_at: r.observed_at,
    revised: r.value === null || r.revised === 0 ? null : revisedState(s, teamId, r.id),
  };
}

/** The EvidenceResolver port for one team; another team's id answers exactly as an unknown one (null). */
export function evidenceResolver(sqlite: Database, teamId: string): EvidenceResolver {
  const s = prepared(sqlite);
  const rows = (xs: unknown[]) => (xs as RawCrossing[]).map((r) => toLedger(s, teamId, r));
  return {
    scope(l: WellFormedLocator): LedgerCrossing[] | null {
      switch (l.kind) {
        case "session":
          return s.session.get(l.sessionId, teamId) ? rows(s.ofSession.all(l.sessionId, teamId)) : null;
        case "call":
          return s.call.get(l.sessionId, l.seq, teamId) ? rows(s.ofCall.all(l.sessionId, l.seq, teamId)) : null;
        case "crossing": {
          const r = s.crossing.get(l.crossingId, teamId) as (RawCrossing & { usable: number }) | undefined;
          if (!r) return null;
          return r.usable === 1 ? [toLedger(s, teamId, r)] : [];
        }
      }
    },
  };
}

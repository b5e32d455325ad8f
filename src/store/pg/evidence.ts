// Ledger locators resolved on PostgreSQL: the gates ask synchronously, so every locator an evaluation cites is fetched
// up front (the same queries as the SQLite resolver, team-scoped) and the gates read a memory resolver over the result.
import type { Result } from "../../gates/contracts.js";
import { evidenceLocators, memoryResolver } from "../../gates/ledger-evidence.js";
import type { EvidenceResolver, LedgerCrossing, RevisedState, WellFormedLocator } from "../../gates/ports.js";
import { MAX_CHAIN, seriesOf } from "../evidence.js";
import type { Q } from "./tx.js";

type RawCrossing = {
  id: number;
  session_id: string;
  call_id: string;
  seq: number;
  tool: string;
  param: string;
  value: number | null;
  unit: string;
  is_series: boolean;
  raw: string;
  quality: string | null;
  source: string | null;
  observed_at: string | null;
  revised: boolean;
};

const COLUMNS = `id, session_id, call_id, seq, tool, param, value, unit, is_series, raw, quality, source, observed_at,
  EXISTS (SELECT 1 FROM revisions r WHERE r.before_crossing_id = crossings.id) AS revised`;
const USABLE =
  "direction = 'return' AND unit IS NOT NULL AND (value IS NOT NULL OR is_series) AND outcome <> 'refused'";
const SESSION = "SELECT 1 FROM sessions WHERE id = $1 AND team_id = $2";
const CALL = "SELECT 1 FROM calls WHERE session_id = $1 AND seq = $2 AND team_id = $3";
const OF_SESSION = `SELECT ${COLUMNS} FROM crossings WHERE session_id = $1 AND team_id = $2 AND ${USABLE} ORDER BY id`;
const OF_CALL = `SELECT ${COLUMNS} FROM crossings WHERE session_id = $1 AND seq = $2 AND team_id = $3 AND ${USABLE} ORDER BY id`;
const CROSSING = `SELECT ${COLUMNS}, (${USABLE}) AS usable FROM crossings WHERE id = $1 AND team_id = $2`;
const LATEST_REVISION = `SELECT id, after_crossing_id, after_value, after_unit, after_quality, detected_at FROM revisions
  WHERE before_crossing_id = $1 AND team_id = $2 ORDER BY id DESC LIMIT 1`;

type RawRevision = {
  id: string;
  after_crossing_id: number | null;
  after_value: number;
  after_unit: string;
  after_quality: string | null;
  detected_at: string;
};

/** Follows a crossing's revisions to their end, as the SQLite resolver does. */
async function revisedState(q: Q, teamId: string, crossingId: number): Promise<RevisedState | null> {
  let state: RevisedState | null = null;
  let at: number | null = crossingId;
  for (let i = 0; at !== null && i < MAX_CHAIN; i++) {
    const [r]: RawRevision[] = await q<RawRevision>(LATEST_REVISION, [at, teamId]);
    if (!r) break;
    state = {
      revision_id: r.id,
      value: r.after_value,
      unit: r.after_unit,
      quality: r.after_quality,
      detected_at: r.detected_at,
      crossing_id: r.after_crossing_id === null ? null : Number(r.after_crossing_id),
    };
    at = state.crossing_id;
  }
  return state;
}

async function toLedger(q: Q, teamId: string, r: RawCrossing): Promise<LedgerCrossing> {
  return {
    id: Number(r.id),
    session_id: r.session_id,
    call_id: r.call_id,
    seq: r.seq,
    tool: r.tool,
    field: r.param,
    value: r.value,
    series: r.is_series ? seriesOf(r.raw, r.unit) : null,
    unit: r.unit,
    quality: r.quality,
    source: r.source,
    observed_at: r.observed_at,
    revised: r.value === null || !r.revised ? null : await revisedState(q, teamId, Number(r.id)),
  };
}

/** The crossings one locator names for the team, or null when it names nothing of the team's. */
async function scope(q: Q, teamId: string, l: WellFormedLocator): Promise<LedgerCrossing[] | null> {
  const rows = async (xs: RawCrossing[]) => {
    const out: LedgerCrossing[] = [];
    for (const x of xs) out.push(await toLedger(q, teamId, x));
    return out;
  };
  switch (l.kind) {
    case "session":
      return (await q(SESSION, [l.sessionId, teamId])).length > 0
        ? rows(await q<RawCrossing>(OF_SESSION, [l.sessionId, teamId]))
        : null;
    case "call":
      return (await q(CALL, [l.sessionId, l.seq, teamId])).length > 0
        ? rows(await q<RawCrossing>(OF_CALL, [l.sessionId, l.seq, teamId]))
        : null;
    case "crossing": {
      const [r] = await q<RawCrossing & { usable: boolean }>(CROSSING, [l.crossingId, teamId]);
      if (!r) return null;
      return r.usable ? [await toLedger(q, teamId, r)] : [];
    }
  }
}

/** A resolver over every locator the runs cite, fetched now in the caller's transaction. */
export async function pgEvidenceResolver(q: Q, teamId: string, runs: readonly Result[]): Promise<EvidenceResolver> {
  const scopes = new Map<string, LedgerCrossing[] | null>();
  for (const l of evidenceLocators(runs)) scopes.set(l.text, await scope(q, teamId, l));
  return memoryResolver(scopes);
}

// The guarded-call path on PostgreSQL. A call locks its session row (FOR UPDATE), reads the history the pure verdict
// needs, decides and writes in one transaction, so calls of one session get 1..n without gaps whichever instance
// serves them, and an output stored through one instance is history for the next call through any other.
import type { Clock } from "../../clock.js";
import { MemoryHistory, type PriorOutput } from "../../guard/history.js";
import { callOutcome, checkCall, checkResult } from "../../guard/verdict.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { newId } from "../ids.js";
import type { CallAnswer, ResultAnswer } from "../ledger.js";
import type { PgRegistryCache, PgToolCache } from "./registry.js";
import {
  CALL_COLUMNS,
  CROSSING_INSERT_COLUMNS,
  crossingArrays,
  crossingUnnest,
  type RawCall,
  type RawOutput,
  toCall,
  toOutput,
} from "./rows.js";
import { isReading } from "../revisions.js";
import { detectRevisions } from "./revisions.js";
import type { Q, TxQ } from "./tx.js";

const OUTPUTS = `SELECT id, call_id, seq, tool, param, value, unit, value_si, dimension, datum, quality FROM crossings
  WHERE session_id = $1 AND id > $2 AND direction = 'return' AND unit IS NOT NULL AND value IS NOT NULL AND outcome <> 'refused'
  ORDER BY id`;

// The session row locked, with the counters the call needs read in the same round trip.
const LOCK_FOR_CALL = `SELECT s.context, s.enforcement,
    (SELECT v.version FROM team_versions v WHERE v.team_id = $2 AND v.kind = 'registry') AS registry_version,
    (SELECT max(t.version) FROM tools t WHERE t.team_id = $2 AND t.name = $3) AS tool_version
  FROM sessions s WHERE s.id = $1 AND s.team_id = $2 FOR UPDATE OF s`;

const INSERT_CALL = `WITH s AS (
    UPDATE sessions SET call_count = call_count + 1, violation_count = violation_count + $3, blocked_count = blocked_count + $4
    WHERE id = $1 RETURNING call_count),
  c AS (
    INSERT INTO calls (id, team_id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, created_at)
    SELECT $5, $2, $1, s.call_count, $6, $7, $8, $9, $10, $11, $12 FROM s RETURNING seq),
  x AS (
    INSERT INTO crossings (team_id, session_id, call_id, seq, tool, ${CROSSING_INSERT_COLUMNS}, created_at)
    SELECT $2, $1, $5, c.seq, $6, ${CROSSING_INSERT_COLUMNS}, $12 FROM c, ${crossingUnnest(13)} ORDER BY x.n)
  SELECT seq FROM c`;

const LOCK_FOR_RESULT = `SELECT s.context, s.enforcement,
    (SELECT v.version FROM team_versions v WHERE v.team_id = $2 AND v.kind = 'registry') AS registry_version,
    ${CALL_COLUMNS.split(", ")
      .map((c) => `c.${c} AS c_${c}`)
      .join(", ")}
  FROM sessions s LEFT JOIN calls c ON c.id = $3 AND c.session_id = s.id AND c.team_id = s.team_id
  WHERE s.id = $1 AND s.team_id = $2 FOR UPDATE OF s`;

const INSERT_RESULT = `WITH u AS (
    UPDATE calls SET result_raw = $4, result_ok = $5, result_violations = $6, result_at = $7 WHERE id = $3 AND result_raw IS NULL
    RETURNING id, seq, tool),
  b AS (
    UPDATE sessions SET violation_count = violation_count + $8, blocked_count = blocked_count + $9
    WHERE id = $1 AND $8 > 0 AND EXISTS (SELECT 1 FROM u)),
  x AS (
    INSERT INTO crossings (team_id, session_id, call_id, seq, tool, ${CROSSING_INSERT_COLUMNS}, created_at)
    SELECT $2, $1, u.id, u.seq, u.tool, ${CROSSING_INSERT_COLUMNS}, $7 FROM u, ${crossingUnnest(10)} ORDER BY x.n)
  SELECT count(*)::int AS n FROM u`;

type Cached = { lastId: number; ids: number[]; outputs: PriorOutput[] };

/** One session's outputs as read in a transaction, and how to keep them once it commits. */
export type SessionOutputs = { outputs: PriorOutput[]; keep(): void };

/**
 * Sessions' outputs, cached per process and topped up by id. Every crossing of a session is written while its row is
 * locked, and identities only grow, so after the lock the rows with a larger id are exactly the ones not yet seen.
 */
export class OutputCache {
  private readonly bySession = new Map<string, Cached>();

  /** The session's outputs as committed before this transaction took the lock. */
  async read(q: Q, sessionId: string): Promise<SessionOutputs> {
    const hit = this.bySession.get(sessionId);
    const after = hit?.lastId ?? 0;
    const fresh = await q<RawOutput>(OUTPUTS, [sessionId, after]);
    if (fresh.length === 0) return { outputs: hit?.outputs ?? [], keep: () => {} };
    const outputs = [...(hit?.outputs ?? []), ...fresh.map(toOutput)];
    const ids = [...(hit?.ids ?? []), ...fresh.map((r) => r.id)];
    return {
      outputs,
      keep: () => {
        const now = this.bySession.get(sessionId);
        // Another call of this process may have stored a longer list meanwhile: keep the longest.
        if (now && now.lastId >= ids[ids.length - 1]!) return;
        if (this.bySession.size > 20_000) this.bySession.clear();
        this.bySession.set(sessionId, { lastId: ids[ids.length - 1]!, ids, outputs });
      },
    };
  }
}

/** What the call path shares with the rest of the store. */
export type CallDeps = { registries: PgRegistryCache; tools: PgToolCache; outputs: OutputCache };

type Locked = {
  context: string;
  enforcement: "enforce" | "warn";
  registry_version: number | null;
  tool_version: number | null;
};

/**
 * Checks and stores one call in the caller's transaction; `after` collects what to do once it commits. With `last`,
 * the write travels with the COMMIT (the call is the transaction's only work).
 */
export async function storeCall(
  q: TxQ,
  deps: CallDeps,
  clock: Clock,
  teamId: string,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
  after: (() => void)[],
  last = false,
): Promise<CallAnswer> {
  const [session] = await q<Locked>(LOCK_FOR_CALL, [sessionId, teamId, tool]);
  if (!session) throw new NotFoundError(`no session '${sessionId}'`);
  const datums = await deps.registries.at(q, teamId, session.registry_version ?? 0);
  const decl = await deps.tools.compiled(q, teamId, tool, session.tool_version, datums);
  const history = await deps.outputs.read(q, sessionId);
  const verdict = checkCall(decl, tool, args, {
    datums,
    enforcement: session.enforcement,
    history: new MemoryHistory(history.outputs),
    context: session.context,
  });
  const now = clock.now();
  const id = newId(now.getTime());
  const [row] = await (last ? q.final : q)<{ seq: number }>(INSERT_CALL, [
    sessionId,
    teamId,
    verdict.violations.length,
    verdict.wouldBlock ? 1 : 0,
    id,
    tool,
    decl?.version ?? null,
    verdict.guarded,
    JSON.stringify(args),
    verdict.ok,
    JSON.stringify(verdict.violations),
    now.toISOString(),
    ...crossingArrays(verdict.crossings),
  ]);
  after.push(history.keep);
  return {
    call_id: id,
    seq: row!.seq,
    ok: verdict.ok,
    guarded: verdict.guarded,
    would_block: verdict.wouldBlock,
    tool_version: decl?.version ?? null,
    outcome: callOutcome(verdict),
    args: verdict.args,
    violations: verdict.violations,
  };
}

/** Labels and stores a call's result in the caller's transaction (`last`: with the COMMIT); a second result is a ConflictError. */
export async function storeResult(
  q: TxQ,
  deps: CallDeps,
  clock: Clock,
  teamId: string,
  sessionId: string,
  callId: string,
  result: unknown,
  after: (() => void)[],
  last = false,
): Promise<ResultAnswer> {
  const [locked] = await q<Locked & Record<string, unknown>>(LOCK_FOR_RESULT, [sessionId, teamId, callId]);
  if (!locked) throw new NotFoundError(`no session '${sessionId}'`);
  if (locked.c_id === null) throw new NotFoundError(`no call '${callId}' in session '${sessionId}'`);
  const raw = Object.fromEntries(CALL_COLUMNS.split(", ").map((c) => [c, locked[`c_${c}`]])) as RawCall;
  const call = toCall(raw);
  if (call.resultRaw !== null || call.resultAt !== null)
    throw new ConflictError(`call '${callId}' already has a result; a result is stored once`);
  const datums = await deps.registries.at(q, teamId, locked.registry_version ?? 0);
  const decl = call.guarded ? await deps.tools.compiled(q, teamId, call.tool, call.toolVersion, datums) : null;
  const history = await deps.outputs.read(q, sessionId);
  const verdict = checkResult(decl, result, {
    datums,
    enforcement: locked.enforcement,
    history: new MemoryHistory(history.outputs),
    context: locked.context,
  });
  const at = clock.now().toISOString();
  // A result holding a reading is checked against earlier readings before the commit, so it cannot ride with COMMIT.
  const readings = verdict.crossings.some(isReading);
  await (last && !readings ? q.final : q)(INSERT_RESULT, [
    sessionId,
    teamId,
    callId,
    JSON.stringify(result ?? null),
    verdict.ok,
    JSON.stringify(verdict.violations),
    at,
    verdict.violations.length,
    verdict.wouldBlock && call.ok ? 1 : 0,
    ...crossingArrays(verdict.crossings),
  ]);
  if (readings) await detectRevisions(q, teamId, sessionId, callId, call.tool, verdict.crossings, at);
  after.push(history.keep);
  return { ok: verdict.ok, would_block: verdict.wouldBlock, result: verdict.result, violations: verdict.violations };
}

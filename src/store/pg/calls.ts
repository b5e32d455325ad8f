// The guarded-call path on PostgreSQL. A call locks its session row (FOR UPDATE), reads the history the pure verdict
// needs, decides and writes in one transaction, so calls of one session get 1..n without gaps whichever instance
// serves them, and an output stored through one instance is history for the next call through any other.
import type { UndeclaredTools } from "../../guard/verdict.js";
import type { CallOptions } from "../port.js";
import type { Clock } from "../../clock.js";
import { MemoryHistory, type PriorOutput } from "../../guard/history.js";
import {
  type CallVerdict,
  callOutcome,
  checkCall,
  checkResult,
  refusedVerdict,
  type ResultVerdict,
} from "../../guard/verdict.js";
import type { ToolDeclaration } from "../../guard/declaration.js";
import type { DatumRegistry } from "../../quantity/datums.js";
import { ConflictError, NotFoundError, refusedCallResult } from "../common/errors.js";
import { newId } from "../common/ids.js";
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
import { detectRevisions, setReadingFlags } from "./revisions.js";
import { isRetryable, type Q, type TxQ } from "./tx.js";
import { type KnownCall, OUTPUT_FILTER, type ReadOutputs, type SessionCache } from "./call-cache.js";
import { groupCalls, groupResults } from "./call-batch.js";
import { GroupCommit, SessionsInFlight } from "./group-commit.js";
import { crossingIdsOf, pgAppend } from "./chain-append.js";
import { chainSettings } from "../common/chain.js";
import { chained, type Wrote } from "./chain-groups.js";
import type pg from "pg";
import type { CallAnswer, ResultAnswer } from "../model.js";
import { isReading } from "../common/revision-rules.js";

// The session row locked, with the counters the call needs read in the same round trip.
const LOCK_FOR_CALL = `SELECT s.context, s.enforcement, s.write_count,
    (SELECT v.version FROM team_versions v WHERE v.team_id = $2 AND v.kind = 'registry') AS registry_version,
    (SELECT max(t.version) FROM tools t WHERE t.team_id = $2 AND t.name = $3) AS tool_version
  FROM sessions s WHERE s.id = $1 AND s.team_id = $2 FOR UPDATE OF s`;

/**
 * The call's rows, after the session's counters: $1 session, $2 team, $5 call id, $6 tool, $12 time, $13.. crossings,
 * and the tool digest at `$digest` (after the parameters each statement has of its own).
 */
const callRows = (digest: number) => `c AS (
    INSERT INTO calls (id, team_id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, created_at,
      tool_digest)
    SELECT $5, $2, $1, s.call_count, $6, $7, $8, $9, $10, $11, $12, $${digest}::text FROM s RETURNING seq),
  x AS (
    INSERT INTO crossings (team_id, session_id, call_id, seq, tool, ${CROSSING_INSERT_COLUMNS}, created_at)
    SELECT $2, $1, $5, c.seq, $6, ${CROSSING_INSERT_COLUMNS}, $12 FROM c, ${crossingUnnest(13)} ORDER BY x.n)
  SELECT c.seq, s.write_count FROM c, s`;

const COUNT_CALL = `call_count = call_count + 1, write_count = write_count + 1,
    violation_count = violation_count + $3, blocked_count = blocked_count + $4`;

const INSERT_CALL = `WITH s AS (UPDATE sessions SET ${COUNT_CALL} WHERE id = $1 RETURNING call_count, write_count),
  ${callRows(30)}`;

/**
 * A whole call in one autocommitted statement, decided on a remembered session: it writes only if the session, the
 * team's registry and the tool's latest version are still what the verdict was computed on ($30, $31, $32), so it
 * is exactly the write the locked path would have made; otherwise it writes nothing and answers no row.
 */
const REMEMBERED_CALL = `WITH s AS (UPDATE sessions SET ${COUNT_CALL}
    WHERE id = $1 AND team_id = $2 AND write_count = $30::int
      AND coalesce((SELECT v.version FROM team_versions v WHERE v.team_id = $2 AND v.kind = 'registry'), 0) = $31::int
      AND (SELECT max(t.version) FROM tools t WHERE t.team_id = $2 AND t.name = $6) IS NOT DISTINCT FROM $32::int
    RETURNING call_count, write_count),
  ${callRows(33)}`;

const LOCK_FOR_RESULT = `SELECT s.context, s.enforcement, s.write_count,
    (SELECT v.version FROM team_versions v WHERE v.team_id = $2 AND v.kind = 'registry') AS registry_version,
    ${CALL_COLUMNS.split(", ")
      .map((c) => `c.${c} AS c_${c}`)
      .join(", ")}
  FROM sessions s LEFT JOIN calls c ON c.id = $3 AND c.session_id = s.id AND c.team_id = s.team_id
  WHERE s.id = $1 AND s.team_id = $2 FOR UPDATE OF s`;

/** The result's rows once the session row is counted in `b`: the outputs it stored come back for the cache. */
const RESULT_ROWS = `u AS (
    UPDATE calls SET result_raw = $4, result_ok = $5, result_violations = $6, result_at = $7
    WHERE id = $3 AND result_raw IS NULL AND EXISTS (SELECT 1 FROM b) RETURNING id, seq, tool),
  x AS (
    INSERT INTO crossings (team_id, session_id, call_id, seq, tool, ${CROSSING_INSERT_COLUMNS}, created_at)
    SELECT $2, $1, u.id, u.seq, u.tool, ${CROSSING_INSERT_COLUMNS}, $7 FROM u, ${crossingUnnest(10)} ORDER BY x.n
    RETURNING id, call_id, seq, tool, param, value, unit, value_si, dimension, datum, quality, direction, outcome)
  SELECT (SELECT count(*)::int FROM u) AS n, (SELECT write_count FROM b) AS write_count,
    o.id, o.call_id, o.seq, o.tool, o.param, o.value, o.unit, o.value_si, o.dimension, o.datum, o.quality
  FROM (SELECT 1) AS one LEFT JOIN (SELECT * FROM x WHERE ${OUTPUT_FILTER}) AS o ON true ORDER BY o.id`;

const COUNT_RESULT =
  "write_count = write_count + 1, violation_count = violation_count + $8, blocked_count = blocked_count + $9";

// The session is counted only when the call is still unlabelled, so a second result changes nothing.
const INSERT_RESULT = `WITH b AS (
    UPDATE sessions SET ${COUNT_RESULT} WHERE id = $1
      AND EXISTS (SELECT 1 FROM calls WHERE id = $3 AND result_raw IS NULL) RETURNING write_count),
  ${RESULT_ROWS}`;

/** A result in one autocommitted statement on a remembered session and call (see REMEMBERED_CALL); $27, $28 the counts. */
const REMEMBERED_RESULT = `WITH b AS (
    UPDATE sessions SET ${COUNT_RESULT} WHERE id = $1 AND team_id = $2 AND write_count = $27::int
      AND coalesce((SELECT v.version FROM team_versions v WHERE v.team_id = $2 AND v.kind = 'registry'), 0) = $28::int
      AND EXISTS (SELECT 1 FROM calls WHERE id = $3 AND result_raw IS NULL) RETURNING write_count),
  ${RESULT_ROWS}`;

type CallRow = { seq: number; write_count: number };

/** The group commits of one store's one-statement calls and results, and the sessions they have in hand. */
export type CallGroups = {
  sessions: SessionsInFlight;
  calls: GroupCommit<unknown[], CallRow | undefined>;
  results: GroupCommit<unknown[], ResultRow[]>;
};

/** What the call path shares with the rest of the store (`groups`: group commit of the one-statement writes). */
export type CallDeps = {
  registries: PgRegistryCache;
  tools: PgToolCache;
  sessionCache: SessionCache;
  groups?: CallGroups;
  /** The pool, for the remembered writes' chained transactions (absent: they are not chained). */
  pool?: pg.Pool;
  /** Calls of undeclared tools: accepted unguarded (default) or refused. */
  undeclared?: UndeclaredTools;
};

/** Group commits whose lone writes go through `q` and whose groups go through `groupQ` (generic plans). */
export function callGroups(q: Q, groupQ: Q, pools?: { pool: pg.Pool; groupPool: pg.Pool }): CallGroups {
  const sessions = new SessionsInFlight();
  // With the chain on (and the pools given), each statement runs in a transaction that chains what it wrote.
  const on = <R>(pool: "pool" | "groupPool", bare: Q, run: (q: Q) => Promise<R>, wrote: (r: R) => Wrote[]) =>
    pools ? chained(pools[pool], bare, run, wrote) : run(bare);
  return {
    sessions,
    calls: new GroupCommit(
      {
        one: async (values) =>
          on(
            "pool",
            q,
            async (tq) => (await orRetry(tq<CallRow>(REMEMBERED_CALL, values)))[0],
            (r) => (r ? [wroteCall(values)] : []),
          ),
        many: (jobs) =>
          on(
            "groupPool",
            groupQ,
            (tq) => groupCalls(tq, jobs),
            (rows) => jobs.filter((_, i) => rows[i] !== undefined).map(wroteCall),
          ),
      },
      sessions,
    ),
    results: new GroupCommit(
      {
        one: (values) =>
          on(
            "pool",
            q,
            (tq) => orRetry(tq<ResultRow>(REMEMBERED_RESULT, values)),
            (rows) => (rows[0]?.n === 1 ? [wroteResult(values)] : []),
          ),
        many: (jobs) =>
          on(
            "groupPool",
            groupQ,
            (tq) => groupResults<ResultRow>(tq, jobs),
            (rows) => jobs.filter((_, i) => rows[i]?.[0]?.n === 1).map(wroteResult),
          ),
      },
      sessions,
    ),
  };
}

/** `chained` when the pool is known; else the bare statement. */
const chainedOn = <R>(pool: pg.Pool | undefined, q: Q, run: (q: Q) => Promise<R>, wrote: (r: R) => Wrote[]) =>
  pool ? chained(pool, q, run, wrote) : run(q);

/** What a remembered call's parameters wrote ($1 session, $2 team, $5 call id). */
const wroteCall = (v: unknown[]): Wrote => ({
  team: v[1] as string,
  session: v[0] as string,
  call: v[4] as string,
  kind: "calls",
});

/** What a remembered result's parameters wrote ($1 session, $2 team, $3 call id, crossings from $10). */
const wroteResult = (v: unknown[]): Wrote => ({
  team: v[1] as string,
  session: v[0] as string,
  call: v[2] as string,
  kind: "results",
  crossings: (v[9] as unknown[]).length,
});

type Locked = {
  context: string;
  enforcement: "enforce" | "warn";
  write_count: number;
  registry_version: number | null;
  tool_version: number | null;
};

type Decided = { verdict: CallVerdict; decl: ToolDeclaration | null; id: string; now: Date };

function decideCall(
  clock: Clock,
  tool: string,
  args: Record<string, unknown>,
  decl: ToolDeclaration | null,
  at: { datums: DatumRegistry; enforcement: "enforce" | "warn"; context: string; outputs: PriorOutput[] },
  undeclared: UndeclaredTools = "accept",
  options: CallOptions = {},
): Decided {
  const checked = checkCall(decl, tool, args, {
    datums: at.datums,
    enforcement: at.enforcement,
    history: new MemoryHistory(at.outputs),
    context: at.context,
    undeclared,
  });
  const verdict = options.refusal ? refusedVerdict(checked, options.refusal) : checked;
  const now = clock.now();
  return { verdict, decl, id: newId(now.getTime()), now };
}

/** The parameters of INSERT_CALL and REMEMBERED_CALL up to the crossings ($1..$29). */
function callValues(
  sessionId: string,
  teamId: string,
  tool: string,
  args: Record<string, unknown>,
  d: Decided,
): unknown[] {
  const { verdict } = d;
  return [
    sessionId,
    teamId,
    verdict.violations.length,
    verdict.wouldBlock ? 1 : 0,
    d.id,
    tool,
    d.decl?.version ?? null,
    verdict.guarded,
    JSON.stringify(args),
    verdict.ok,
    JSON.stringify(verdict.violations),
    d.now.toISOString(),
    ...crossingArrays(verdict.crossings),
  ];
}

function callAnswer(d: Decided, seq: number): CallAnswer {
  const { verdict } = d;
  return {
    call_id: d.id,
    seq,
    ok: verdict.ok,
    guarded: verdict.guarded,
    would_block: verdict.wouldBlock,
    tool_version: d.decl?.version ?? null,
    outcome: callOutcome(verdict),
    args: verdict.args,
    violations: verdict.violations,
  };
}

const knownCall = (d: Decided, seq: number, tool: string): KnownCall => ({
  seq,
  tool,
  toolVersion: d.decl?.version ?? null,
  guarded: d.verdict.guarded,
  ok: d.verdict.ok,
  hasResult: false,
});

/**
 * The rows of a one-statement write, or none when it lost a serialization race (40001, 40P01: a SERIALIZABLE engine
 * such as CockroachDB reports the concurrent write that READ COMMITTED answers with no row), so the caller falls back
 * to the locked transaction, which is retried.
 */
async function orRetry<R>(rows: Promise<R[]>): Promise<R[]> {
  try {
    return await rows;
  } catch (e) {
    if (isRetryable(e)) return [];
    throw e;
  }
}

/**
 * A call decided on the session this instance remembers and written in one autocommitted statement, or null when
 * nothing is remembered or the session, registry or tool changed since (then nothing was written).
 */
export async function rememberedCall(
  q: Q,
  deps: CallDeps,
  clock: Clock,
  teamId: string,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<CallAnswer | null> {
  // A session with a grouped write in hand is about to change: a call decided now would be decided on its old state.
  if (deps.groups?.sessions.has(sessionId)) return null;
  const state = deps.sessionCache.get(teamId, sessionId);
  const registry = deps.registries.remembered(teamId);
  const latest = deps.tools.latest(teamId, tool);
  if (!state || !registry || latest === undefined) return null;
  const decl = latest === null ? null : deps.tools.remembered(teamId, tool, latest);
  if (decl === undefined) return null;
  const d = decideCall(clock, tool, args, decl, { ...state, datums: registry.registry }, deps.undeclared, options);
  const digest = options.toolDigest ?? null;
  const values = [...callValues(sessionId, teamId, tool, args, d), state.writes, registry.version, latest, digest];
  const row = deps.groups
    ? await deps.groups.calls.run(sessionId, values)
    : await chainedOn(
        deps.pool,
        q,
        async (tq) => (await orRetry(tq<CallRow>(REMEMBERED_CALL, values)))[0],
        (r) => (r ? [wroteCall(values)] : []),
      );
  if (!row) {
    deps.sessionCache.forget(sessionId);
    return null;
  }
  deps.sessionCache.keep({ ...state, writes: row.write_count }, sessionId, {
    id: d.id,
    known: knownCall(d, row.seq, tool),
  });
  return callAnswer(d, row.seq);
}

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
  options: CallOptions = {},
): Promise<CallAnswer> {
  const [session] = await q<Locked>(LOCK_FOR_CALL, [sessionId, teamId, tool]);
  if (!session) throw new NotFoundError(`no session '${sessionId}'`);
  const datums = await deps.registries.at(q, teamId, session.registry_version ?? 0);
  const decl = await deps.tools.compiled(q, teamId, tool, session.tool_version, datums);
  const history = await deps.sessionCache.outputs(q, teamId, sessionId, session.write_count);
  const at = { ...session, datums, outputs: history.outputs };
  const d = decideCall(clock, tool, args, decl, at, deps.undeclared, options);
  const [row] = await (last && !chainSettings.enabled ? q.final : q)<{ seq: number; write_count: number }>(
    INSERT_CALL,
    [...callValues(sessionId, teamId, tool, args, d), options.toolDigest ?? null],
  );
  const xs = await crossingIdsOf(q, sessionId, row!.seq, chainSettings.enabled ? undefined : 0);
  await pgAppend(q, teamId, [["calls", d.id], ...xs.map((x) => ["crossings", x] as const)]);
  after.push(() => {
    deps.tools.sawLatest(teamId, tool, session.tool_version);
    deps.sessionCache.keep(
      { teamId, writes: row!.write_count, context: session.context, enforcement: session.enforcement, ...history },
      sessionId,
      { id: d.id, known: knownCall(d, row!.seq, tool) },
    );
  });
  return callAnswer(d, row!.seq);
}

type ResultRow = RawOutput & { n: number; write_count: number | null };

type Labelled = { verdict: ResultVerdict; at: string };

function decideResult(
  clock: Clock,
  decl: ToolDeclaration | null,
  result: unknown,
  at: { datums: DatumRegistry; enforcement: "enforce" | "warn"; context: string; outputs: PriorOutput[] },
): Labelled {
  const verdict = checkResult(decl, result, {
    datums: at.datums,
    enforcement: at.enforcement,
    history: new MemoryHistory(at.outputs),
    context: at.context,
  });
  return { verdict, at: clock.now().toISOString() };
}

/** The parameters of INSERT_RESULT and REMEMBERED_RESULT up to the crossings ($1..$26). */
function resultValues(
  sessionId: string,
  teamId: string,
  callId: string,
  result: unknown,
  callOk: boolean,
  l: Labelled,
) {
  const { verdict } = l;
  return [
    sessionId,
    teamId,
    callId,
    JSON.stringify(result ?? null),
    verdict.ok,
    JSON.stringify(verdict.violations),
    l.at,
    verdict.violations.length,
    verdict.wouldBlock && callOk ? 1 : 0,
    ...crossingArrays(verdict.crossings),
  ];
}

const resultAnswer = ({ verdict }: Labelled): ResultAnswer => ({
  ok: verdict.ok,
  would_block: verdict.wouldBlock,
  result: verdict.result,
  violations: verdict.violations,
});

/** The outputs a result statement stored (its rows carry them; a row of nulls when it stored none). */
function storedOutputs(rows: ResultRow[], before: ReadOutputs): ReadOutputs {
  const fresh = rows.filter((r) => r.id !== null);
  if (fresh.length === 0) return before;
  return { outputs: [...before.outputs, ...fresh.map(toOutput)], lastId: fresh[fresh.length - 1]!.id };
}

/**
 * A result labelled on the session and call this instance remembers, in one autocommitted statement, or null when
 * either is not remembered, the result holds a reading (checked against earlier readings in a transaction), or the
 * session or registry changed since (then nothing was written).
 */
export async function rememberedResult(
  q: Q,
  deps: CallDeps,
  clock: Clock,
  teamId: string,
  sessionId: string,
  callId: string,
  result: unknown,
): Promise<ResultAnswer | null> {
  if (deps.groups?.sessions.has(sessionId)) return null;
  const state = deps.sessionCache.get(teamId, sessionId);
  const call = state?.calls.get(callId);
  const registry = deps.registries.remembered(teamId);
  // A refused call's result takes the locked path, which refuses it with its reason.
  if (!state || !call || call.hasResult || !call.ok || !registry) return null;
  const decl =
    call.guarded && call.toolVersion !== null ? deps.tools.remembered(teamId, call.tool, call.toolVersion) : null;
  if (decl === undefined) return null;
  const l = decideResult(clock, decl, result, { ...state, datums: registry.registry });
  if (l.verdict.crossings.some(isReading)) return null;
  const values = [...resultValues(sessionId, teamId, callId, result, call.ok, l), state.writes, registry.version];
  const rows = deps.groups
    ? await deps.groups.results.run(sessionId, values)
    : await chainedOn(
        deps.pool,
        q,
        (tq) => orRetry(tq<ResultRow>(REMEMBERED_RESULT, values)),
        (rows) => (rows[0]?.n === 1 ? [wroteResult(values)] : []),
      );
  if (rows[0]?.n !== 1 || rows[0].write_count === null) {
    deps.sessionCache.forget(sessionId);
    return null;
  }
  deps.sessionCache.keep({ ...state, ...storedOutputs(rows, state), writes: rows[0].write_count }, sessionId, {
    id: callId,
    known: { ...call, hasResult: true },
  });
  return resultAnswer(l);
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
  if (!call.ok) throw refusedCallResult(callId);
  const datums = await deps.registries.at(q, teamId, locked.registry_version ?? 0);
  const decl = call.guarded ? await deps.tools.compiled(q, teamId, call.tool, call.toolVersion, datums) : null;
  const history = await deps.sessionCache.outputs(q, teamId, sessionId, locked.write_count);
  const l = decideResult(clock, decl, result, { ...locked, datums, outputs: history.outputs });
  // A result holding a reading is checked against earlier readings before the commit, so it cannot ride with COMMIT.
  const readings = l.verdict.crossings.some(isReading);
  const rows = await (last && !readings && !chainSettings.enabled ? q.final : q)<ResultRow>(
    INSERT_RESULT,
    resultValues(sessionId, teamId, callId, result, call.ok, l),
  );
  if (readings) await setReadingFlags(q, teamId, callId, l.verdict.crossings);
  const xs = await crossingIdsOf(q, sessionId, call.seq, chainSettings.enabled ? l.verdict.crossings.length : 0);
  await pgAppend(q, teamId, [["results", callId], ...xs.map((x) => ["crossings", x] as const)]);
  if (readings) await detectRevisions(q, teamId, sessionId, callId, call.tool, l.verdict.crossings, l.at);
  const known: KnownCall = {
    seq: call.seq,
    tool: call.tool,
    toolVersion: call.toolVersion,
    guarded: call.guarded,
    ok: call.ok,
    hasResult: true,
  };
  after.push(() =>
    deps.sessionCache.keep(
      {
        teamId,
        writes: rows[0]!.write_count!,
        context: locked.context,
        enforcement: locked.enforcement,
        ...storedOutputs(rows, history),
      },
      sessionId,
      { id: callId, known },
    ),
  );
  return resultAnswer(l);
}

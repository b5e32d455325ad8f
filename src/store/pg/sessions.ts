// Sessions, calls, crossings, audits, manifests and packs on PostgreSQL: the session side of the PgStore.
import type { Clock } from "../../clock.js";
import { auditAnswer } from "../../provenance/audit.js";
import { buildManifest } from "../../provenance/manifest.js";
import type { StoredAudit } from "../../provenance/manifest.js";
import { dimensionKey, toSI } from "../../quantity/units.js";
import { NotFoundError } from "../common/errors.js";
import { newId } from "../common/ids.js";
import { newSessionColumns } from "../common/session-rows.js";
import type * as port from "../port.js";
import { type CallDeps, rememberedCall, rememberedResult, storeCall, storeResult } from "./calls.js";
import { DATUM_SELECT, OFFSET_SELECT, TOOL_COLUMNS, toToolRow } from "./registry.js";
import {
  CALL_COLUMNS,
  type RawCall,
  type RawCrossing,
  type RawSession,
  SESSION_COLUMNS,
  toCall,
  toCrossing,
  toSession,
} from "./rows.js";
import { inTransaction, type Q, queryOn, type TxQ } from "./tx.js";
import type pg from "pg";
import type { PgToolsRepo } from "./tools.js";
import { pgAppend } from "./chain-append.js";
import { chainSettings } from "../common/chain.js";
import type { CallRow, DatumRow, OffsetRow, SessionRow } from "../model.js";
import { CROSSING_TOLERANCE } from "../common/session-rows.js";
import { sessionReport } from "../common/session-rows.js";
import { type RawAudit, type RawAuditItem, storedAudits } from "../common/audit-rows.js";

/** What the session-side repositories share. */
export type SessionDeps = CallDeps & { pool: pg.Pool; clock: Clock; toolsRepo: PgToolsRepo };

/** Runs a call-path transaction and, once it commits, what it asked to keep (the output cache). */
async function callTx<T>(pool: pg.Pool, fn: (q: TxQ, after: (() => void)[]) => Promise<T>): Promise<T> {
  let after: (() => void)[] = [];
  const value = await inTransaction(pool, (q) => {
    after = [];
    return fn(q, after);
  });
  for (const f of after) f();
  return value;
}

async function getSession(q: Q, teamId: string, id: string): Promise<SessionRow> {
  const [r] = await q<RawSession>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 AND team_id = $2`, [
    id,
    teamId,
  ]);
  if (!r) throw new NotFoundError(`no session '${id}'`);
  return toSession(r);
}

async function listCalls(q: Q, teamId: string, sessionId: string, afterSeq = 0, limit = 1_000_000): Promise<CallRow[]> {
  const rows = await q<RawCall>(
    `SELECT ${CALL_COLUMNS} FROM calls WHERE session_id = $1 AND team_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    [sessionId, teamId, afterSeq, limit],
  );
  return rows.map(toCall);
}

async function sessionCrossings(q: Q, teamId: string, sessionId: string, afterSeq = 0, uptoSeq = 2_147_483_647) {
  const rows = await q<RawCrossing>(
    "SELECT * FROM crossings WHERE session_id = $1 AND team_id = $2 AND seq > $3 AND seq <= $4 ORDER BY id",
    [sessionId, teamId, afterSeq, Math.min(uptoSeq, 2_147_483_647)],
  );
  return rows.map(toCrossing);
}

const CREATE_SESSION = `WITH s AS (
    INSERT INTO sessions (id, team_id, context, enforcement, labels, created_at) VALUES ($1, $2, $3, $4, $5, $6)
    RETURNING ${SESSION_COLUMNS}),
  l AS (INSERT INTO session_labels (session_id, team_id, key, value) SELECT $1, $2, k, v FROM unnest($7::text[], $8::text[]) AS l(k, v))
  SELECT * FROM s`;

/** Sessions: open, read, list. */
export function pgSessions({ pool, clock, sessionCache }: SessionDeps): port.SessionsRepo {
  const q = queryOn(pool);
  return {
    create: async (teamId, input) => {
      const now = clock.now();
      const { columns, labels } = newSessionColumns(teamId, input, now);
      // One autocommitted statement: the session, its labels (none for empty arrays) and the row as stored.
      const values = [...columns, labels.map(([k]) => k), labels.map(([, v]) => v)];
      const [row] = chainSettings.enabled
        ? await inTransaction(pool, async (tq) => {
            const rows = await tq<RawSession>(CREATE_SESSION, values);
            await pgAppend(tq, teamId, [["sessions", rows[0]!.id]]);
            return rows;
          })
        : await q<RawSession>(CREATE_SESSION, values);
      const session = toSession(row!);
      // A new session has no writes and no outputs: its first call can already go the one-statement way.
      sessionCache.keep(
        { teamId, writes: 0, context: session.context, enforcement: session.enforcement, outputs: [], lastId: 0 },
        session.id,
      );
      return session;
    },
    get: (teamId, id) => getSession(q, teamId, id),
    list: async (teamId, f) => {
      const where = ["team_id = $1"];
      const args: unknown[] = [teamId];
      const arg = (v: unknown) => {
        args.push(v);
        return `$${args.length}`;
      };
      for (const l of f.labels ?? [])
        where.push(
          `id IN (SELECT session_id FROM session_labels WHERE team_id = $1 AND key = ${arg(l.key)} AND value = ${arg(l.value)})`,
        );
      if (f.tool !== undefined)
        where.push(`id IN (SELECT session_id FROM calls WHERE team_id = $1 AND tool = ${arg(f.tool)})`);
      if (f.code !== undefined)
        where.push(`id IN (SELECT session_id FROM crossings WHERE team_id = $1 AND violation = ${arg(f.code)})`);
      if (f.since !== undefined) where.push(`created_at >= ${arg(f.since)}`);
      if (f.until !== undefined) where.push(`created_at < ${arg(f.until)}`);
      if (f.cursor) where.push(`(created_at, id) < (${arg(f.cursor[0])}, ${arg(f.cursor[1])})`);
      const rows = await q<RawSession>(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ${arg(f.limit + 1)}`,
        args,
      );
      return rows.map(toSession);
    },
    teamOf: async (sessionId) => {
      const [r] = await q<{ team_id: string }>("SELECT team_id FROM sessions WHERE id = $1", [sessionId]);
      return r?.team_id ?? null;
    },
    report: async (teamId, sessionId) => {
      const session = await getSession(q, teamId, sessionId);
      return sessionReport(session, await listCalls(q, teamId, sessionId));
    },
  };
}

/** The guarded-call path: one transaction per call, the session row locked first. */
export function pgCalls(deps: SessionDeps): port.CallsRepo {
  const { pool, clock } = deps;
  const q = queryOn(pool);
  return {
    // The remembered session first (one statement); the locked transaction when it is not remembered or changed.
    call: async (teamId, sessionId, tool, args, options = {}) =>
      (await rememberedCall(q, deps, clock, teamId, sessionId, tool, args, options)) ??
      callTx(pool, (tq, after) => storeCall(tq, deps, clock, teamId, sessionId, tool, args, after, true, options)),
    result: async (teamId, sessionId, callId, result) =>
      (await rememberedResult(q, deps, clock, teamId, sessionId, callId, result)) ??
      callTx(pool, (tq, after) => storeResult(tq, deps, clock, teamId, sessionId, callId, result, after, true)),
    list: async (teamId, sessionId, options = {}) => {
      await getSession(q, teamId, sessionId);
      return listCalls(q, teamId, sessionId, options.afterSeq ?? 0, options.limit ?? 1_000_000);
    },
  };
}

/** Crossings of one session and the magnitude search across sessions. */
export function pgCrossings({ pool }: SessionDeps): port.CrossingsRepo {
  const q = queryOn(pool);
  return {
    ofSession: async (teamId, sessionId, options = {}) => {
      await getSession(q, teamId, sessionId);
      return sessionCrossings(q, teamId, sessionId, options.afterSeq ?? 0, options.uptoSeq);
    },
    search: async (teamId, f) => {
      const si = toSI(f.value, f.unit);
      const dimension = dimensionKey(f.unit);
      const half = Math.abs(si) * (f.tolerance ?? CROSSING_TOLERANCE);
      const where = ["team_id = $1", "dimension = $2", "value_si BETWEEN $3 AND $4"];
      const args: unknown[] = [teamId, dimension, si - half, si + half];
      if (f.tool !== undefined) {
        args.push(f.tool);
        where.push(`tool = $${args.length}`);
      }
      if (f.since !== undefined) {
        args.push(f.since);
        where.push(`created_at >= $${args.length}`);
      }
      if (f.cursor !== undefined && f.cursor !== null) {
        args.push(f.cursor);
        where.push(`id < $${args.length}`);
      }
      args.push(f.limit + 1);
      const rows = await q<RawCrossing>(
        `SELECT * FROM crossings WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $${args.length}`,
        args,
      );
      return rows.map(toCrossing);
    },
  };
}

async function auditsOf(q: Q, teamId: string, sessionId: string): Promise<StoredAudit[]> {
  const rows = await q<RawAuditItem>(
    `SELECT i.audit_id, i.position, i.text, i.value, i.unit, i.status, i.source, i.source_call_id, i.explanation
     FROM audit_items i JOIN audits a ON a.id = i.audit_id WHERE a.session_id = $1 AND a.team_id = $2 ORDER BY i.audit_id, i.position`,
    [sessionId, teamId],
  );
  const audits = await q<RawAudit>(
    "SELECT id, answer, context, ok, created_at FROM audits WHERE session_id = $1 AND team_id = $2 ORDER BY created_at, id",
    [sessionId, teamId],
  );
  return storedAudits(audits, rows);
}

/** Answer audits: the session locked, its outputs read and the audit stored in one transaction. */
export function pgAudits(deps: SessionDeps): port.AuditsRepo {
  const { pool, clock } = deps;
  const q = queryOn(pool);
  return {
    audit: (teamId, sessionId, input) =>
      callTx(pool, async (tq, after) => {
        const [session] = await tq<{ context: string; enforcement: "enforce" | "warn"; write_count: number }>(
          "SELECT context, enforcement, write_count FROM sessions WHERE id = $1 AND team_id = $2 FOR UPDATE",
          [sessionId, teamId],
        );
        if (!session) throw new NotFoundError(`no session '${sessionId}'`);
        // API.md: an audit without context uses the session's context (the question), so numbers repeated from it are quoted.
        const context = input.context ?? session.context;
        const history = await deps.sessionCache.outputs(tq, teamId, sessionId, session.write_count);
        // An audit is not a write to the session's history: the count stays, and the outputs read are kept at it.
        after.push(() =>
          deps.sessionCache.keep({ ...session, teamId, writes: session.write_count, ...history }, sessionId),
        );
        const result = auditAnswer(input.answer, history.outputs, { context });
        const now = clock.now();
        const id = newId(now.getTime());
        await tq(
          "INSERT INTO audits (id, team_id, session_id, answer, context, ok, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
          [id, teamId, sessionId, input.answer, context, result.ok, now.toISOString()],
        );
        const n = result.numbers;
        const items =
          n.length === 0
            ? []
            : await tq<{ id: number }>(
                `INSERT INTO audit_items (audit_id, team_id, position, text, value, unit, status, source_call_id, source, explanation)
             SELECT $1, $2, i.n - 1, i.text, i.value, i.unit, i.status, i.call_id, i.source, i.explanation
             FROM unnest($3::text[], $4::float8[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
               WITH ORDINALITY AS i(text, value, unit, status, call_id, source, explanation, n) ORDER BY i.n
             RETURNING id`,
                [
                  id,
                  teamId,
                  n.map((x) => x.text),
                  n.map((x) => x.value),
                  n.map((x) => x.unit ?? null),
                  n.map((x) => x.status),
                  n.map((x) => x.callId ?? null),
                  n.map((x) => x.source ?? null),
                  n.map((x) => x.explanation),
                ],
              );
        await pgAppend(tq, teamId, [
          ["audits", id],
          ...items
            .map((r) => Number(r.id))
            .sort((a, b) => a - b)
            .map((i) => ["audit_items", i] as const),
        ]);
        return { id, ok: result.ok, context, numbers: result.numbers };
      }),
    list: async (teamId, sessionId) => {
      await getSession(q, teamId, sessionId);
      return auditsOf(q, teamId, sessionId);
    },
  };
}

/** Manifests, read in one REPEATABLE READ snapshot. */
export function pgManifests({ pool }: SessionDeps): port.ManifestsRepo {
  return {
    load: (teamId, sessionId) =>
      inTransaction(pool, async (q) => {
        await q("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const session = await getSession(q, teamId, sessionId);
        const calls = await listCalls(q, teamId, sessionId);
        const crossings = await sessionCrossings(q, teamId, sessionId);
        const versions = new Map<string, { name: string; version: number }>();
        for (const c of calls)
          if (c.toolVersion !== null)
            versions.set(`${c.tool}\u0000${c.toolVersion}`, { name: c.tool, version: c.toolVersion });
        const wanted = [...versions.values()];
        const rows =
          wanted.length === 0
            ? []
            : await q<{ name: string; version: number; declaration: string; created_at: string }>(
                `SELECT ${TOOL_COLUMNS} FROM tools WHERE team_id = $1
                 AND (name, version) IN (SELECT * FROM unnest($2::text[], $3::int[])) ORDER BY name, version`,
                [teamId, wanted.map((w) => w.name), wanted.map((w) => w.version)],
              );
        const byKey = new Map(rows.map((r) => [`${r.name}\u0000${r.version}`, toToolRow(r)]));
        const tools = [...versions.keys()].flatMap((k) => byKey.get(k) ?? []);
        return buildManifest({
          session,
          calls,
          crossings,
          tools,
          datums: await q<DatumRow>(DATUM_SELECT, [teamId]),
          offsets: await q<OffsetRow>(OFFSET_SELECT, [teamId]),
          audits: await auditsOf(q, teamId, sessionId),
        });
      }),
  };
}

/** Pack readings and pack calls, each one transaction. */
export function pgPacks(deps: SessionDeps): port.PacksRepo {
  const { pool, clock } = deps;
  return {
    record: (teamId, sessionId, tool, readings) =>
      callTx(pool, async (q, after) => {
        await getSession(q, teamId, sessionId);
        for (const r of readings) {
          // Each reading's outputs are history for the next, so the cache is read again, not kept, in between.
          const c = await storeCall(q, deps, clock, teamId, sessionId, tool, r.args, []);
          // A refused reading call takes no result (409 otherwise), as a guarded call's would not.
          if (c.ok) await storeResult(q, deps, clock, teamId, sessionId, c.call_id, r.quantity, []);
        }
        after.length = 0;
      }),
    call: async (teamId, sessionId, tool, declaration, args, result) => {
      if (!(await deps.toolsRepo.get(teamId, tool))) await deps.toolsRepo.put(teamId, tool, declaration);
      return callTx(pool, async (q, after): Promise<port.PackCallAnswer> => {
        const call = await storeCall(q, deps, clock, teamId, sessionId, tool, args, after);
        const labelled = call.ok
          ? await storeResult(q, deps, clock, teamId, sessionId, call.call_id, result, [])
          : null;
        return {
          ...call,
          result: labelled?.result ?? null,
          result_ok: labelled?.ok ?? null,
          result_violations: labelled?.violations ?? [],
        };
      });
    },
  };
}

// Sessions, calls and crossings on prepared statements: the hot path of every guarded call.
import { MultiInsert } from "./multi-insert.js";
import type { Database, Statement } from "better-sqlite3";
import type { CrossingDraft, Violation } from "../../guard/verdict.js";
import type { History, PriorOutput } from "../../guard/history.js";
import { atomic } from "./atomic.js";
import { ConflictError, NotFoundError } from "../common/errors.js";
import { newId } from "../common/ids.js";
import { RevisionStore } from "./revisions.js";
import { SessionOutputs } from "./session-outputs.js";
import {
  newSessionColumns,
  type RawCall,
  type RawCrossing,
  type RawSession,
  toCall,
  toCrossing,
  toSession,
} from "../common/session-rows.js";
import type { CallRow, CrossingRow, SessionRow } from "../model.js";
import { isReading, observedUtc } from "../common/revision-rules.js";
import { sqliteChain } from "./chain.js";

/** What recording a result needs of its call, read without parsing the call's JSON columns. */
export type CallHead = Pick<CallRow, "id" | "sessionId" | "seq" | "tool" | "toolVersion" | "guarded" | "ok"> & {
  hasResult: boolean;
};

/** What checking a call needs of its session. */
export type SessionHead = Pick<SessionRow, "context" | "enforcement">;

/** How many session heads and unanswered calls a SessionStore remembers before it starts again. */
const MEMO_LIMIT = 10_000;

/** A call this store wrote, as much of it as storing its result needs; its columns never change once written. */
type KnownCall = Omit<CallHead, "hasResult"> & { teamId: string };

/** The crossing columns a call writes, in binding order. */
const CROSSING_COLUMNS = `team_id, session_id, call_id, seq, tool, direction, param, raw, value, unit, value_si, dimension,
  is_series, datum, crs, tz, quality, source, observed_at, observed_utc, outcome, violation, created_at, flags`;

/** Repository of sessions, calls and crossings. Every method is scoped to a team. */
export class SessionStore {
  private readonly s: Record<string, Statement>;
  /**
   * Session heads read by this store, by id. A session's context and enforcement never change, so a remembered head
   * is never wrong about them; a session that is gone (archived, or never committed) is caught by the write that
   * follows, which finds no row and answers the same 404 as the read would have (`insertCall`, `insertResult`).
   */
  private readonly heads = new Map<string, SessionHead & { teamId: string }>();
  /** Calls this store wrote and has not stored a result for: `setResult` only writes a call that has none. */
  private readonly unanswered = new Map<string, KnownCall>();

  /** Revisions found while storing readings; detection runs in the same transaction as the later reading. */
  readonly revisions: RevisionStore;
  /** Always true in the service; bench:guard turns it off to measure what detection costs a result that is not a reading. */
  detectRevisions = true;

  /** The session outputs a call's verdict reads, remembered or from the indexes. */
  private readonly outputs: SessionOutputs;
  /** Crossings a hundred rows per statement (a call without a reading). */
  private readonly crossingRows: MultiInsert;

  constructor(private readonly sqlite: Database) {
    this.outputs = new SessionOutputs(sqlite);
    this.revisions = new RevisionStore(sqlite);
    this.crossingRows = new MultiInsert(sqlite, `INSERT INTO crossings (${CROSSING_COLUMNS})`, 24);
    const p = (sql: string) => sqlite.prepare(sql);
    this.s = {
      insertSession: p(
        "INSERT INTO sessions (id, team_id, context, enforcement, labels, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      insertLabel: p("INSERT INTO session_labels (session_id, team_id, key, value) VALUES (?, ?, ?, ?)"),
      getSession: p(
        "SELECT id, context, enforcement, labels, call_count, violation_count, blocked_count, created_at FROM sessions WHERE id = ? AND team_id = ?",
      ),
      sessionHead: p("SELECT context, enforcement FROM sessions WHERE id = ? AND team_id = ?"),
      callHead: p(`SELECT id, session_id AS sessionId, seq, tool, tool_version AS toolVersion, guarded, ok,
                   result_raw IS NOT NULL OR result_at IS NOT NULL AS hasResult FROM calls WHERE id = ? AND session_id = ? AND team_id = ?`),
      bumpCall: p(
        "UPDATE sessions SET call_count = call_count + 1, violation_count = violation_count + ?, " +
          "blocked_count = blocked_count + ? WHERE id = ? RETURNING call_count",
      ),
      bumpViolations: p(
        "UPDATE sessions SET violation_count = violation_count + ?, blocked_count = blocked_count + ? WHERE id = ?",
      ),
      insertCall:
        p(`INSERT INTO calls (id, team_id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, created_at, tool_digest)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      getCall:
        p(`SELECT id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, result_raw, result_ok, result_violations,
                   created_at, result_at, tool_digest
                  FROM calls WHERE id = ? AND session_id = ? AND team_id = ?`),
      setResult: p(
        "UPDATE calls SET result_raw = ?, result_ok = ?, result_violations = ?, result_at = ? WHERE id = ? AND result_raw IS NULL AND result_at IS NULL",
      ),
      listCalls:
        p(`SELECT id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, result_raw, result_ok, result_violations,
                   created_at, result_at, tool_digest
                    FROM calls WHERE session_id = ? AND team_id = ? AND seq > ? ORDER BY seq LIMIT ?`),
      crossingsOfSession: p(
        "SELECT * FROM crossings WHERE session_id = ? AND team_id = ? AND seq > ? AND seq <= ? ORDER BY id",
      ),
    };
  }

  /** Opens a session. */
  create(
    teamId: string,
    input: { context?: string; enforcement?: "enforce" | "warn"; labels?: Record<string, string> },
    now: Date,
  ): SessionRow {
    const { columns, labels } = newSessionColumns(teamId, input, now);
    const id = columns[0];
    atomic(this.sqlite, () => {
      this.s.insertSession!.run(...columns);
      for (const [k, v] of labels) this.s.insertLabel!.run(id, teamId, k, v);
      sqliteChain(this.sqlite).append(teamId, "sessions", [id]);
    });
    return this.get(teamId, id);
  }

  /** The session, or 404 (another team's id is indistinguishable from none). */
  get(teamId: string, id: string): SessionRow {
    const r = this.s.getSession!.get(id, teamId) as RawSession | undefined;
    if (!r) throw new NotFoundError(`no session '${id}'`);
    return toSession(r);
  }

  /**
   * The context and enforcement of a session, or 404: all a call's verdict needs of it. Remembered once read (see
   * `heads`): the caller's next write to the session must be one that fails on a missing session row.
   */
  head(teamId: string, id: string): SessionHead {
    const known = this.heads.get(id);
    if (known !== undefined && known.teamId === teamId) return known;
    const r = this.readHead(teamId, id);
    if (this.heads.size >= MEMO_LIMIT) this.heads.clear();
    this.heads.set(id, { teamId, context: r.context, enforcement: r.enforcement });
    return r;
  }

  /** The session's head as stored now, or 404 (and forgets what was remembered of it). */
  readHead(teamId: string, id: string): SessionHead {
    const r = this.s.sessionHead!.get(id, teamId) as SessionHead | undefined;
    if (!r) {
      this.heads.delete(id);
      throw new NotFoundError(`no session '${id}'`);
    }
    return r;
  }

  /**
   * What recording a result needs of a call, or 404 (for the session first, as a read of it would). A call this store
   * wrote is answered from memory as having no result yet; `insertResult` finds out when that is no longer so.
   */
  callHead(teamId: string, sessionId: string, callId: string): CallHead {
    const known = this.unanswered.get(callId);
    if (known !== undefined && known.teamId === teamId && known.sessionId === sessionId) {
      const { teamId: _, ...head } = known;
      return { ...head, hasResult: false };
    }
    const r = this.s.callHead!.get(callId, sessionId, teamId) as
      | (Omit<CallHead, "guarded" | "ok" | "hasResult"> & { guarded: number; ok: number; hasResult: number })
      | undefined;
    if (!r) {
      this.readHead(teamId, sessionId);
      throw new NotFoundError(`no call '${callId}' in session '${sessionId}'`);
    }
    return { ...r, guarded: r.guarded === 1, ok: r.ok === 1, hasResult: r.hasResult === 1 };
  }

  /** The connection's data_version now: read once per step and handed to `history` and the datum registry. */
  dataVersion(): number {
    return this.outputs.dataVersion();
  }

  /** The History port over one session's stored outputs (see SessionOutputs.history). */
  history(sessionId: string, dataVersion?: number): History & { all(): readonly PriorOutput[] } {
    return this.outputs.history(sessionId, dataVersion);
  }

  /** See SessionOutputs.quietSince. */
  quietSince(): number | null {
    return this.outputs.quietSince();
  }

  /** Marks this connection's memory of outputs good after a step whose writes all went through this store. */
  settle(): void {
    this.outputs.settle();
  }

  /**
   * Stores one call and its crossings in the caller's transaction; answers its id and sequence number. The first
   * write is the session's counter, so a session that is not there is a 404 with nothing written.
   */
  insertCall(
    teamId: string,
    sessionId: string,
    call: {
      tool: string;
      toolVersion: number | null;
      guarded: boolean;
      argsRaw: unknown;
      ok: boolean;
      violations: Violation[];
      blocked: boolean;
      toolDigest?: string | null;
    },
    crossings: CrossingDraft[],
    now: Date,
  ): { id: string; seq: number } {
    const bumped = this.s.bumpCall!.get(call.violations.length, call.blocked ? 1 : 0, sessionId) as
      | { call_count: number }
      | undefined;
    if (bumped === undefined) {
      this.heads.delete(sessionId);
      throw new NotFoundError(`no session '${sessionId}'`);
    }
    const seq = bumped.call_count;
    const id = newId(now.getTime());
    const at = now.toISOString();
    // The bound values are the chained columns in order (text, integers, null as stored), so the chain hashes them.
    const row = [
      id,
      teamId,
      sessionId,
      seq,
      call.tool,
      call.toolVersion,
      call.guarded ? 1 : 0,
      JSON.stringify(call.argsRaw),
      call.ok ? 1 : 0,
      JSON.stringify(call.violations),
      at,
      call.toolDigest ?? null,
    ];
    this.s.insertCall!.run(...row);
    // Each crossing's bound values with its id are its chained columns, hashed as bound (no read-back).
    const bound: unknown[][] = [];
    const crossingIds = this.insertCrossings(teamId, sessionId, id, seq, call.tool, crossings, at, bound);
    sqliteChain(this.sqlite).appendRows(teamId, [
      ["calls", id, row],
      ...crossingIds.map((c, i) => ["crossings", c, bound[i]!] as const),
    ]);
    if (this.unanswered.size >= MEMO_LIMIT) this.unanswered.delete(this.unanswered.keys().next().value!);
    this.unanswered.set(id, {
      teamId,
      id,
      sessionId,
      seq,
      tool: call.tool,
      toolVersion: call.toolVersion,
      guarded: call.guarded,
      ok: call.ok,
    });
    return { id, seq };
  }

  /**
   * Stores a call's result and its crossings in the caller's transaction; false, with nothing written, when the call
   * is not there or already has a result (`missingResult` says which).
   */
  insertResult(
    teamId: string,
    call: Pick<CallRow, "id" | "sessionId" | "seq" | "tool" | "ok">,
    result: { raw: unknown; ok: boolean; violations: Violation[]; blocked: boolean },
    crossings: CrossingDraft[],
    now: Date,
  ): boolean {
    const at = now.toISOString();
    const rawText = JSON.stringify(result.raw ?? null);
    const violationsText = JSON.stringify(result.violations);
    const changed = this.s.setResult!.run(rawText, result.ok ? 1 : 0, violationsText, at, call.id).changes;
    this.unanswered.delete(call.id);
    if (changed === 0) return false;
    const bound: unknown[][] = [];
    const crossingIds = this.insertCrossings(
      teamId,
      call.sessionId,
      call.id,
      call.seq,
      call.tool,
      crossings,
      at,
      bound,
    );
    // The result's chained columns as bound to setResult, so the chain hashes them without reading the row back.
    const resultRow = [call.id, teamId, rawText, result.ok ? 1 : 0, violationsText, at];
    sqliteChain(this.sqlite).appendRows(teamId, [
      ["results", call.id, resultRow],
      ...crossingIds.map((c, i) => ["crossings", c, bound[i]!] as const),
    ]);
    if (result.violations.length)
      this.s.bumpViolations!.run(result.violations.length, result.blocked && call.ok ? 1 : 0, call.sessionId);
    return true;
  }

  private insertCrossings(
    teamId: string,
    sessionId: string,
    callId: string,
    seq: number,
    tool: string,
    crossings: CrossingDraft[],
    at: string,
    bound?: unknown[][],
  ): number[] {
    const call = { id: callId, seq, tool };
    const rows = crossings.map((c) => [
      teamId,
      sessionId,
      callId,
      seq,
      tool,
      c.direction,
      c.param,
      c.raw,
      c.value,
      c.unit,
      c.valueSi,
      c.dimension,
      c.isSeries ? 1 : 0,
      c.datum,
      c.crs,
      c.tz,
      c.quality,
      c.source,
      c.observedAt,
      c.observedAt === null ? null : observedUtc(c.observedAt),
      c.outcome,
      c.violation,
      at,
      // Flags matter only to a reading (its revisions); PostgreSQL writes them for readings alone too.
      isReading(c) ? (c.flags ?? null) : null,
    ]);
    // Only a reading can revise one, right after it is written: a call with a reading writes row by row; any other
    // (a largest call's 1,000 arguments) a hundred rows per statement.
    const detect = this.detectRevisions && crossings.some(isReading);
    const ids = detect ? [] : this.crossingRows.insert(rows);
    crossings.forEach((c, i) => {
      if (detect) {
        const id = this.crossingRows.insert([rows[i]!])[0]!;
        if (isReading(c)) this.revisions.detect(teamId, sessionId, id, tool, c, at);
        ids.push(id);
      }
      this.outputs.wrote(sessionId, call, c);
      bound?.push([ids[i]!, ...rows[i]!]);
    });
    return ids;
  }

  /**
   * Why `insertResult` wrote nothing, as reading first would have said: the session or the call is not there (404),
   * or the call already has a result (409).
   */
  missingResult(teamId: string, sessionId: string, callId: string): Error {
    this.unanswered.delete(callId);
    try {
      if (this.callHead(teamId, sessionId, callId).hasResult)
        return new ConflictError(`call '${callId}' already has a result; a result is stored once`);
    } catch (e) {
      return e as Error;
    }
    return new Error(`call '${callId}' in session '${sessionId}' could not be given its result`);
  }

  /** One call of a session, or 404. */
  getCall(teamId: string, sessionId: string, callId: string): CallRow {
    const r = this.s.getCall!.get(callId, sessionId, teamId) as RawCall | undefined;
    if (!r) throw new NotFoundError(`no call '${callId}' in session '${sessionId}'`);
    return toCall(r);
  }

  /** Calls of a session in order, after sequence number `afterSeq`. */
  calls(teamId: string, sessionId: string, afterSeq = 0, limit = 1_000_000): CallRow[] {
    return (this.s.listCalls!.all(sessionId, teamId, afterSeq, limit) as RawCall[]).map(toCall);
  }

  /** Crossings of a session for calls with afterSeq < seq <= uptoSeq, in recording order. */
  crossings(teamId: string, sessionId: string, afterSeq = 0, uptoSeq = Number.MAX_SAFE_INTEGER): CrossingRow[] {
    return (this.s.crossingsOfSession!.all(sessionId, teamId, afterSeq, uptoSeq) as RawCrossing[]).map(toCrossing);
  }

  /** Runs `fn` in one IMMEDIATE transaction, so a call's writes are all there or none are. */
  transaction<T>(fn: () => T): T {
    return atomic(this.sqlite, fn);
  }
}

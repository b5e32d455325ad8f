// The guarded-call service: the pure verdict run against stored declarations and history, its writes one transaction.
import type { Clock } from "../../clock.js";
import type { ToolDeclaration } from "../../guard/declaration.js";
import type { EnforcementReport } from "../../guard/report.js";
import { refusedVerdict } from "../../guard/verdict.js";
import type { CallOptions } from "../port.js";
import { callOutcome, checkCall, checkResult, type UndeclaredTools } from "../../guard/verdict.js";
import type { DatumRegistry } from "../../quantity/datums.js";
import type { LedgerDb } from "./db.js";
import { WriteBatcher } from "./batch.js";
import { ConflictError, refusedCallResult } from "../common/errors.js";
import { RegistryCache } from "./registry.js";
import { SessionStore } from "./sessions.js";
import { ToolStore } from "./tools.js";
import type { CallAnswer, ResultAnswer } from "../model.js";
import { sessionReport } from "../common/session-rows.js";

/** One engine over one database: declarations, datum registries and sessions. */
export class Ledger {
  readonly tools: ToolStore;
  readonly registry: RegistryCache;
  readonly sessions: SessionStore;
  /** Group commit for the HTTP routes: concurrent requests share one commit. */
  readonly batcher: WriteBatcher;

  constructor(
    readonly store: LedgerDb,
    readonly clock: Clock,
  ) {
    this.batcher = new WriteBatcher(store.sqlite);
    this.tools = new ToolStore(store.sqlite);
    this.registry = new RegistryCache(store.db, store.sqlite);
    this.sessions = new SessionStore(store.sqlite);
  }

  /** The team's datum registry. */
  datums(teamId: string): DatumRegistry {
    return this.registry.forTeam(teamId);
  }

  /** The compiled declaration of a tool's latest version (or of `version`), or null for an undeclared tool. */
  declaration(teamId: string, name: string, version?: number | null): ToolDeclaration | null {
    return this.tools.compiled(teamId, name, version, this.datums(teamId));
  }

  /**
   * Checks a call against the tool's latest declaration and the session's history, and stores it with its crossings.
   * `latestVersion`, when given, is the tool's latest version as the caller read it in the same transaction (the
   * library, which has just declared the tool), so it is not read again.
   */
  call(
    teamId: string,
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    clock: Clock = this.clock,
    latestVersion?: number,
    undeclared: UndeclaredTools = "accept",
    options: CallOptions = {},
  ): CallAnswer {
    return this.sessions.transaction(() => {
      // A caller told the verdict before the write (`decided`) acts on it at once: the session is read, not
      // remembered, so the write that follows in this transaction cannot find it gone.
      const session = options.decided
        ? this.sessions.readHead(teamId, sessionId)
        : this.sessions.head(teamId, sessionId);
      const version = this.sessions.dataVersion();
      const datums = this.registry.forTeam(teamId, version);
      const decl = this.tools.compiled(teamId, tool, latestVersion, datums);
      const checked = checkCall(decl, tool, args, {
        datums,
        enforcement: session.enforcement,
        history: this.sessions.history(sessionId, version),
        context: session.context,
        undeclared,
      });
      const verdict = options.refusal ? refusedVerdict(checked, options.refusal) : checked;
      const outcome = callOutcome(verdict);
      if (options.decided) {
        const { ok, guarded, args: checkedArgs, violations } = verdict;
        try {
          options.decided({ ok, guarded, outcome, args: checkedArgs, violations });
        } catch {
          // The caller's own failure; the call is recorded all the same.
        }
      }
      const { id, seq } = this.sessions.insertCall(
        teamId,
        sessionId,
        {
          tool,
          toolVersion: decl?.version ?? null,
          guarded: verdict.guarded,
          argsRaw: args,
          ok: verdict.ok,
          violations: verdict.violations,
          blocked: verdict.wouldBlock,
          toolDigest: options.toolDigest ?? null,
        },
        verdict.crossings,
        clock.now(),
      );
      this.sessions.settle();
      return {
        call_id: id,
        seq,
        ok: verdict.ok,
        guarded: verdict.guarded,
        would_block: verdict.wouldBlock,
        tool_version: decl?.version ?? null,
        outcome,
        args: verdict.args,
        violations: verdict.violations,
      };
    });
  }

  /** Labels and stores a call's result against the declaration version the call was checked with; a second result is a 409. */
  result(teamId: string, sessionId: string, callId: string, result: unknown, clock: Clock = this.clock): ResultAnswer {
    return this.sessions.transaction(() => {
      const session = this.sessions.head(teamId, sessionId);
      const call = this.sessions.callHead(teamId, sessionId, callId);
      if (call.hasResult) throw new ConflictError(`call '${callId}' already has a result; a result is stored once`);
      if (!call.ok) throw refusedCallResult(callId);
      const version = this.sessions.dataVersion();
      const datums = this.registry.forTeam(teamId, version);
      const decl = call.guarded ? this.tools.compiled(teamId, call.tool, call.toolVersion, datums) : null;
      const verdict = checkResult(decl, result, {
        datums,
        enforcement: session.enforcement,
        history: this.sessions.history(sessionId, version),
        context: session.context,
      });
      const stored = this.sessions.insertResult(
        teamId,
        call,
        { raw: result, ok: verdict.ok, violations: verdict.violations, blocked: verdict.wouldBlock },
        verdict.crossings,
        clock.now(),
      );
      // The call's head may have come from memory: the write is what says the call is still there and unanswered.
      if (!stored) throw this.sessions.missingResult(teamId, sessionId, callId);
      this.sessions.settle();
      return {
        ok: verdict.ok,
        would_block: verdict.wouldBlock,
        result: verdict.result,
        violations: verdict.violations,
      };
    });
  }

  /** `call`, group-committed with other writes of the same event-loop turn; settles after the commit. */
  callBatched(teamId: string, sessionId: string, tool: string, args: Record<string, unknown>): Promise<CallAnswer> {
    return this.batcher.run(() => this.call(teamId, sessionId, tool, args));
  }

  /** `result`, group-committed; settles after the commit. */
  resultBatched(teamId: string, sessionId: string, callId: string, result: unknown): Promise<ResultAnswer> {
    return this.batcher.run(() => this.result(teamId, sessionId, callId, result));
  }

  /** The enforcement report of a session. */
  report(teamId: string, sessionId: string): EnforcementReport {
    return sessionReport(this.sessions.get(teamId, sessionId), this.sessions.calls(teamId, sessionId));
  }
}

const ledgers = new WeakMap<LedgerDb, Ledger>();

/** The one Ledger of a database in this process (its caches are shared by every route). */
export function ledgerFor(store: LedgerDb, clock: Clock): Ledger {
  let l = ledgers.get(store);
  if (!l) {
    l = new Ledger(store, clock);
    ledgers.set(store, l);
  }
  return l;
}

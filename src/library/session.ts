// Sessions for in-process guarded tools: a recording scope carried by AsyncLocalStorage, kept in memory or in the store.
import { AsyncLocalStorage } from "node:async_hooks";
import { type Clock, systemClock } from "../clock.js";
import type { ToolDeclaration, ToolDeclarationInput } from "../guard/declaration.js";
import { type EnforcementReport, enforcementReport } from "../guard/report.js";
import { type CrossingDraft, type Enforcement, type Violation, checkCall, checkResult } from "../guard/verdict.js";
import { MemoryHistory } from "../guard/history.js";
import type { DatumRegistry } from "../quantity/datums.js";
import type { LedgerDb } from "../store/sqlite/db.js";
import { newId } from "../store/common/ids.js";
import { type Ledger, ledgerFor } from "../store/sqlite/ledger.js";
import { ensureDefaultTeam } from "../store/sqlite/teams.js";
import { canonicalJson } from "../store/common/canonical-json.js";

/** Where a session records: the store's database, and the team it belongs to (the team `default` when omitted). */
export type StoreTarget = { store: LedgerDb; teamId?: string; clock?: Clock };

/** How a session is opened. */
export type SessionOptions = {
  /** The question the agent is answering; a `sourced` parameter may take a number from it. */
  context?: string;
  /** `enforce` (the default) refuses; `warn` lets the call through and records what would have been blocked. */
  enforcement?: Enforcement;
  /** Labels stored with a store-backed session, for `GET /v1/sessions?label=k:v`. */
  labels?: Record<string, string>;
  /** The datum registry of an in-memory session (each tool's own registry when omitted). */
  datums?: DatumRegistry;
  /** Record into the store, so the session is queryable, auditable and replayable like any other. */
  ledger?: StoreTarget;
};

/** One call as the session recorded it. */
export type RecordedCall = {
  id: string;
  seq: number;
  tool: string;
  /** The arguments as sent, in their JSON form. */
  args: unknown;
  ok: boolean;
  violations: Violation[];
  /** The result as the body returned it, in its JSON form; null before a result was recorded. */
  result: unknown;
  resultViolations: Violation[];
};

/** A violation with the call and tool it belongs to. */
export type SessionViolation = Violation & { callId: string; tool: string };

/** A recording scope: the calls made inside it, their violations, and the enforcement report. */
export interface Session {
  readonly id: string;
  readonly context: string;
  readonly enforcement: Enforcement;
  /** Set when the session lives in the store. */
  readonly teamId: string | null;
  /** Every call, in order (a refused call counts). */
  readonly calls: RecordedCall[];
  /** Every violation of every call and result, in order. */
  readonly violations: SessionViolation[];
  /** How many calls were (or, in warn mode, would have been) blocked, by code. */
  report(): EnforcementReport;
}

/** What a session needs to know of a guarded tool. */
export type ToolFacts = { declaration: ToolDeclaration; input: ToolDeclarationInput; datums: DatumRegistry };

/** The verdict on a call as a session answers it. */
export type CallOutcome = {
  callId: string;
  ok: boolean;
  wouldBlock: boolean;
  args: Record<string, unknown>;
  violations: Violation[];
};

/** The verdict on a result as a session answers it. */
export type ResultOutcome = { ok: boolean; wouldBlock: boolean; result: unknown; violations: Violation[] };

interface Backend {
  readonly id: string;
  readonly teamId: string | null;
  call(tool: ToolFacts, args: Record<string, unknown>): CallOutcome | Promise<CallOutcome>;
  result(callId: string, tool: ToolFacts, result: unknown): ResultOutcome | Promise<ResultOutcome>;
  calls(): RecordedCall[];
  report(): EnforcementReport;
}

/** The session implementation; guarded tools call `guardCall` and `guardResult` on the active one. */
export class ActiveSession implements Session {
  constructor(
    readonly context: string,
    readonly enforcement: Enforcement,
    private readonly backend: Backend,
  ) {}

  get id(): string {
    return this.backend.id;
  }

  get teamId(): string | null {
    return this.backend.teamId;
  }

  get calls(): RecordedCall[] {
    return this.backend.calls();
  }

  get violations(): SessionViolation[] {
    return this.calls.flatMap((c) =>
      [...c.violations, ...c.resultViolations].map((v) => ({ ...v, callId: c.id, tool: c.tool })),
    );
  }

  report(): EnforcementReport {
    return this.backend.report();
  }

  /** Checks and records a call's arguments; a store-backed session answers once the call is committed. */
  guardCall(tool: ToolFacts, args: Record<string, unknown>): CallOutcome | Promise<CallOutcome> {
    return this.backend.call(tool, args);
  }

  /** Checks, labels and records a call's result; a store-backed session answers once the result is committed. */
  guardResult(callId: string, tool: ToolFacts, result: unknown): ResultOutcome | Promise<ResultOutcome> {
    return this.backend.result(callId, tool, result);
  }
}

/** Calls and outputs held in this process: the History port over an array, as the verdict tests use it. */
class MemoryBackend implements Backend {
  readonly id = newId();
  readonly teamId = null;
  private readonly history = new MemoryHistory();
  private readonly recorded: RecordedCall[] = [];

  constructor(private readonly o: { context: string; enforcement: Enforcement; datums?: DatumRegistry }) {}

  private ctx(tool: ToolFacts) {
    return {
      datums: this.o.datums ?? tool.datums,
      enforcement: this.o.enforcement,
      history: this.history,
      context: this.o.context,
    };
  }

  call(tool: ToolFacts, args: Record<string, unknown>): CallOutcome {
    const name = tool.declaration.name;
    const v = checkCall(tool.declaration, name, args, this.ctx(tool));
    const call: RecordedCall = {
      id: newId(),
      seq: this.recorded.length + 1,
      tool: name,
      args: asStored(args),
      ok: v.ok,
      violations: v.violations,
      result: null,
      resultViolations: [],
    };
    this.recorded.push(call);
    return { callId: call.id, ok: v.ok, wouldBlock: v.wouldBlock, args: v.args, violations: v.violations };
  }

  result(callId: string, tool: ToolFacts, result: unknown): ResultOutcome {
    const call = this.recorded.find((c) => c.id === callId);
    if (!call) throw new Error(`no call '${callId}' in session '${this.id}'`);
    const v = checkResult(tool.declaration, result, this.ctx(tool));
    call.result = asStored(result);
    call.resultViolations = v.violations;
    for (const c of v.crossings) this.remember(call, c);
    return { ok: v.ok, wouldBlock: v.wouldBlock, result: v.result, violations: v.violations };
  }

  /** Keeps an output usable as a source, by the same rule as the store: a scalar return with a unit, not refused. */
  private remember(call: RecordedCall, c: CrossingDraft): void {
    if (
      c.direction !== "return" ||
      c.value === null ||
      c.unit === null ||
      c.valueSi === null ||
      c.dimension === null ||
      c.outcome === "refused"
    )
      return;
    this.history.push({
      callId: call.id,
      seq: call.seq,
      tool: call.tool,
      field: c.param,
      value: c.value,
      unit: c.unit,
      valueSi: c.valueSi,
      dimension: c.dimension,
      datum: c.datum,
      quality: c.quality,
    });
  }

  calls(): RecordedCall[] {
    return this.recorded.map((c) => ({ ...c }));
  }

  report(): EnforcementReport {
    const violations = this.recorded.flatMap((c) =>
      [...c.violations, ...c.resultViolations].map((v) => ({
        callId: c.id,
        tool: c.tool,
        param: v.param,
        code: v.code,
        message: v.message,
      })),
    );
    return enforcementReport(this.recorded.length, violations, this.o.enforcement);
  }
}

/** The JSON form the store keeps of arguments and results, so both kinds of session answer `calls` alike. */
function asStored(v: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(v ?? null));
  } catch {
    return v; // not JSON (a BigInt, a cycle): kept as it is, since nothing is written
  }
}

/**
 * The declaration version each tool of a team was last stored at by this process, by canonical declaration, with the
 * store's `quietSince` number when that version was last seen to be the team's latest.
 */
const declared = new WeakMap<Ledger, Map<string, { version: number; quiet: number | null }>>();

/** Each tool's canonical declaration, made once: a tool's declaration is compiled when it is made and never changes. */
const canonical = new WeakMap<ToolFacts, string>();

function canonicalOf(tool: ToolFacts): string {
  let c = canonical.get(tool);
  if (c === undefined) canonical.set(tool, (c = `${tool.declaration.name}\u0000${canonicalJson(tool.input)}`));
  return c;
}

/**
 * Calls recorded through the store's Ledger, exactly as `POST /v1/sessions/{id}/calls` records them, and
 * group-committed as that route is: calls made in the same event-loop turn (by concurrent agents, or parallel
 * tool calls of one agent) share one transaction and one commit, and each call's promise settles only after
 * that commit, so a guard verdict is never acted on before the call is in the database.
 */
class StoreBackend implements Backend {
  constructor(
    private readonly ledger: Ledger,
    readonly teamId: string,
    readonly id: string,
  ) {}

  call(tool: ToolFacts, args: Record<string, unknown>): Promise<CallOutcome> {
    return this.ledger.batcher.run(() => {
      const version = this.declare(tool);
      const a = this.ledger.call(this.teamId, this.id, tool.declaration.name, args, undefined, version);
      return { callId: a.call_id, ok: a.ok, wouldBlock: a.would_block, args: a.args, violations: a.violations };
    });
  }

  /**
   * Declares the tool so the stored call names the declaration version it was checked against. An unchanged
   * declaration is not a new version, and is written only when the team's latest version is not the one this
   * process stored for it (another process re-declared the tool, or this is its first call). The latest version is
   * not read again while nothing but calls and results has written since it was (the store's `quietSince`). Answers
   * the team's latest version of the tool, as read (or written) in this transaction.
   */
  private declare(tool: ToolFacts): number {
    let known = declared.get(this.ledger);
    if (!known) declared.set(this.ledger, (known = new Map()));
    const name = tool.declaration.name;
    const key = `${this.teamId}\u0000${canonicalOf(tool)}`;
    const quiet = this.ledger.sessions.quietSince();
    const k = known.get(key);
    if (k !== undefined && quiet !== null && k.quiet === quiet) return k.version;
    if (k !== undefined && k.version === this.ledger.tools.latestVersion(this.teamId, name)) {
      k.quiet = quiet;
      return k.version;
    }
    const { row } = this.ledger.tools.put(this.teamId, name, tool.input, this.ledger.datums(this.teamId));
    if (known.size > 5000) known.clear();
    // A put that wrote a version changed the database, so the next call reads the latest version again.
    known.set(key, { version: row.version, quiet: null });
    return row.version;
  }

  result(callId: string, _tool: ToolFacts, result: unknown): Promise<ResultOutcome> {
    return this.ledger.batcher.run(() => {
      const r = this.ledger.result(this.teamId, this.id, callId, result);
      return { ok: r.ok, wouldBlock: r.would_block, result: r.result, violations: r.violations };
    });
  }

  calls(): RecordedCall[] {
    return this.ledger.sessions.calls(this.teamId, this.id).map((c) => ({
      id: c.id,
      seq: c.seq,
      tool: c.tool,
      args: c.argsRaw,
      ok: c.ok,
      violations: c.violations,
      result: c.resultRaw,
      resultViolations: c.resultViolations ?? [],
    }));
  }

  report(): EnforcementReport {
    return this.ledger.report(this.teamId, this.id);
  }
}

/** Opens a session without making it active; run code in it with `withSession`. */
export function openSession(options: SessionOptions = {}): Session {
  const context = options.context ?? "";
  const enforcement = options.enforcement ?? "enforce";
  if (enforcement !== "enforce" && enforcement !== "warn") {
    throw new Error(`enforcement must be "enforce" or "warn", received ${JSON.stringify(enforcement)}`);
  }
  if (!options.ledger)
    return new ActiveSession(context, enforcement, new MemoryBackend({ context, enforcement, datums: options.datums }));
  const { store, clock = systemClock } = options.ledger;
  const teamId = options.ledger.teamId ?? ensureDefaultTeam(store.db);
  const ledger = ledgerFor(store, clock);
  const row = ledger.sessions.create(teamId, { context, enforcement, labels: options.labels }, clock.now());
  return new ActiveSession(context, enforcement, new StoreBackend(ledger, teamId, row.id));
}

const active = new AsyncLocalStorage<ActiveSession>();

/** Runs `fn` with `s` as the innermost active session; every async continuation of `fn` sees it, and nothing outside does. */
export function withSession<T>(s: Session, fn: (s: Session) => T | Promise<T>): Promise<T> {
  if (!(s instanceof ActiveSession)) throw new TypeError("withSession takes a session made by openSession or session");
  return active.run(s, async () => fn(s));
}

/**
 * Opens a session and runs `fn` inside it; guarded tools called anywhere in `fn`'s async flow record into it.
 * @example await session({ context: question }, async (s) => { await readDischarge.call({ station: "07374000" }); s.report(); })
 */
export function session<T>(options: SessionOptions, fn: (s: Session) => T | Promise<T>): Promise<T> {
  return withSession(openSession(options), fn);
}

/** The innermost active session, or null outside every session. */
export function currentSession(): Session | null {
  return active.getStore() ?? null;
}

/** The innermost active session with its recording methods (for guarded tools). */
export function activeSession(): ActiveSession | null {
  return active.getStore() ?? null;
}

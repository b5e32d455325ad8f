// Every read and write the harness makes, as async functions over one interface: the store port (LedgerStore: the
// local database, the team `default` unless told otherwise) or a running service over HTTP (remote-ledger.ts).
import type { ToolDeclarationInput } from "../guard/declaration.js";
import type { Violation } from "../guard/verdict.js";
import type { LedgerStore } from "../store/port.js";
import { convertMagnitude } from "../quantity/units.js";
import type { BenchRun, LabelFilter } from "../store/model.js";

/** The guard's verdict on a call, as the harness reads it. */
export type CallVerdict = { callId: string; ok: boolean; args: Record<string, unknown>; violations: Violation[] };
/** The guard's verdict on a result. */
export type ResultVerdict = { ok: boolean; result: unknown; violations: Violation[] };
/** The counts the harness keeps of an answer audit. */
export type AuditCounts = { ok: boolean; unsourced: number; mislabelled: number; signInverted: number };

/** Where harness runs are recorded. */
export interface HarnessLedger {
  /** "database ./data/ledger.db (team default)" or the service URL. */
  readonly where: string;
  /** Registers the task datums and offsets the declarations name (those already there are kept). */
  prepare(
    datums: readonly { name: string; description: string }[],
    offsets: readonly { from: string; to: string; value: number; unit: string }[],
  ): Promise<void>;
  /** Opens the run's session; answers its id. */
  openSession(context: string, enforcement: "enforce" | "warn", labels: Record<string, string>): Promise<string>;
  /** Declares the tool as this run sees it, then checks and stores one call against that declaration. */
  call(
    sessionId: string,
    tool: string,
    decl: ToolDeclarationInput,
    args: Record<string, unknown>,
  ): Promise<CallVerdict>;
  /** Labels and stores a call's result. */
  result(sessionId: string, callId: string, result: unknown): Promise<ResultVerdict>;
  /** Audits and stores the final answer against the session's outputs. */
  audit(sessionId: string, answer: string): Promise<AuditCounts>;
  /** Stores a run's grading beside its session. */
  saveRun(run: BenchRun): Promise<void>;
  /** Stored runs whose sessions carry every label. */
  listRuns(filter: { labels?: readonly LabelFilter[]; batch?: string }): Promise<BenchRun[]>;
  close(): Promise<void>;
}

function countAudit(numbers: readonly { status: string }[], ok: boolean): AuditCounts {
  const n = (s: string) => numbers.filter((x) => x.status === s).length;
  return { ok, unsourced: n("unsourced"), mislabelled: n("unit_mislabelled"), signInverted: n("sign_inverted") };
}

/** The harness recording through the store port (SQLite or PostgreSQL), as one team. */
export class StoreHarnessLedger implements HarnessLedger {
  readonly where: string;
  /** The declaration this ledger last put for each tool name, as JSON: an unchanged one is not put again. */
  private readonly declared = new Map<string, string>();
  /** Declaring and calling one tool name is serialised, so runs of tasks that declare it differently do not interleave. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: LedgerStore,
    private readonly teamId: string,
    teamName: string,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {
    this.where = `database ${store.where} (team ${teamName})`;
  }

  async prepare(
    datums: readonly { name: string; description: string }[],
    offsets: readonly { from: string; to: string; value: number; unit: string }[],
  ): Promise<void> {
    await this.store.datums.ensure(
      this.teamId,
      datums,
      offsets.map((o) => ({
        from: o.from,
        to: o.to,
        offsetM: convertMagnitude(o.value, o.unit, "m"),
        offsetValue: o.value,
        offsetUnit: o.unit,
        source: "agent-ledger bench",
      })),
    );
  }

  async openSession(context: string, enforcement: "enforce" | "warn", labels: Record<string, string>): Promise<string> {
    return (await this.store.sessions.create(this.teamId, { context, enforcement, labels })).id;
  }

  async call(
    sessionId: string,
    tool: string,
    decl: ToolDeclarationInput,
    args: Record<string, unknown>,
  ): Promise<CallVerdict> {
    const json = JSON.stringify(decl);
    const prior = this.locks.get(tool) ?? Promise.resolve();
    const mine = prior.then(async () => {
      if (this.declared.get(tool) !== json) {
        await this.store.tools.put(this.teamId, tool, decl);
        this.declared.set(tool, json);
      }
      return this.store.calls.call(this.teamId, sessionId, tool, args);
    });
    this.locks.set(
      tool,
      mine.catch(() => undefined),
    );
    const a = await mine;
    return { callId: a.call_id, ok: a.ok, args: a.args, violations: a.violations };
  }

  async result(sessionId: string, callId: string, result: unknown): Promise<ResultVerdict> {
    const r = await this.store.calls.result(this.teamId, sessionId, callId, result);
    return { ok: r.ok, result: r.result, violations: r.violations };
  }

  async audit(sessionId: string, answer: string): Promise<AuditCounts> {
    const a = await this.store.audits.audit(this.teamId, sessionId, { answer });
    return countAudit(a.numbers, a.ok);
  }

  async saveRun(run: BenchRun): Promise<void> {
    await this.store.benchRuns.insert(this.teamId, run);
  }

  async listRuns(filter: { labels?: readonly LabelFilter[]; batch?: string }): Promise<BenchRun[]> {
    return this.store.benchRuns.list(this.teamId, filter);
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}

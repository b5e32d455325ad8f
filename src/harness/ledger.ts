// Every read and write the harness makes, as async functions over one interface: the local database (the team
// `default` unless told otherwise) or a running service over HTTP. Kept in one module so it can move behind the
// store port (LedgerStore) without touching the loop.
import type { Clock } from "../clock.js";
import type { ToolDeclarationInput } from "../guard/declaration.js";
import type { Violation } from "../guard/verdict.js";
import { auditAnswer } from "../provenance/audit.js";
import { auditsFor } from "../store/audits.js";
import { type BenchRun, BenchRunStore } from "../store/bench-runs.js";
import type { LedgerDb } from "../store/db.js";
import { type Ledger, ledgerFor } from "../store/ledger.js";
import type { LabelFilter } from "../store/queries.js";
import { convertMagnitude } from "../quantity/units.js";

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

/** The harness recording into a local database, as one team. */
export class LocalHarnessLedger implements HarnessLedger {
  readonly where: string;
  private readonly ledger: Ledger;
  private readonly runs: BenchRunStore;
  /** The declaration this ledger last put for each tool name, as JSON: an unchanged one is not put again. */
  private readonly declared = new Map<string, string>();

  constructor(
    private readonly store: LedgerDb,
    private readonly teamId: string,
    private readonly clock: Clock,
    teamName: string,
    private readonly onClose: () => void = () => {},
  ) {
    this.ledger = ledgerFor(store, clock);
    this.runs = new BenchRunStore(store.sqlite);
    this.where = `database ${store.file} (team ${teamName})`;
  }

  async prepare(
    datums: readonly { name: string; description: string }[],
    offsets: readonly { from: string; to: string; value: number; unit: string }[],
  ): Promise<void> {
    this.ledger.registry.ensure(
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
    return this.ledger.sessions.create(this.teamId, { context, enforcement, labels }, this.clock.now()).id;
  }

  async call(
    sessionId: string,
    tool: string,
    decl: ToolDeclarationInput,
    args: Record<string, unknown>,
  ): Promise<CallVerdict> {
    // Declared and checked in one job of the ledger's group commit (the HTTP routes' batcher), so concurrent runs of
    // tasks that declare the same tool name differently each check against their own declaration, and the writes of
    // runs in flight together share one commit. An unchanged declaration is not put again.
    const json = JSON.stringify(decl);
    const a = await this.ledger.batcher.run(() => {
      if (this.declared.get(tool) !== json) {
        this.ledger.tools.put(this.teamId, tool, decl, this.ledger.datums(this.teamId));
        this.declared.set(tool, json);
      }
      return this.ledger.call(this.teamId, sessionId, tool, args);
    });
    return { callId: a.call_id, ok: a.ok, args: a.args, violations: a.violations };
  }

  async result(sessionId: string, callId: string, result: unknown): Promise<ResultVerdict> {
    const r = await this.ledger.resultBatched(this.teamId, sessionId, callId, result);
    return { ok: r.ok, result: r.result, violations: r.violations };
  }

  async audit(sessionId: string, answer: string): Promise<AuditCounts> {
    const sqlite = this.store.sqlite;
    return sqlite
      .transaction(() => {
        const session = this.ledger.sessions.get(this.teamId, sessionId);
        const a = auditAnswer(answer, this.ledger.sessions.history(sessionId).all(), { context: session.context });
        auditsFor(sqlite).insert(
          this.teamId,
          sessionId,
          { answer, context: session.context, ok: a.ok, numbers: a.numbers },
          this.clock.now(),
        );
        return countAudit(a.numbers, a.ok);
      })
      .immediate();
  }

  async saveRun(run: BenchRun): Promise<void> {
    this.runs.insert(this.teamId, run);
  }

  async listRuns(filter: { labels?: readonly LabelFilter[]; batch?: string }): Promise<BenchRun[]> {
    return this.runs.list(this.teamId, filter);
  }

  async close(): Promise<void> {
    this.onClose();
  }
}

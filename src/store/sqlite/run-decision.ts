// One evaluation decided against a SQLite ledger: the same function on the event loop (RunStore.evaluate, inside its
// IMMEDIATE transaction) and in the gates worker (over its own connection, inside a read transaction), so both paths
// run exactly the same code over the same reads.
import type { Database, Statement } from "better-sqlite3";
import { decide } from "../../gates/decide.js";
import { createQuantityComparer } from "../../gates/quantity-compare.js";
import type { Settings } from "../../gates/settings.js";
import type { WatchCache } from "../../gates/watch.js";
import type { LedgerLine } from "../common/claims-jsonl.js";
import { overlayHistory } from "../common/claim-history.js";
import type { Evaluation } from "../model.js";
import { claimHistory } from "./claim-history.js";
import { evidenceResolver } from "./evidence.js";

/** What a decision reads besides the input and the ledger: the parts of EvaluateOptions the gates use. */
export type DecisionOptions = {
  /** Ledger lines used for this evaluation only (a file ledger), over the stored ledger. */
  extraLedger?: readonly LedgerLine[];
  /** The team's datum names, so claim values like "12 ft MYGAUGE" compare as elevations. */
  datums?: Iterable<string>;
  watchCache?: WatchCache;
  /** For `evidence.check_paths`: whether a file source exists (only a caller that knows the input's directory can say). */
  pathExists?: (path: string) => boolean;
  /** False: leave ledger locators unresolved (there is no real ledger behind this store); default true. */
  resolveLedger?: boolean;
};

/** Decides `input` (settings already merged) for one team against the ledger `sqlite` holds; the caller owns the transaction. */
export function decideStored(
  sqlite: Database,
  teamId: string,
  input: unknown,
  settings: Settings,
  options: DecisionOptions,
  stamp: { id: string; at: Date; task: string | null },
): Evaluation {
  const decision = decide(input, {
    settings,
    history: overlayHistory(claimHistory(sqlite, teamId), options.extraLedger ?? []),
    compareQuantities: createQuantityComparer(options.datums ?? []),
    ...(options.resolveLedger === false ? {} : { evidence: evidenceResolver(sqlite, teamId) }),
    ...(options.watchCache ? { watchCache: options.watchCache } : {}),
    ...(options.pathExists ? { pathExists: options.pathExists } : {}),
  });
  return { id: stamp.id, task: stamp.task, created_at: stamp.at.toISOString(), ...decision };
}

const versions = new WeakMap<Database, Statement>();

/**
 * What a decision made outside the writer's transaction rests on that another writer may change meanwhile: the task's
 * stored runs (stability, and two evaluations of one task must never miss each other) and the team ledger's claim
 * events (live and demoted claims; any team's newest event, one step down the rowid tree). Equal before and after:
 * the decision is the one the writer's transaction would make. Cited crossings are read as of the decision.
 */
export function historyVersion(sqlite: Database, teamId: string, task: string | null): string {
  let s = versions.get(sqlite);
  if (!s) {
    s = sqlite
      .prepare(`SELECT (SELECT count(*) FROM runs WHERE team_id = ? AND task IS ?),
        (SELECT coalesce(max(id), 0) FROM claim_events)`)
      .raw(true);
    versions.set(sqlite, s);
  }
  const [runs, events] = s.get(teamId, task) as [number, number];
  return `${runs}:${events}`;
}

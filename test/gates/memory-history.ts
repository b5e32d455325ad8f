// A plain in-memory ClaimHistory: the port as the store will answer it, over arrays instead of tables.
import type { ClaimHistory, DemotedClaim, LedgerClaim, PriorRunClaim } from "../../src/gates/ports.js";
import { normaliseKey } from "../../src/gates/values.js";

/** A ledger line in the original JSON Lines format. */
export interface LedgerLine {
  id: string;
  text: string;
  status: "live" | "demoted";
  key?: string;
  value?: unknown;
  reason?: string;
  demoted_by?: string;
  watch?: string;
}

/** An in-memory port: ledger lines and recorded runs. */
export class MemoryHistory implements ClaimHistory {
  readonly ledger: LedgerLine[] = [];
  readonly runs: PriorRunClaim[] = [];
  readonly runTasks = new Map<string, string>();
  calls = { demoted: 0, live: 0, prior: 0, count: 0 };

  constructor(ledger: LedgerLine[] = []) {
    this.ledger.push(...ledger);
  }

  /** Records a run's keyed claims as the store will after an evaluation. */
  record(
    task: string,
    runId: string,
    createdAt: string,
    claims: { key: string; value: unknown; text?: string; claim_id?: string | null }[],
  ): void {
    this.runTasks.set(runId, task);
    for (const c of claims) {
      this.runs.push({
        run_id: runId,
        key: normaliseKey(c.key),
        value: c.value,
        text: c.text ?? "",
        created_at: createdAt,
        claim_id: c.claim_id ?? null,
      });
    }
  }

  demotedClaims(): DemotedClaim[] {
    this.calls.demoted += 1;
    return this.ledger
      .filter((l) => l.status === "demoted")
      .map((l) => ({
        id: l.id,
        text: l.text,
        key: l.key === undefined ? null : normaliseKey(l.key),
        value: l.value ?? null,
        reason: l.reason ?? null,
        demoted_by: l.demoted_by ?? null,
        watch: l.watch ?? null,
      }));
  }

  liveClaims(keys: readonly string[]): LedgerClaim[] {
    this.calls.live += 1;
    return this.ledger.flatMap((l) =>
      l.status === "live" && l.key !== undefined && keys.includes(normaliseKey(l.key))
        ? [{ id: l.id, text: l.text, key: normaliseKey(l.key), value: l.value }]
        : [],
    );
  }

  priorRunCount(task: string): number {
    this.calls.count += 1;
    return [...this.runTasks.values()].filter((t) => t === task).length;
  }

  priorRunClaims(task: string, keys: readonly string[]): PriorRunClaim[] {
    this.calls.prior += 1;
    return this.runs
      .filter((r) => this.runTasks.get(r.run_id) === task && keys.includes(r.key))
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }
}

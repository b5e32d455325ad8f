// Prior claims overlaid by the claims an evaluation brings itself (shared by both engines).
import type { ClaimHistory } from "../../gates/ports.js";
import type { DemotedClaim } from "../../gates/ports.js";
import type { LedgerLine } from "./claims-jsonl.js";
import { normaliseKey } from "../../gates/values.js";

/**
 * A history that adds ledger lines (from a file, for one evaluation) to another history without storing them.
 * A line replaces a stored claim with the same id, and a later line an earlier one.
 */
export function overlayHistory(base: ClaimHistory, given: readonly LedgerLine[]): ClaimHistory {
  if (given.length === 0) return base;
  // A later line with the same id wins (a result's own ledger over a thresholds file ledger).
  const lines = [...new Map(given.map((l) => [l.id, l])).values()];
  const ids = new Set(lines.map((l) => l.id));
  const key = (k: string | null): string | null => (k === null ? null : normaliseKey(k));
  const demoted: DemotedClaim[] = lines
    .filter((l) => l.status === "demoted")
    .map((l) => ({
      id: l.id,
      text: l.text,
      key: key(l.key),
      value: l.value,
      reason: l.reason,
      demoted_by: l.demoted_by,
      watch: l.watch,
    }));
  return {
    demotedClaims: () => [...base.demotedClaims().filter((d) => !ids.has(d.id)), ...demoted],
    liveClaims: (keys) => {
      const wanted = new Set(keys);
      const own = lines.flatMap((l) => {
        const k = key(l.key);
        return l.status === "live" && k !== null && wanted.has(k)
          ? [{ id: l.id, text: l.text, key: k, value: l.value }]
          : [];
      });
      return [...base.liveClaims(keys).filter((c) => !ids.has(c.id)), ...own];
    },
    priorRunClaims: (task, keys) => base.priorRunClaims(task, keys),
    priorRunCount: (task) => base.priorRunCount(task),
  };
}

// Shared gate vocabulary: gate names in report order, gate outcomes, and turning checks into a score.
import type { Finding, Severity } from "./contracts.js";

/** The eleven gates, in the fixed report order (the original README's table order). */
export const GATE_NAMES = [
  "contract",
  "outcome",
  "evidence",
  "provenance",
  "baseline",
  "statistics",
  "simplicity",
  "explainability",
  "contradiction",
  "stability",
  "adversarial",
] as const;

/** One gate's name. */
export type GateName = (typeof GATE_NAMES)[number];

/**
 * A gate's verdicts. `not_comparable` is the stability gate's: stability was measured (several runs, or earlier runs
 * of the task) but there was nothing keyed to compare, and a run that cannot be measured has not passed.
 */
export const GATE_STATUSES = ["passed", "blocked", "not_applicable", "not_comparable"] as const;

/** One gate's verdict. */
export type GateStatus = (typeof GATE_STATUSES)[number];

/** The statuses that block a release (both modes of `conjunctive`). */
export const BLOCKING_STATUSES: ReadonlySet<GateStatus> = new Set<GateStatus>(["blocked", "not_comparable"]);

/** How bad a status is when runs are combined: the worst one wins. */
const STATUS_RANK: Record<GateStatus, number> = { not_applicable: 0, passed: 1, not_comparable: 2, blocked: 3 };

/** What one gate answers. `score` is 0–100 with one decimal, or null when nothing was checked. */
export interface GateOutcome {
  status: GateStatus;
  score: number | null;
  findings: Finding[];
}

/** Checks counted while a gate runs; each failed check should have added at least one error finding. */
export class Tally {
  checks = 0;
  passed = 0;
  readonly findings: Finding[] = [];

  /** Counts one check; when it fails, records the given findings. */
  check(ok: boolean, failures: Finding[] = []): boolean {
    this.checks += 1;
    if (ok) this.passed += 1;
    else this.findings.push(...failures);
    return ok;
  }

  /** Records a finding that is not itself a check (a warning or a note). */
  note(finding: Finding): void {
    this.findings.push(finding);
  }
}

/** Builds a finding; severity defaults to `error`. */
export function finding(
  code: string,
  message: string,
  extra: { severity?: Severity; claim_id?: string | undefined } = {},
): Finding {
  const f: Finding = { code, message, severity: extra.severity ?? "error" };
  if (extra.claim_id !== undefined) f.claim_id = extra.claim_id;
  return f;
}

/** Rounds to one decimal, the precision every score is reported in. */
export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/**
 * Turns a tally into an outcome: blocked on any error finding, not_applicable with no checks,
 * score = 100 × passed ÷ checks × factor − penalty per warning, floored at 0.
 */
export function finish(t: Tally, warningPenalty: number, factor = 1): GateOutcome {
  const errors = t.findings.some((f) => f.severity === "error");
  if (t.checks === 0)
    return { status: errors ? "blocked" : "not_applicable", score: errors ? 0 : null, findings: t.findings };
  const warnings = t.findings.filter((f) => f.severity === "warning").length;
  const base = ((100 * t.passed) / t.checks) * factor;
  return {
    status: errors ? "blocked" : "passed",
    score: round1(Math.max(0, base - warningPenalty * warnings)),
    findings: t.findings,
  };
}

/** Combines one gate's per-run outcomes: worst status, lowest score, findings tagged with their run. */
export function combineRuns(outcomes: GateOutcome[]): GateOutcome {
  if (outcomes.length === 1 && outcomes[0]) return outcomes[0];
  const tagged = outcomes.flatMap((o, i) => o.findings.map((f) => ({ ...f, run: i + 1 })));
  const scores = outcomes.map((o) => o.score).filter((s): s is number => s !== null);
  const status = outcomes.reduce<GateStatus>(
    (worst, o) => (STATUS_RANK[o.status] > STATUS_RANK[worst] ? o.status : worst),
    "not_applicable",
  );
  return { status, score: scores.length > 0 ? Math.min(...scores) : null, findings: tagged };
}

/** The outcome of a gate that was not evaluated because the release is already blocked earlier. */
export function skipped(reason: string): GateOutcome {
  return { status: "not_applicable", score: null, findings: [finding("GATE_SKIPPED", reason, { severity: "info" })] };
}

// The release decision: parse the input, read history once through the port, run the eleven gates, weigh and decide.
import { adversarialGate, type ReviewOutcome } from "./adversarial.js";
import { baselineGate } from "./baseline.js";
import { contractGate } from "./contract.js";
import { splitEvaluationInput, type Finding, type Result, type Task } from "./contracts.js";
import { contradictionGate, keyedClaims } from "./contradiction.js";
import type { Blocker, Decision } from "./decision.js";
import { evidenceGate } from "./evidence.js";
import { explainabilityGate } from "./explainability.js";
import {
  BLOCKING_STATUSES,
  combineRuns,
  finding,
  GATE_NAMES,
  round1,
  skipped,
  type GateName,
  type GateOutcome,
} from "./outcome-kit.js";
import { outcomeGate } from "./outcome.js";
import { snapshotEvidence, type SourceLink } from "./ledger-evidence.js";
import {
  EMPTY_HISTORY,
  type ClaimHistory,
  type EvidenceResolver,
  type EvidenceSnapshot,
  type HistorySnapshot,
} from "./ports.js";
import { provenanceGate } from "./provenance.js";
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from "./settings.js";
import { simplicityGate } from "./simplicity.js";
import { stabilityGate } from "./stability.js";
import { statisticsGate } from "./statistics.js";
import { createValueMatcher, type QuantityComparer, type ValueMatcher } from "./values.js";
import type { WatchCache } from "./watch.js";

/** Everything a decision may use besides the input itself. */
export interface DecideOptions {
  /** Complete settings (defaults merged with thresholds.toml); a request's own `settings` is merged over these. */
  settings?: Settings;
  history?: ClaimHistory;
  /** The physical comparer from src/quantity; without it values compare as normalised text. */
  compareQuantities?: QuantityComparer;
  /** Post-run hook and reviewer answers, one list per run (index = run). */
  reviews?: readonly (readonly ReviewOutcome[])[];
  /** Injected file check for `evidence.check_paths`. */
  pathExists?: (path: string) => boolean;
  watchCache?: WatchCache;
  /** Resolves ledger locators (`ledger:sessions/...`) against the team's rows; without it they are not checked. */
  evidence?: EvidenceResolver;
  /** The same, already fetched (an asynchronous store fetches with `evidenceLocators` first); wins over `evidence`. */
  ledger?: EvidenceSnapshot;
}

type PerRunGate = Exclude<GateName, "contract" | "stability">;

interface Context {
  task: Task;
  settings: Settings;
  history: HistorySnapshot;
  same: ValueMatcher;
  options: DecideOptions;
  ledger: EvidenceSnapshot | undefined;
  /** Per run, the `sources` entries the evidence gate found. */
  links: SourceLink[][];
}

/** The per-run gates as a table: name → how it reads one run. */
const PER_RUN: Record<PerRunGate, (run: Result, index: number, ctx: Context) => GateOutcome> = {
  outcome: (r, _i, c) => outcomeGate(c.task, r, c.settings),
  evidence: (r, i, c) =>
    evidenceGate(r, c.settings, {
      ...(c.options.pathExists ? { pathExists: c.options.pathExists } : {}),
      ...(c.ledger ? { ledger: c.ledger } : {}),
      links: (c.links[i] = []),
    }),
  provenance: (r, _i, c) => provenanceGate(r, c.settings),
  baseline: (r, _i, c) => baselineGate(r, c.settings),
  statistics: (r, _i, c) => statisticsGate(r, c.settings),
  simplicity: (r, _i, c) => simplicityGate(r, c.settings),
  explainability: (r, _i, c) => explainabilityGate(r, c.settings),
  contradiction: (r, _i, c) => contradictionGate(r, c.settings, c.history, c.same, c.options.watchCache),
  adversarial: (r, i, c) => adversarialGate(r, c.settings, c.options.reviews?.[i] ?? []),
};

/** The normalised keys of every keyed claim across runs: what history is asked about. */
export function runKeys(runs: readonly Result[]): string[] {
  return [...new Set(runs.flatMap((r) => keyedClaims(r).map((c) => c.key)))];
}

/** The keyed claims a store records per run for later stability checks (key normalised). */
export function claimsToRecord(
  runs: readonly Result[],
): { run: number; key: string; value: unknown; text: string; claim_id: string | null }[] {
  return runs.flatMap((r, i) =>
    keyedClaims(r).map((c) => ({ run: i + 1, key: c.key, value: c.value, text: c.text, claim_id: c.id ?? null })),
  );
}

/** Reads what the gates need from history, once per decision. */
export function snapshotHistory(history: ClaimHistory, task: Task, runs: readonly Result[]): HistorySnapshot {
  const keys = runKeys(runs);
  const named = task.id.trim() !== "";
  return {
    demoted: history.demotedClaims(),
    live: keys.length > 0 ? history.liveClaims(keys) : [],
    prior: keys.length > 0 && named ? history.priorRunClaims(task.id, keys) : [],
    // Only a single run with nothing keyed needs to know whether stability is measured against earlier runs.
    priorRuns: keys.length === 0 && runs.length === 1 && named ? history.priorRunCount(task.id) : 0,
  };
}

/** Weighted mean of the scored gates (weights from settings), one decimal. */
export function overallScore(gates: Record<GateName, GateOutcome>, settings: Settings): number {
  let num = 0;
  let den = 0;
  for (const g of GATE_NAMES) {
    const s = gates[g].score;
    if (s === null) continue;
    num += settings.weights[g] * s;
    den += settings.weights[g];
  }
  if (den === 0) return GATE_NAMES.some((g) => BLOCKING_STATUSES.has(gates[g].status)) ? 0 : 100;
  return round1(num / den);
}

/**
 * Applies the conjunctive switch and returns the decision. A blocked (or not comparable) gate blocks in both modes;
 * with conjunctive = false a score under global.min_score blocks as well ("to let the overall score block as well").
 */
export function conclude(
  gates: Record<GateName, GateOutcome>,
  settings: Settings,
  extra: Finding[] = [],
  sources: SourceLink[] = [],
): Decision {
  const overall = overallScore(gates, settings);
  const blockedBy: Blocker[] = GATE_NAMES.filter((g) => BLOCKING_STATUSES.has(gates[g].status));
  const findings = [...extra];
  if (!settings.global.conjunctive && overall < settings.global.min_score) {
    blockedBy.push("overall_score");
    findings.push(
      finding(
        "OVERALL_BELOW_MIN",
        `The overall score ${overall} is below global.min_score ${settings.global.min_score}; with conjunctive = false ` +
          "the score blocks as well as the gates. Raise the gates' scores, or lower global.min_score.",
      ),
    );
  }
  return {
    status: blockedBy.length > 0 ? "blocked" : "released",
    blocked_by: blockedBy,
    overall_score: overall,
    gates,
    findings,
    sources,
  };
}

function allSkipped(reason: string): Record<GateName, GateOutcome> {
  return Object.fromEntries(GATE_NAMES.map((g) => [g, skipped(reason)])) as Record<GateName, GateOutcome>;
}

/** A decision for a run a pre-run hook stopped: the agent never ran and every gate is skipped. */
export function blockedBeforeRun(hookFindings: Finding[]): Decision {
  return {
    status: "blocked",
    blocked_by: ["pre_run"],
    overall_score: 0,
    gates: allSkipped("Not evaluated: a pre-run hook blocked the run before the agent ran."),
    findings: [finding("PRE_RUN_BLOCKED", "A pre-run hook returned an error; the agent was not run."), ...hookFindings],
    sources: [],
  };
}

/**
 * Decides one evaluation: a bare result, `{task, result}` or `{task, runs}` (optionally with `settings`).
 * Throws SettingsError when the request's settings are invalid; every other problem is a finding.
 */
export function decide(input: unknown, options: DecideOptions = {}): Decision {
  const raw = splitEvaluationInput(input);
  const settings = mergeSettings(options.settings ?? DEFAULT_SETTINGS, raw.settings);
  const contract = contractGate(raw);
  if (!contract.ok) {
    const gates = allSkipped("Not evaluated: the input does not match the result contract.");
    gates.contract = contract.outcome;
    return conclude(gates, settings);
  }
  const { task, runs } = contract;
  const ctx: Context = {
    task,
    settings,
    options,
    history: snapshotHistory(options.history ?? EMPTY_HISTORY, task, runs),
    same: createValueMatcher(options.compareQuantities),
    ledger: options.ledger ?? (options.evidence ? snapshotEvidence(options.evidence, runs) : undefined),
    links: [],
  };
  const gates = { contract: contract.outcome } as Record<GateName, GateOutcome>;
  for (const g of GATE_NAMES) {
    if (g === "contract") continue;
    gates[g] =
      g === "stability"
        ? stabilityGate(runs, settings, ctx.history, ctx.same)
        : combineRuns(runs.map((r, i) => PER_RUN[g](r, i, ctx)));
  }
  const sources = ctx.links.flatMap((ls, i) => (runs.length > 1 ? ls.map((l) => ({ ...l, run: i + 1 })) : ls));
  return conclude(gates, settings, [], sources);
}

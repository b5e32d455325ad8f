// Gate 10, stability: a key keeps its value across the repeats of this evaluation and every earlier run of the task.
import type { Finding, Result } from "./contracts.js";
import { keyedClaims, supersededSet } from "./contradiction.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { DemotedClaim, PriorRunClaim } from "./ports.js";
import type { Settings } from "./settings.js";
import { valueText, type ValueMatcher } from "./values.js";

/** Earlier runs of the same task, and the demotions that retire some of their values. */
export interface StabilityHistory {
  prior: readonly PriorRunClaim[];
  demoted: readonly DemotedClaim[];
  /** Earlier released runs of the task (asked only for a single run with nothing keyed; 0 means none or not asked). */
  priorRuns?: number;
}

function sameSet(a: readonly unknown[], b: readonly unknown[], same: ValueMatcher): boolean {
  return a.every((x) => b.some((y) => same(x, y))) && b.every((y) => a.some((x) => same(x, y)));
}

const show = (vs: readonly unknown[]): string => vs.map((v) => JSON.stringify(valueText(v))).join(" and ");

/**
 * Nothing to compare. Where stability is measured (several runs, earlier runs of the task, or require_repeats) the gate
 * is `not_comparable` and blocks: a run that cannot be measured has not passed. Elsewhere it is `not_applicable`.
 */
function notComparable(message: string, measured: boolean): GateOutcome {
  const f = finding("NOT_COMPARABLE", message, { severity: measured ? "error" : "info" });
  return { status: measured ? "not_comparable" : "not_applicable", score: measured ? 0 : null, findings: [f] };
}

/** Why a result with no keyed claims at all is, or is not yet, measured for stability. */
function nothingKeyed(runs: number, priorRuns: number, requireRepeats: boolean): GateOutcome {
  const none = "Not comparable: the result has no keyed claims (key and value), so its content cannot be compared";
  const fix = "a run that cannot be measured has not passed. Give the claims that carry its figures a key and a value.";
  if (runs > 1) return notComparable(`${none} across its ${runs} runs; ${fix}`, true);
  if (priorRuns > 0) {
    return notComparable(`${none} with the ${priorRuns} earlier released run(s) of this task; ${fix}`, true);
  }
  if (requireRepeats) return notComparable(`${none}, and stability.require_repeats = true; ${fix}`, true);
  return notComparable(`${none} across runs. It is not stable either: stability is not measured for it.`, false);
}

/** Earlier runs' values per key and run, without values the ledger demoted or the result superseded. */
function priorByKey(
  history: StabilityHistory,
  superseded: ReadonlySet<string>,
  same: ValueMatcher,
): Map<string, Map<string, PriorRunClaim[]>> {
  const demotedByKey = new Map<string, unknown[]>();
  for (const d of history.demoted) {
    if (d.key === null || d.value === null || d.value === undefined) continue;
    const list = demotedByKey.get(d.key);
    if (list) list.push(d.value);
    else demotedByKey.set(d.key, [d.value]);
  }
  const out = new Map<string, Map<string, PriorRunClaim[]>>();
  for (const p of history.prior) {
    if (p.claim_id && superseded.has(p.claim_id)) continue;
    // A value the ledger has demoted was wrong; stating the correction is not drift.
    if (demotedByKey.get(p.key)?.some((v) => same(v, p.value))) continue;
    let runs = out.get(p.key);
    if (!runs) out.set(p.key, (runs = new Map()));
    const claims = runs.get(p.run_id);
    if (claims) claims.push(p);
    else runs.set(p.run_id, [p]);
  }
  return out;
}

/** The earlier runs whose values for a key differ from `ref`; runs with identical stored values are compared once. */
function driftedRuns(
  ref: readonly unknown[],
  earlier: readonly PriorRunClaim[][],
  same: ValueMatcher,
): PriorRunClaim[][] {
  const verdicts = new Map<string, boolean>();
  return earlier.filter((claims) => {
    const signature = claims
      .map((p) => JSON.stringify(p.value))
      .sort()
      .join("\u0000");
    let differs = verdicts.get(signature);
    if (differs === undefined) {
      differs = !sameSet(
        ref,
        claims.map((p) => p.value),
        same,
      );
      verdicts.set(signature, differs);
    }
    return differs;
  });
}

/** Gate 10: one check per key across the runs of this evaluation and the earlier runs of its task. */
export function stabilityGate(
  runs: readonly Result[],
  settings: Settings,
  history: StabilityHistory,
  same: ValueMatcher,
): GateOutcome {
  const requireRepeats = settings.stability.require_repeats;
  const superseded = new Set(runs.flatMap((r) => [...supersededSet(r)]));
  const perRun = runs.map((r) => keyedClaims(r));
  const keyedRuns = perRun.filter((c) => c.length > 0).length;
  if (keyedRuns === 0) return nothingKeyed(runs.length, history.priorRuns ?? 0, requireRepeats);
  if (keyedRuns < runs.length) {
    const empty = perRun.flatMap((c, i) => (c.length === 0 ? [i + 1] : []));
    return notComparable(
      `Not comparable: run(s) ${empty.join(", ")} of ${runs.length} have no keyed claims, so the repeats cannot be compared.`,
      true,
    );
  }
  const prior = priorByKey(history, superseded, same);
  const keys = [...new Set(perRun.flatMap((cs) => cs.map((c) => c.key)))];
  const comparedPrior = keys.some((k) => (prior.get(k)?.size ?? 0) > 0);
  if (runs.length < 2 && !comparedPrior) {
    return notComparable(
      "Not comparable yet: one run and no earlier run of this task with the same keys; there is nothing to compare it with.",
      requireRepeats,
    );
  }

  const t = new Tally();
  for (const key of keys) {
    const sets = perRun.map((cs) => cs.filter((c) => c.key === key));
    const present = sets.flatMap((s, i) => (s.length > 0 ? [i] : []));
    const missing = sets.flatMap((s, i) => (s.length === 0 ? [i + 1] : []));
    if (missing.length > 0) {
      t.note(
        finding(
          "KEY_MISSING_IN_RUN",
          `The key "${key}" is missing from run(s) ${missing.join(", ")} of ${runs.length}.`,
          { severity: "warning" },
        ),
      );
    }
    const refIndex = present[0] ?? 0;
    const ref = (sets[refIndex] ?? []).map((c) => c.value);
    const failures: Finding[] = [];
    for (const i of present.slice(1)) {
      const vals = (sets[i] ?? []).map((c) => c.value);
      if (!sameSet(ref, vals, same)) {
        failures.push(
          finding(
            "VALUE_DRIFT",
            `The key "${key}" is ${show(ref)} in run ${refIndex + 1} but ${show(vals)} in run ${i + 1}; repeated runs must give the same value.`,
          ),
        );
      }
    }
    const earlier = [...(prior.get(key)?.values() ?? [])];
    const drifted = driftedRuns(ref, earlier, same);
    const latest = drifted[drifted.length - 1]?.[0];
    if (latest) {
      const replaces = sets
        .flat()
        .some((c) => c.supersedes !== undefined && c.supersedes !== null && c.supersedes.length > 0);
      const text =
        `The key "${key}" is ${show(ref)} now but was ` +
        `${show(drifted[drifted.length - 1]?.map((p) => p.value) ?? [])} in ${drifted.length} of ` +
        `${earlier.length} earlier run(s) of this task (latest: run ${latest.run_id} at ${latest.created_at})`;
      failures.push(
        replaces
          ? finding("DRIFT_SUPERSEDED", `${text}; allowed because the claim names what it supersedes.`, {
              severity: "info",
            })
          : finding(
              "VALUE_DRIFT",
              `${text}. Correct it, or name the replaced claim in supersedes if the value has really changed.`,
            ),
      );
    }
    const errors = failures.filter((f) => f.severity === "error");
    t.check(errors.length === 0, errors);
    for (const f of failures) if (f.severity !== "error") t.note(f);
  }
  return finish(t, settings.global.warning_penalty);
}

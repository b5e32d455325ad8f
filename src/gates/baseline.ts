// Gate 5, baseline: every comparison names what it was compared against, and at least one baseline is naive.
import type { Result } from "./contracts.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { Settings } from "./settings.js";

/** Words that claim a win or a difference, which need a declared comparison behind them (our own fixed pattern). */
const COMPARATIVE = new RegExp(
  "\\b(?:" +
    [
      "outperform\\w*",
      "beats?",
      "beating",
      "better than",
      "worse than",
      "(?:faster|slower|cheaper|higher|lower|larger|smaller|more accurate|more efficient) than",
      "wins? (?:over|against)",
      "improv\\w* (?:over|on|upon|relative to)",
      "compared (?:to|with)",
      "versus",
      "vs\\.?",
      "relative to",
      "superior to",
      "inferior to",
    ].join("|") +
    ")(?!\\w)",
  "i",
);

/** Baseline names that name nothing. */
const JUNK_BASELINES = new Set(["-", "?", "x", "n/a", "na", "none", "null", "tbd", "todo", "baseline", "unknown"]);

/** The first comparative phrase in a text, or null. */
export function comparativePhrase(text: string): string | null {
  return COMPARATIVE.exec(text)?.[0] ?? null;
}

/** True when a baseline string names something. */
export function isNamedBaseline(baseline: string | null | undefined): baseline is string {
  return (
    typeof baseline === "string" &&
    baseline.trim() !== "" &&
    !JUNK_BASELINES.has(baseline.trim().replace(/\s+/g, " ").toLowerCase())
  );
}

/** Gate 5. Without comparisons it blocks only a result that claims a win in words. */
export function baselineGate(result: Result, settings: Settings): GateOutcome {
  const t = new Tally();
  if (result.comparisons.length === 0) {
    const phrase = [result.output, ...result.claims.map((c) => c.text)].map(comparativePhrase).find((p) => p !== null);
    if (phrase) {
      t.check(false, [
        finding(
          "COMPARATIVE_WITHOUT_COMPARISON",
          `The result says "${phrase}" but declares no comparison; add a comparison with subject, baseline, ` +
            `baseline_kind (one of them "naive"), metric and effect.`,
        ),
      ]);
    }
    return finish(t, settings.global.warning_penalty);
  }
  result.comparisons.forEach((c, i) => {
    const named = isNamedBaseline(c.baseline);
    t.check(named, [
      finding(
        "BASELINE_NOT_NAMED",
        `Comparison ${i + 1} ("${c.subject}") ` +
          `${c.baseline ? `names the baseline "${c.baseline}", which names nothing` : "names no baseline"}; ` +
          `say what it was compared against, such as "uniform rotation" or "base rate".`,
      ),
    ]);
    if (c.baseline_kind === undefined || c.baseline_kind === null) {
      t.note(
        finding(
          "BASELINE_KIND_MISSING",
          `Comparison ${i + 1} ("${c.subject}") does not declare baseline_kind; send naive, alternative, previous or external.`,
          { severity: "warning" },
        ),
      );
    }
  });
  if (settings.baseline.require_naive) {
    t.check(
      result.comparisons.some((c) => c.baseline_kind === "naive" && isNamedBaseline(c.baseline)),
      [
        finding(
          "NO_NAIVE_BASELINE",
          "No comparison is against a naive baseline; add one against a policy that reads no input (uniform " +
            'rotation, the base rate, the most recent or most popular item) with baseline_kind "naive".',
        ),
      ],
    );
  }
  return finish(t, settings.global.warning_penalty);
}

// Gate 11, adversarial: deterministic critics, post-run hooks and registered reviewers may each raise an objection.
import type { Finding, Result } from "./contracts.js";
import { CRITICS } from "./critics.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { Settings } from "./settings.js";

/** What one post-run hook or reviewer answered for one run; collected before the (synchronous) decision. */
export interface ReviewOutcome {
  name: string;
  kind: "post_run" | "reviewer";
  findings: Finding[];
  /** Set when the hook or reviewer threw: the gate fails closed. */
  error?: string;
}

/** Gate 11: one check per enabled critic and per review; a check fails on any error finding. Reviews only add objections. */
export function adversarialGate(
  result: Result,
  settings: Settings,
  reviews: readonly ReviewOutcome[] = [],
): GateOutcome {
  const t = new Tally();
  const take = (found: Finding[]): void => {
    const errors = found.filter((f) => f.severity === "error");
    t.check(errors.length === 0, errors);
    for (const f of found) if (f.severity !== "error") t.note(f);
  };
  for (const name of settings.adversarial.critics) take(CRITICS[name](result));
  for (const r of reviews) {
    if (r.error !== undefined) {
      const code = r.kind === "reviewer" ? "REVIEWER_ERROR" : "HOOK_ERROR";
      take([
        finding(
          code,
          `The ${r.kind === "reviewer" ? "reviewer" : "post-run hook"} "${r.name}" failed: ${r.error}. The gate fails closed until it runs.`,
        ),
      ]);
    } else {
      take(r.findings);
    }
  }
  return finish(t, settings.global.warning_penalty);
}

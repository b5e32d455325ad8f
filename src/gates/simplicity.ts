// Gate 7, simplicity: exposed controls, required decisions and setup steps stay within the agreed limits.
import type { Result } from "./contracts.js";
import { finding, finish, Tally, type GateOutcome } from "./outcome-kit.js";
import type { Settings } from "./settings.js";

type Limit = keyof Settings["simplicity"];

/** Which result field each limit bounds, its finding code and its wording. */
const LIMITS: readonly {
  field: "exposed_controls" | "required_decisions" | "configuration_steps";
  limit: Limit;
  code: string;
  noun: string;
}[] = [
  { field: "exposed_controls", limit: "max_exposed_controls", code: "TOO_MANY_CONTROLS", noun: "exposed controls" },
  {
    field: "required_decisions",
    limit: "max_required_decisions",
    code: "TOO_MANY_DECISIONS",
    noun: "required decisions",
  },
  {
    field: "configuration_steps",
    limit: "max_configuration_steps",
    code: "TOO_MANY_SETUP_STEPS",
    noun: "configuration steps",
  },
];

/** Gate 7: three checks, each passing at or below its limit. */
export function simplicityGate(result: Result, settings: Settings): GateOutcome {
  const t = new Tally();
  for (const l of LIMITS) {
    const value = result[l.field];
    const max = settings.simplicity[l.limit];
    t.check(value <= max, [
      finding(
        l.code,
        `The result has ${value} ${l.noun}; the limit is ${max} (simplicity.${l.limit}). Remove ${value - max} or raise the limit in thresholds.toml.`,
      ),
    ]);
  }
  return finish(t, settings.global.warning_penalty);
}

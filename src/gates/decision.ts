// The release decision as data: its zod schema (the API.md answer of POST /v1/evaluations, without the stored id).
import { z } from "zod";
import { FindingSchema } from "./contracts.js";
import { GATE_NAMES, type GateName } from "./outcome-kit.js";

/** One gate's verdict in a decision. */
export const GateOutcomeSchema = z.object({
  status: z.enum(["passed", "blocked", "not_applicable"]),
  score: z.number().nullable(),
  findings: z.array(FindingSchema),
});

/** What blocked a release: a gate, the overall score (conjunctive = false), or a pre-run hook. */
export const BLOCKERS = [...GATE_NAMES, "overall_score", "pre_run"] as const;

/** The release decision. `findings` holds decision-level findings (OVERALL_BELOW_MIN, PRE_RUN_BLOCKED, ...). */
export const DecisionSchema = z.object({
  status: z.enum(["released", "blocked"]),
  blocked_by: z.array(z.enum(BLOCKERS)),
  overall_score: z.number(),
  gates: z.object(
    Object.fromEntries(GATE_NAMES.map((g) => [g, GateOutcomeSchema])) as Record<GateName, typeof GateOutcomeSchema>,
  ),
  findings: z.array(FindingSchema),
});

export type Decision = z.infer<typeof DecisionSchema>;
export type Blocker = (typeof BLOCKERS)[number];

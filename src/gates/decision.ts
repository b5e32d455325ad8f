// The release decision as data: its zod schema (the API.md answer of POST /v1/evaluations, without the stored id).
import { z } from "zod";
import { FindingSchema } from "./contracts.js";
import { GATE_NAMES, GATE_STATUSES, type GateName } from "./outcome-kit.js";

/** One gate's verdict in a decision. */
export const GateOutcomeSchema = z.object({
  status: z.enum(GATE_STATUSES),
  score: z.number().nullable(),
  findings: z.array(FindingSchema),
});

/** What blocked a release: a gate, the overall score (conjunctive = false), or a pre-run hook. */
export const BLOCKERS = [...GATE_NAMES, "overall_score", "pre_run"] as const;

/** One entry of `sources`: a fact's ledger locator and the crossing it rests on (API.md, evidence that resolves in the ledger). */
export const SourceLinkSchema = z.object({
  claim_id: z.string().nullable(),
  locator: z.string(),
  status: z.enum(["resolved", "not_found", "value_mismatch", "unit_mislabelled", "revised", "unchecked"]),
  crossing_id: z.number().int().nullable(),
  session_id: z.string().nullable(),
  seq: z.number().int().nullable(),
  tool: z.string().nullable(),
  value: z.number().nullable(),
  unit: z.string().nullable(),
  quality: z.string().nullable(),
  observed_at: z.string().nullable(),
  match: z.enum(["restated", "derived"]).nullable(),
  run: z.number().int().min(1).optional(),
});

/** The release decision. `findings` holds decision-level findings (OVERALL_BELOW_MIN, PRE_RUN_BLOCKED, ...). */
export const DecisionSchema = z.object({
  status: z.enum(["released", "blocked"]),
  blocked_by: z.array(z.enum(BLOCKERS)),
  overall_score: z.number(),
  gates: z.object(
    Object.fromEntries(GATE_NAMES.map((g) => [g, GateOutcomeSchema])) as Record<GateName, typeof GateOutcomeSchema>,
  ),
  findings: z.array(FindingSchema),
  sources: z.array(SourceLinkSchema),
});

export type Decision = z.infer<typeof DecisionSchema>;
export type Blocker = (typeof BLOCKERS)[number];

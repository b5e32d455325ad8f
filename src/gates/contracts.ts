// The typed contract of a gated result: task, result, claim, comparison, finding, and the three input shapes.
import { z } from "zod";

/** The four kinds of claim (American spelling `judgment`, as in the original). */
export const CLAIM_KINDS = ["fact", "inference", "judgment", "recommendation"] as const;
/** Declared kinds of baseline; only `naive` satisfies the naive-baseline rule. */
export const BASELINE_KINDS = ["naive", "alternative", "previous", "external"] as const;
/** Finding severities: only `error` blocks. */
export const SEVERITIES = ["error", "warning", "info"] as const;

const count = z.number().int().min(0);
const stringOrList = z.union([z.string(), z.array(z.string())]);

/** A physical quantity as a claim value: the shape API.md gives quantities on the wire. */
export const QuantityValueSchema = z.strictObject({
  value: z.union([z.number(), z.array(z.number())]),
  unit: z.string(),
  datum: z.string().optional(),
  crs: z.string().optional(),
  tz: z.string().optional(),
  quality: z.string().optional(),
  source: z.string().optional(),
  observed_at: z.string().optional(),
});

/** A claim's comparable value: text, number, boolean or a quantity object. */
export const ClaimValueSchema = z.union([z.string(), z.number(), z.boolean(), QuantityValueSchema]);

/** One substantive statement of a result. */
export const ClaimSchema = z.strictObject({
  id: z.string().optional(),
  kind: z.enum(CLAIM_KINDS),
  text: z.string().trim().min(1),
  key: z.string().optional(),
  value: ClaimValueSchema.nullable().optional(),
  source: stringOrList.nullable().optional(),
  confidence: z.number().min(0).max(1).nullable().optional(),
  verified: z.boolean().nullable().optional(),
  rationale: z.string().nullable().optional(),
  supersedes: stringOrList.nullable().optional(),
  sample_size: count.nullable().optional(),
  tests: z.array(z.string()).optional(),
  based_on: z.array(z.string()).optional(),
});

/** A measured comparison of a subject against a declared baseline. */
export const ComparisonSchema = z.strictObject({
  subject: z.string().trim().min(1),
  baseline: z.string().nullable().optional(),
  baseline_kind: z.enum(BASELINE_KINDS).nullable().optional(),
  metric: z.string().optional(),
  effect: z.union([z.string(), z.number()]).nullable().optional(),
  sample_size: count.nullable().optional(),
  tests: z.array(z.string()).optional(),
});

/** The task an agent was given. */
export const TaskSchema = z.strictObject({
  id: z.string().default(""),
  objective: z.string().default(""),
  required_deliverables: z.array(z.string()).default([]),
  required_keys: z.array(z.string()).default([]),
  metadata: z.record(z.string(), z.unknown()).default({}),
});

/** What one run of an agent produced. */
export const ResultSchema = z.strictObject({
  output: z.string(),
  claims: z.array(ClaimSchema).default([]),
  comparisons: z.array(ComparisonSchema).default([]),
  exposed_controls: count.default(0),
  required_decisions: count.default(0),
  configuration_steps: count.default(0),
  deliverables: z.record(z.string(), z.string()).default({}),
  metadata: z.record(z.string(), z.unknown()).default({}),
});

/** One observation a gate makes. */
export const FindingSchema = z.object({
  code: z.string(),
  message: z.string(),
  severity: z.enum(SEVERITIES),
  claim_id: z.string().optional(),
  run: z.number().int().min(1).optional(),
});

export type ClaimKind = (typeof CLAIM_KINDS)[number];
export type BaselineKind = (typeof BASELINE_KINDS)[number];
export type Severity = (typeof SEVERITIES)[number];
export type QuantityValue = z.infer<typeof QuantityValueSchema>;
export type ClaimValue = z.infer<typeof ClaimValueSchema>;
export type Claim = z.infer<typeof ClaimSchema>;
export type Comparison = z.infer<typeof ComparisonSchema>;
export type Task = z.infer<typeof TaskSchema>;
export type Result = z.infer<typeof ResultSchema>;
export type Finding = z.infer<typeof FindingSchema>;

/** The three accepted input shapes, split into raw parts before any contract check. */
export interface RawEvaluationInput {
  task: unknown;
  runs: unknown[];
  settings: unknown;
  /** Problems with the envelope itself (not with a result inside it). */
  findings: Finding[];
}

const ENVELOPE_KEYS = new Set(["task", "result", "runs", "settings"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Splits a bare result, `{task, result}` or `{task, runs}` into task and runs without judging their contents. */
export function splitEvaluationInput(input: unknown): RawEvaluationInput {
  const bad = (message: string): RawEvaluationInput => ({
    task: undefined,
    runs: [],
    settings: undefined,
    findings: [{ code: "CONTRACT_INVALID_RESULT", message, severity: "error" }],
  });
  if (!isObject(input))
    return bad(
      `The input must be a JSON object (a result, {task, result} or {task, runs}); received ${describeValue(input)}.`,
    );
  if (!("result" in input) && !("runs" in input))
    return { task: undefined, runs: [input], settings: undefined, findings: [] };
  const unknown = Object.keys(input).filter((k) => !ENVELOPE_KEYS.has(k));
  if (unknown.length > 0)
    return bad(
      `The envelope has unknown field(s) ${unknown.map((k) => `\`${k}\``).join(", ")}; allowed are task, result, runs and settings.`,
    );
  if ("result" in input && "runs" in input)
    return bad("The envelope has both `result` and `runs`; send exactly one of them.");
  const settings = input.settings;
  if ("result" in input) return { task: input.task, runs: [input.result], settings, findings: [] };
  if (!Array.isArray(input.runs) || input.runs.length === 0)
    return bad(`\`runs\` must be a non-empty array of results; received ${describeValue(input.runs)}.`);
  return { task: input.task, runs: input.runs, settings, findings: [] };
}

/**
 * Why an input is not a result at all (not an object, a broken envelope, a result or run that is not an object), or null.
 * Boundaries answer such input as a usage error and store nothing; a result object with bad fields is the contract gate's.
 */
export function notAResult(input: unknown): string | null {
  const raw = splitEvaluationInput(input);
  if (raw.findings.length > 0) return raw.findings.map((f) => f.message).join(" ");
  const isEnvelope = isObject(input) && ("result" in input || "runs" in input);
  const where = (n: number): string =>
    !isEnvelope ? "The input" : "runs" in (input as object) ? `runs[${n}]` : "`result`";
  const bad = raw.runs.findIndex((r) => !isObject(r));
  if (bad < 0) return null;
  return (
    `${where(bad)} must be a JSON object (a result: output, claims, comparisons, ...); received ${describeValue(raw.runs[bad])}. ` +
    'Send for example {"result": {"output": "...", "claims": [...]}}.'
  );
}

/** Names a received JSON value for a message. */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`;
}

/** Thrown by `normaliseEvaluationInput` when the input does not match the contract. */
export class ContractError extends Error {
  readonly code = "contract_invalid";
  readonly findings: Finding[];
  constructor(findings: Finding[]) {
    super(findings.map((f) => f.message).join(" "));
    this.name = "ContractError";
    this.findings = findings;
  }
}

/**
 * Parses any of the three input shapes into a typed task and runs (types and fields only; the contract gate adds ids,
 * references and required keys); throws ContractError listing every violation.
 */
export function normaliseEvaluationInput(input: unknown): { task: Task; runs: Result[] } {
  const raw = splitEvaluationInput(input);
  const task = TaskSchema.safeParse(raw.task ?? {});
  const runs = raw.runs.map((r) => ResultSchema.safeParse(r));
  const findings = [...raw.findings];
  if (!task.success) findings.push(...task.error.issues.map((i) => issueFinding(i, "task")));
  runs.forEach((r, n) => {
    if (!r.success)
      findings.push(
        ...r.error.issues.map((i) => ({
          ...issueFinding(i, "result"),
          ...(raw.runs.length > 1 ? { run: n + 1 } : {}),
        })),
      );
  });
  if (findings.length > 0 || !task.success) throw new ContractError(findings);
  return { task: task.data, runs: runs.flatMap((r) => (r.success ? [r.data] : [])) };
}

type Issue = z.core.$ZodIssue;

/** Maps one zod issue to a contract finding with a stable code and a plain message. */
export function issueFinding(issue: Issue, root: "task" | "result"): Finding {
  const path = [root, ...issue.path.map(String)].join(".");
  const last = issue.path[issue.path.length - 1];
  const code = issueCode(issue, last, root);
  const message =
    issue.code === "unrecognized_keys"
      ? `${path} has unknown field(s) ${issue.keys.map((k) => `\`${k}\``).join(", ")}; check the spelling against the contract.`
      : `${path}: ${issue.message}.`;
  return { code, message, severity: "error" };
}

function issueCode(issue: Issue, last: PropertyKey | undefined, root: string): string {
  if (issue.code === "unrecognized_keys") return "CONTRACT_UNKNOWN_FIELD";
  if (issue.code === "invalid_value" && (last === "kind" || last === "baseline_kind")) return "CONTRACT_UNKNOWN_KIND";
  if (issue.code === "too_small" || issue.code === "too_big") {
    return issue.origin === "string" || issue.origin === "array" ? "CONTRACT_FIELD_TYPE" : "CONTRACT_RANGE";
  }
  if (root === "result" && (issue.path.length === 0 || (issue.path.length === 1 && last === "output")))
    return "CONTRACT_INVALID_RESULT";
  return "CONTRACT_FIELD_TYPE";
}

// The harness's suites as data: the shipped suites/tasks.json (corpus task data, MIT; suites/TASKS-LICENCE.md), read through zod,
// and the five conditions as a table.
import { readFileSync } from "node:fs";
import { z } from "zod";

const ParamSchema = z.object({
  unit: z.string().optional(),
  datum: z.string().optional(),
  tz: z.string().optional(),
  sourced: z.boolean().optional(),
  description: z.string().optional(),
});

const BodySchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("retrieval"),
    value: z.number().optional(),
    unit: z.string(),
    datum: z.string().optional(),
    quality: z.string().optional(),
    source: z.string().optional(),
    value_by_local_standard_hour: z.record(z.string(), z.number()).optional(),
    note: z.string().optional(),
  }),
  z.object({ kind: z.literal("compute"), formula: z.string() }),
  z.object({ kind: z.literal("failing_retrieval"), raises: z.string() }),
]);

const ToolSchema = z.object({
  description: z.string(),
  params: z.record(z.string(), ParamSchema),
  undeclared_params: z.array(z.string()),
  returns: z.object({ unit: z.string().optional(), datum: z.string().optional() }).nullable(),
  body: BodySchema,
});

const HazardSchema = z.object({
  kind: z.enum(["unit", "datum", "time", "fabrication"]),
  tool: z.string(),
  param: z.string(),
  source_tool: z.string().optional(),
  source_value: z.number().optional(),
  source_unit: z.string().optional(),
  source_datum: z.string().optional(),
  declared_unit: z.string().optional(),
  declared_datum: z.string().optional(),
  correct_value: z.number().optional(),
  correct_instant_utc: z.string().optional(),
});

const TaskSchema = z.object({
  suite: z.string(),
  hazard: z.string(),
  question: z.string(),
  tools: z.record(z.string(), ToolSchema),
  reference_answer: z.object({ value: z.number(), unit: z.string() }).nullable(),
  tolerance: z.number(),
  expects_refusal: z.boolean(),
});

const TasksFileSchema = z.object({
  system_prompt: z.string(),
  registered_datum_offsets: z.array(
    z.object({
      from: z.string(),
      to: z.string(),
      offset: z.object({ value: z.number(), unit: z.string() }).nullable(),
    }),
  ),
  tasks: z.record(z.string(), TaskSchema),
  hazards: z.record(z.string(), z.array(HazardSchema)),
  wrong_answer_signatures: z.record(z.string(), z.record(z.string(), z.number())),
});

/** One tool of a task: its declaration and its body, as data. */
export type TaskTool = z.infer<typeof ToolSchema>;
/** A tool body as data: a retrieval (constant or hourly table), a compute formula, or a retrieval that always fails. */
export type ToolBody = z.infer<typeof BodySchema>;
/** A parameter declaration of a task tool. */
export type TaskParam = z.infer<typeof ParamSchema>;
/** One hazard of a task: the parameter where an unconverted, unshifted or fabricated value would arrive. */
export type Hazard = z.infer<typeof HazardSchema>;
/** One task, with its name. */
export type Task = z.infer<typeof TaskSchema> & { name: string };
/** The whole task file. */
export type TaskData = {
  systemPrompt: string;
  offsets: z.infer<typeof TasksFileSchema>["registered_datum_offsets"];
  tasks: Task[];
  hazards: Record<string, Hazard[]>;
  signatures: Record<string, Record<string, number>>;
};

/** The suites, in the reference's order; `all` selects every task. */
export const SUITES = ["core", "hard", "grid", "proof", "uk"] as const;

/** How a condition differs: the schema shown, whether the guard refuses, whether a refusal goes back to the model. */
export type ConditionSpec = {
  /** `plain`: physical parameters typed number, units only in prose, bare-number results. */
  schema: "plain" | "physical_metadata";
  enforce: boolean;
  repair: boolean;
  /** Opaque unit abbreviations advertised spelled out (cfs as ft**3/s), in declarations and results. */
  expandUnits: boolean;
};

/** The five conditions. The first four are the reference's; `guarded_expanded` is `guarded` with spelled-out units. */
export const CONDITIONS = {
  baseline: { schema: "plain", enforce: false, repair: false, expandUnits: false },
  schema_only: { schema: "physical_metadata", enforce: false, repair: false, expandUnits: false },
  guarded: { schema: "physical_metadata", enforce: true, repair: false, expandUnits: false },
  guarded_repair: { schema: "physical_metadata", enforce: true, repair: true, expandUnits: false },
  guarded_expanded: { schema: "physical_metadata", enforce: true, repair: false, expandUnits: true },
} as const satisfies Record<string, ConditionSpec>;

/** A condition's name. */
export type Condition = keyof typeof CONDITIONS;

/** The condition names, in table order. */
export const CONDITION_NAMES = Object.keys(CONDITIONS) as Condition[];

/** Opaque abbreviations and their spelled-out forms (`guarded_expanded`); each is the same unit to the guard. */
export const EXPANSIONS: Readonly<Record<string, string>> = {
  cfs: "ft**3/s",
  "Ml/day": "megalitre/day",
  "Ml/d": "megalitre/day",
  mgd: "Mgal/day",
  "acre*ft": "acre*foot",
  "acre-ft": "acre*foot",
};

/** The unit as a condition advertises it. */
export function advertisedUnit(unit: string, condition: Condition): string {
  return CONDITIONS[condition].expandUnits ? (EXPANSIONS[unit] ?? unit) : unit;
}

let cached: TaskData | null = null;

/** The task data shipped in suites/tasks.json (outside src/: its copied prompts run past 160 characters), parsed once. */
export function taskData(): TaskData {
  if (cached) return cached;
  const raw = TasksFileSchema.parse(
    JSON.parse(readFileSync(new URL("../../suites/tasks.json", import.meta.url), "utf8")),
  );
  cached = {
    systemPrompt: raw.system_prompt,
    offsets: raw.registered_datum_offsets,
    tasks: Object.entries(raw.tasks).map(([name, t]) => ({ name, ...t })),
    hazards: raw.hazards,
    signatures: raw.wrong_answer_signatures,
  };
  return cached;
}

/** A selection the CLI could not satisfy (an unknown suite, task or condition). */
export class SelectionError extends Error {
  readonly code = "invalid_selection";
}

/** The tasks of `suite` (or `all`), narrowed to `names` when given; unknown names are a SelectionError. */
export function selectTasks(data: TaskData, suite: string, names?: readonly string[]): Task[] {
  if (suite !== "all" && !(SUITES as readonly string[]).includes(suite))
    throw new SelectionError(`unknown suite '${suite}'; choose one of ${[...SUITES, "all"].join(", ")}`);
  const inSuite = data.tasks.filter((t) => suite === "all" || t.suite === suite);
  if (!names || names.length === 0) return inSuite;
  const unknown = names.filter((n) => !inSuite.some((t) => t.name === n));
  if (unknown.length)
    throw new SelectionError(
      `no task ${unknown.map((n) => `'${n}'`).join(", ")} in suite '${suite}'; its tasks are ${inSuite.map((t) => t.name).join(", ")}`,
    );
  return inSuite.filter((t) => names.includes(t.name));
}

/** Checks condition names, answering them typed. */
export function selectConditions(names: readonly string[]): Condition[] {
  const unknown = names.filter((n) => !(n in CONDITIONS));
  if (unknown.length)
    throw new SelectionError(
      `unknown condition ${unknown.map((n) => `'${n}'`).join(", ")}; choose from ${CONDITION_NAMES.join(", ")}`,
    );
  return names as Condition[];
}

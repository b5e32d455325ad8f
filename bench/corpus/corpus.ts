// The shared replay corpus (../shared/corpus, README there): where it is, and the fields of a run this benchmark reads.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** A violation as the recorded harness reported it on a failed call. */
export type RecordedError = { text: string; code: string | null; field: string | null };

/** One recorded tool call: arguments as the model sent them, and the (replayed) result or error. */
export type RecordedCall = {
  tool: string;
  args: unknown;
  result: unknown;
  error: RecordedError | null;
  violation: boolean;
};

/** A tool declaration as the corpus writes it (`tool_declarations`, `tasks.json`). */
export type CorpusTool = {
  description?: string;
  params: Record<string, { unit?: string; datum?: string; tz?: string; sourced?: boolean; description?: string }>;
  undeclared_params: string[];
  returns?: { unit?: string; datum?: string } | null;
};

/** One audited claim of the corpus's replayed audit. */
export type CorpusClaim = { text: string; value: number; unit: string | null; status: string };

/** One run of `transcripts.jsonl`, the fields this benchmark reads. */
export type Run = {
  id: string;
  batch: string;
  task: string;
  model: string;
  condition: "baseline" | "schema_only" | "guarded" | "guarded_repair";
  condition_config: { enforcement: "off" | "strict" };
  question: string;
  tool_declarations: Record<string, CorpusTool>;
  calls: RecordedCall[];
  answer: string | null;
  answer_truncated_at_2000: boolean;
  labels: { usable: boolean; violations: number; audit_flagged: boolean; outcome: string };
  derived: {
    hazard_params: Record<string, { call: number; class: string }[]>;
    unit_carry_over_sent: boolean | null;
    datum_carry_over_sent: boolean | null;
    datum_error_sent: boolean | null;
    fabricated_input_sent: boolean | null;
  };
  replay: {
    code_commit: string;
    violations: number;
    audit: { unsourced: number; mislabelled: number; derived: number; quoted: number; claims: CorpusClaim[] } | null;
    audit_match_recorded: boolean | null;
  };
};

/** A hazard of a task (`tasks.json` `hazards`). */
export type Hazard = { kind: "unit" | "datum" | "time" | "fabrication"; tool: string; param: string };

/** `tasks.json`, the fields this benchmark reads. */
export type Tasks = {
  registered_datum_offsets: { from: string; to: string; offset: { value: number; unit: string } | null }[];
  tasks: Record<string, { tools: Record<string, CorpusTool> }>;
  hazards: Record<string, Hazard[]>;
};

/** The corpus folder: ../shared/corpus beside the repository, else /work/shared/corpus; null when neither holds it. */
export function findCorpus(root: string): { dir: string | null; looked: string[] } {
  const looked = [resolve(root, "..", "shared", "corpus"), "/work/shared/corpus"];
  for (const dir of looked)
    if (existsSync(join(dir, "transcripts.jsonl")) && existsSync(join(dir, "tasks.json"))) return { dir, looked };
  return { dir: null, looked };
}

/** Every run, in file order. */
export function readRuns(dir: string): Run[] {
  return readFileSync(join(dir, "transcripts.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Run);
}

/** The task facts. */
export function readTasks(dir: string): Tasks {
  return JSON.parse(readFileSync(join(dir, "tasks.json"), "utf8")) as Tasks;
}

/** The corpus declaration as a `PUT /v1/tools/{name}` body: identifiers are declared as `{}` (passed through unchecked). */
export function declarationBody(tool: CorpusTool): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(tool.params))
    params[name] = Object.fromEntries(Object.entries(d).filter(([, v]) => v !== null && v !== undefined));
  for (const name of tool.undeclared_params) params[name] = {};
  const body: Record<string, unknown> = { params };
  if (tool.description) body.description = tool.description;
  const returns = Object.fromEntries(
    Object.entries(tool.returns ?? {}).filter(([, v]) => v !== null && v !== undefined),
  );
  if (Object.keys(returns).length) body.returns = returns;
  return body;
}

// The reference's tables from stored runs: by condition, by task, and unit carry-over sent per model. Runs with
// outcome `error` (cut off by the provider) are excluded from every table and only counted.
import { CONDITION_NAMES } from "./suites.js";
import type { BenchRun } from "../store/model.js";

/** One row of the table by condition. */
export type ConditionRow = {
  condition: string;
  runs: number;
  correct: number;
  wrong: number;
  blocked: number;
  undetected: number;
  silent: number;
  flagged: number;
  /** Mean tool calls per run. */
  calls: number;
};
/** One row of the table by task. */
export type TaskRow = {
  task: string;
  condition: string;
  runs: number;
  correct: number;
  wrong: number;
  blocked: number;
  silent: number;
};
/** One row of the unit carry-over table: runs that sent an unconverted value, of the runs that reached the hazard tool. */
export type CarryRow = { model: string; condition: string; sent: number; reached: number };
/** Every table. */
export type Tables = {
  by_condition: ConditionRow[];
  by_task: TaskRow[];
  unit_carry_over: CarryRow[];
  excluded_errors: number;
};

const order = (c: string) => {
  const i = (CONDITION_NAMES as readonly string[]).indexOf(c);
  return i < 0 ? CONDITION_NAMES.length : i;
};
const byCondition = (a: string, b: string) => order(a) - order(b) || a.localeCompare(b);

function groups<K extends string>(runs: readonly BenchRun[], key: (r: BenchRun) => K): Map<K, BenchRun[]> {
  const m = new Map<K, BenchRun[]>();
  for (const r of runs) m.get(key(r))?.push(r) ?? m.set(key(r), [r]);
  return m;
}

const count = (rs: readonly BenchRun[], p: (r: BenchRun) => boolean) => rs.filter(p).length;

/** The tables of a set of stored runs. */
export function buildTables(all: readonly BenchRun[]): Tables {
  const runs = all.filter((r) => r.outcome !== "error");
  const by_condition = [...groups(runs, (r) => r.condition).entries()]
    .sort(([a], [b]) => byCondition(a, b))
    .map(([condition, rs]) => ({
      condition,
      runs: rs.length,
      correct: count(rs, (r) => r.outcome === "correct"),
      wrong: count(rs, (r) => r.outcome === "wrong"),
      blocked: count(rs, (r) => r.outcome === "blocked"),
      undetected: count(rs, (r) => r.undetected),
      silent: count(rs, (r) => r.silent_error),
      flagged: count(rs, (r) => r.audit_flagged),
      calls: Number((rs.reduce((s, r) => s + r.tool_calls, 0) / rs.length).toFixed(2)),
    }));
  const by_task = [...groups(runs, (r) => `${r.task}\u0000${r.condition}`).values()]
    .map((rs) => ({
      task: rs[0]!.task,
      condition: rs[0]!.condition,
      runs: rs.length,
      correct: count(rs, (r) => r.outcome === "correct"),
      wrong: count(rs, (r) => r.outcome === "wrong"),
      blocked: count(rs, (r) => r.outcome === "blocked"),
      silent: count(rs, (r) => r.silent_error),
    }))
    .sort((a, b) => a.task.localeCompare(b.task) || byCondition(a.condition, b.condition));
  const withUnitHazard = runs.filter(
    (r) => r.derived.unit_carry_over_sent !== null && r.derived.unit_carry_over_sent !== undefined,
  );
  const unit_carry_over = [...groups(withUnitHazard, (r) => `${r.model}\u0000${r.condition}`).values()]
    .map((rs) => ({
      model: rs[0]!.model,
      condition: rs[0]!.condition,
      sent: count(rs, (r) => r.derived.unit_carry_over_sent === true),
      reached: count(rs, (r) => r.derived.reached_hazard_tool === true),
    }))
    .sort((a, b) => a.model.localeCompare(b.model) || byCondition(a.condition, b.condition));
  return { by_condition, by_task, unit_carry_over, excluded_errors: all.length - runs.length };
}

const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );

/** The tables as Markdown. */
export function renderTables(t: Tables): string {
  const out: string[] = [];
  out.push("### By condition", "");
  out.push(
    t.by_condition.length === 0
      ? "No runs."
      : table(
          ["condition", "runs", "correct", "wrong", "blocked", "undetected", "silent", "flagged", "calls"],
          t.by_condition.map((r) => [
            r.condition,
            r.runs,
            r.correct,
            r.wrong,
            r.blocked,
            r.undetected,
            r.silent,
            r.flagged,
            r.calls.toFixed(2),
          ]),
        ),
  );
  out.push("", "### By task", "");
  out.push(
    t.by_task.length === 0
      ? "No runs."
      : table(
          ["task", "condition", "runs", "correct", "wrong", "blocked", "silent"],
          t.by_task.map((r) => [r.task, r.condition, r.runs, r.correct, r.wrong, r.blocked, r.silent]),
        ),
  );
  out.push(
    "",
    "### Unit carry-over sent (runs that passed an unconverted value / runs that reached the computing tool)",
    "",
  );
  out.push(
    t.unit_carry_over.length === 0
      ? "No run of a task with a unit hazard."
      : table(
          ["model", "condition", "sent"],
          t.unit_carry_over.map((r) => [r.model, r.condition, `${r.sent}/${r.reached}`]),
        ),
  );
  out.push("");
  if (t.excluded_errors > 0)
    out.push(
      `${t.excluded_errors} run${t.excluded_errors === 1 ? " was" : "s were"} cut off by the provider (outcome error) and left out of these tables.`,
      "",
    );
  return out.join("\n");
}

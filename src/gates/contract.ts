// Gate 1, contract: the input matches the typed task and result contract; every other gate depends on it.
import {
  issueFinding,
  ResultSchema,
  TaskSchema,
  type Finding,
  type RawEvaluationInput,
  type Result,
  type Task,
} from "./contracts.js";
import { finding, type GateOutcome } from "./outcome-kit.js";
import { normaliseKey } from "./values.js";

/** The contract gate's verdict, with the typed task and runs when the contract holds. */
export type ContractVerdict =
  | { outcome: GateOutcome; ok: true; task: Task; runs: Result[] }
  | { outcome: GateOutcome; ok: false };

/** Checks the rules zod cannot express on one parsed result: unique ids, known references, values for keys, required keys. */
export function semanticViolations(task: Task, result: Result): Finding[] {
  const out: Finding[] = [];
  const ids = new Set<string>();
  for (const c of result.claims) {
    if (c.id === undefined) continue;
    if (ids.has(c.id))
      out.push(
        finding("CONTRACT_DUPLICATE_ID", `Two claims have the id "${c.id}"; give each claim its own id.`, {
          claim_id: c.id,
        }),
      );
    ids.add(c.id);
  }
  result.claims.forEach((c, i) => {
    const who = c.id ?? `#${i + 1}`;
    for (const ref of c.based_on ?? []) {
      if (!ids.has(ref))
        out.push(
          finding(
            "CONTRACT_UNKNOWN_REFERENCE",
            `Claim ${who} is based_on "${ref}", which is not the id of a claim in this result.`,
            { claim_id: c.id },
          ),
        );
    }
    if (c.key !== undefined && (c.value === undefined || c.value === null)) {
      out.push(
        finding(
          "CONTRACT_KEY_WITHOUT_VALUE",
          `Claim ${who} has the key "${c.key}" but no value; send the value the key stands for, or drop the key.`,
          { claim_id: c.id },
        ),
      );
    }
  });
  const keys = new Set(result.claims.flatMap((c) => (c.key === undefined ? [] : [normaliseKey(c.key)])));
  for (const k of task.required_keys) {
    if (!keys.has(normaliseKey(k)))
      out.push(
        finding(
          "CONTRACT_REQUIRED_KEY_MISSING",
          `The task requires a claim with the key "${k}"; no claim in the result has it.`,
        ),
      );
  }
  return out;
}

// One evaluation parses its input more than once (the decision, then the store that records its keyed claims), and a
// parse of 1,000 claims costs milliseconds. Inside `withParseMemo` each parse is kept for the very object it read, so
// the second reading is free; outside it every call parses afresh, as a caller may change an object between calls.
type Memo = {
  results: WeakMap<object, ReturnType<typeof ResultSchema.safeParse>>;
  tasks: WeakMap<object, ReturnType<typeof TaskSchema.safeParse>>;
};
let memo: Memo | null = null;

/** Runs `fn` (synchronous) with contract parses shared by object identity; `fn` must not change the input meanwhile. */
export function withParseMemo<T>(fn: () => T): T {
  if (memo !== null) return fn();
  memo = { results: new WeakMap(), tasks: new WeakMap() };
  try {
    return fn();
  } finally {
    memo = null;
  }
}

function memoParse<T>(cache: WeakMap<object, T> | undefined, value: unknown, parse: (v: unknown) => T): T {
  if (cache === undefined || value === null || typeof value !== "object") return parse(value);
  let hit = cache.get(value);
  if (hit === undefined) cache.set(value, (hit = parse(value)));
  return hit;
}

/** Gate 1: parses task and runs and reports every violation; the score is 100 or 0. */
export function contractGate(raw: RawEvaluationInput): ContractVerdict {
  const findings: Finding[] = [...raw.findings];
  const task = memoParse(memo?.tasks, raw.task ?? {}, (t) => TaskSchema.safeParse(t));
  if (!task.success) findings.push(...task.error.issues.map((i) => issueFinding(i, "task")));
  const many = raw.runs.length > 1;
  const tag = (f: Finding, n: number): Finding => (many ? { ...f, run: n + 1 } : f);
  const runs: Result[] = [];
  raw.runs.forEach((r, n) => {
    const parsed = memoParse(memo?.results, r, (v) => ResultSchema.safeParse(v));
    if (!parsed.success) {
      findings.push(...parsed.error.issues.map((i) => tag(issueFinding(i, "result"), n)));
      return;
    }
    runs.push(parsed.data);
    if (task.success) findings.push(...semanticViolations(task.data, parsed.data).map((f) => tag(f, n)));
  });
  if (findings.length > 0 || !task.success) return { ok: false, outcome: { status: "blocked", score: 0, findings } };
  return { ok: true, task: task.data, runs, outcome: { status: "passed", score: 100, findings: [] } };
}

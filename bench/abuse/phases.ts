// bench/abuse/phases.ts — where a largest request's time goes, phase by phase, each timed alone in-process (median
// of ABUSE_PHASES_N runs, in ms of CPU this process spent, so a shared machine's waits for a core count less): the body's JSON.parse and guard walks, the contract gate's zod parse,
// the gates alone (no history), the store's whole evaluation (the gates against real history, then the rows, in one
// transaction), the answer's JSON, and a largest call's check and write. Uses only functions that exist before and
// after issue 26's availability work, so it runs unchanged on an older commit for a comparison.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonProblem } from "../../src/api/json-guard.js";
import { contractGate } from "../../src/gates/contract.js";
import { splitEvaluationInput } from "../../src/gates/contracts.js";
import { decide } from "../../src/gates/decide.js";
import { createQuantityComparer } from "../../src/gates/quantity-compare.js";
import { DEFAULT_LIMITS, jsonDepth } from "../../src/limits.js";
import { illFormedTextPath } from "../../src/text.js";
import { createTestApp } from "../../test/helpers/db.js";
import { factsOnOneKey } from "../../test/helpers/largest.js";

const N = Number(process.env.ABUSE_PHASES_N ?? 20);
const dir = mkdtempSync(join(tmpdir(), "bench-abuse-phases-"));
const t = createTestApp({ file: join(dir, "ledger.db") });
const team = t.defaultTeamId;
const evaluationText = JSON.stringify(factsOnOneKey(DEFAULT_LIMITS.claims, "abuse"));
const args = Object.fromEntries(Array.from({ length: DEFAULT_LIMITS.crossings }, (_, i) => [`arg${i}`, `value ${i}`]));
const callText = JSON.stringify({ tool: "undeclared", args });
const session = await t.store.sessions.create(team, { context: "phases" });

async function time(name: string, fn: () => unknown): Promise<void> {
  await fn(); // warm
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    const c0 = process.cpuUsage();
    await fn();
    const c = process.cpuUsage(c0);
    ms.push((c.user + c.system) / 1000);
  }
  ms.sort((a, b) => a - b);
  console.log(`| ${name} | ${ms[Math.floor(N / 2)]!.toFixed(2)} |`);
}

const walks = (v: unknown) => [jsonDepth(v), illFormedTextPath(v), jsonProblem(v, Number.POSITIVE_INFINITY)];
console.log(`phases of a largest request, median of ${N} (CPU ms)`);
console.log("| phase | CPU ms |\n|---|---|");
await time("evaluation: JSON.parse of the body", () => JSON.parse(evaluationText));
const parsed = JSON.parse(evaluationText);
await time("evaluation: guard walks (depth, text, numbers), all three", () => walks(parsed));
await time("evaluation: contract gate (zod parse of 1,000 claims)", () => contractGate(splitEvaluationInput(parsed)));
await time("evaluation: decide, the gates alone, no history", () =>
  decide(parsed, { compareQuantities: createQuantityComparer() }),
);
let last: unknown;
await time("evaluation: store evaluate (gates on history + rows, one transaction)", async () => {
  last = (await t.store.evaluations.evaluate(team, JSON.parse(evaluationText))).evaluation;
});
await time("evaluation: the answer's JSON", () => JSON.stringify(last));
await time("call: JSON.parse of the body", () => JSON.parse(callText));
const parsedCall = JSON.parse(callText);
await time("call: guard walks, all three", () => walks(parsedCall));
await time("call: store call (check + 1,000 crossing rows, one transaction)", () =>
  t.store.calls.call(team, session.id, "undeclared", JSON.parse(callText).args),
);
t.db.sqlite.close();
rmSync(dir, { recursive: true, force: true });

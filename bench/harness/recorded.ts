// bench:harness:recorded — the offline leg: every recorded run of the shared corpus (../shared/corpus, outside this
// repository) replayed through the live harness (`--provider recorded`), each a ledger session in a temporary
// database, graded; the regenerated tables set against the published figures (corpus ground_truth.json, README §7).
// Usage: npm run bench:harness:recorded [-- --record]
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runBatch } from "../../src/harness/batch.js";
import { StoreHarnessLedger } from "../../src/harness/ledger.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";
import { readRecorded, recordedCells, recordedProvider } from "../../src/harness/providers/recorded.js";
import { CONDITION_NAMES, taskData } from "../../src/harness/suites.js";
import { buildTables } from "../../src/harness/tables.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { findCorpus } from "../corpus/corpus.js";
import type { BenchRun } from "../../src/store/model.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const { dir, looked } = findCorpus(ROOT);
if (dir === null || !existsSync(join(dir, "ground_truth.json"))) {
  console.log(`corpus not found at ${looked[0]}; this benchmark replays the shared corpus and needs it`);
  process.exit(0);
}
const from = join(dir, "transcripts.jsonl");
type Truth = Record<string, Record<string, unknown>>;
const truth = JSON.parse(readFileSync(join(dir, "ground_truth.json"), "utf8")) as Truth;

const data = taskData();
const recorded = readRecorded(from);
const cells = recordedCells(recorded, data.tasks, CONDITION_NAMES);
const tmp = mkdtempSync(join(tmpdir(), "bench-harness-recorded-"));
const store = openDb(join(tmp, "ledger.db"));
let runs: BenchRun[];
let seconds: number;
try {
  const ledger = new StoreHarnessLedger(sqliteStore(store), ensureDefaultTeam(store.db), "default");
  const t0 = performance.now();
  const r = await runBatch({
    batch: "recorded",
    cells,
    data,
    provider: recordedProvider(recorded, from),
    ledger,
    concurrency: 8,
    maxTurns: 8,
    maxTokens: 2048,
  });
  seconds = (performance.now() - t0) / 1000;
  runs = r.runs;
} finally {
  store.close();
  rmSync(tmp, { recursive: true, force: true });
}

const byId = new Map(recorded.map((r) => [r.id, r]));
const usable = runs.filter((r) => r.outcome !== "error");
const conditions = ["baseline", "schema_only", "guarded", "guarded_repair"];
const table = (head: string[], rows: (string | number)[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n",
  );
const count = (rs: BenchRun[], p: (r: BenchRun) => boolean) => rs.filter(p).length;
const short = (m: string) => m.split("/").at(-1)!;

const out: string[] = [];
out.push("## Evaluation harness: recorded leg", "");
out.push(
  `Command: \`npm run bench:harness:recorded\` (bench/harness/recorded.ts). Run on ${new Date().toISOString().slice(0, 10)} over all`,
  `${recorded.length.toLocaleString("en")} recorded runs of \`../shared/corpus\` replayed through the live harness (\`--provider recorded\`),`,
  `8 in parallel, every run a session in a temporary SQLite file, graded and audited: ${seconds.toFixed(1)} s on a loaded machine.`,
  "A run's recorded calls come back as one model turn and its answer as the next (turn boundaries were not recorded);",
  "the two batches without answer text replay `ANSWER: <stated>`. Published figures: corpus `ground_truth.json` (README §7).",
  "",
);
const agreeOutcome = usable.filter((r) => {
  const rec = byId.get(r.recorded_id!)!;
  return r.outcome === (rec.derived?.regraded_outcome ?? rec.labels.outcome);
}).length;
out.push(
  `- Usable runs: ${usable.length.toLocaleString("en")} (published ${(truth.totals as Record<string, number>).usable.toLocaleString("en")}); ` +
    `${runs.length - usable.length} replayed as outcome \`error\` (published dropped ${(truth.totals as Record<string, number>).dropped}).`,
  `- Same outcome as the recorded (re-graded) label: ${agreeOutcome.toLocaleString("en")} / ${usable.length.toLocaleString("en")} usable runs.`,
  "",
);

// Accuracy by condition, all usable runs and the README's water + UK set.
const acc = (rs: BenchRun[], c: string) => {
  const x = rs.filter((r) => r.condition === c);
  return `${count(x, (r) => r.outcome === "correct")}/${x.length}, blocked ${count(x, (r) => r.outcome === "blocked")}`;
};
const water = usable.filter((r) => r.suite !== "grid");
const pub = (k: string, c: string) => String((truth[k] as Record<string, string>)[c]).replace(/ \([\d.]+%\)/, "");
out.push("### Accuracy by condition (correct / usable)", "");
out.push(
  table(
    [
      "condition",
      "ours, all",
      "published, all",
      "ours, water + UK",
      "published, water + UK (recorded labels)",
      "published, re-graded",
    ],
    conditions.map((c) => [
      c,
      acc(usable, c),
      pub("accuracy, all usable", c),
      acc(water, c),
      pub("accuracy, excluding grid (README 'water and UK suites' set)", c),
      pub("accuracy, excluding grid, after re-grading the 92 uk percentage artefacts", c),
    ]),
  ),
  "",
);

// runoff_depth pooled.
const pooled = truth["runoff_depth pooled by condition (all batches)"] as Record<string, Record<string, number>>;
const runoff = usable.filter((r) => r.task === "runoff_depth");
out.push("### `runoff_depth` pooled: correct / wrong / blocked / silent", "");
out.push(
  table(
    ["condition", "ours", "published"],
    conditions.map((c) => {
      const x = runoff.filter((r) => r.condition === c);
      const p = pooled[c]!;
      return [
        c,
        `${count(x, (r) => r.outcome === "correct")}/${count(x, (r) => r.outcome === "wrong")}/${count(x, (r) => r.outcome === "blocked")}/${count(x, (r) => r.silent_error)}`,
        `${p.correct}/${p.wrong}/${p.blocked}/${p.silent}`,
      ];
    }),
  ),
  "",
);

// Unit carry-over, baseline, per model.
const carried = truth["cfs->m3/s carry-over sent, runoff_depth, baseline: carried/reached"] as Record<string, string>;
const tables = buildTables(usable);
out.push("### cfs → m³/s carry-over sent at baseline (`runoff_depth`), per model: sent / reached", "");
out.push(
  table(
    ["model", "ours", "published"],
    tables.unit_carry_over
      .filter((r) => r.condition === "baseline")
      .map((r) => {
        const x = runoff.filter((y) => y.model === r.model && y.condition === "baseline");
        return [
          short(r.model),
          `${count(x, (y) => y.derived.unit_carry_over_sent === true)}/${count(x, (y) => y.derived.reached_hazard_tool === true)}`,
          String(carried[short(r.model)] ?? "–").replace(/ \(usable \d+\)/, ""),
        ];
      }),
  ),
  "",
);

// Timezone silent errors and grid.
const tz = truth["timezone silent errors (discharge_at_time + hard_discharge_at_time)"] as Record<string, string>;
const grid = truth["grid pooled"] as Record<string, Record<string, number>>;
out.push("### Timezone silent errors and the grid suite", "");
out.push(
  table(
    ["condition", "timezone silent, ours", "published", "grid correct/wrong/silent, ours", "published"],
    conditions.map((c) => {
      const t = usable.filter((r) => r.condition === c && r.task.endsWith("discharge_at_time"));
      const g = usable.filter((r) => r.condition === c && r.suite === "grid");
      const p = grid[c]!;
      return [
        c,
        `${count(t, (r) => r.silent_error)}/${t.length}`,
        tz[c]!,
        `${count(g, (r) => r.outcome === "correct")}/${count(g, (r) => r.outcome === "wrong")}/${count(g, (r) => r.silent_error)}`,
        `${p.correct}/${p.wrong}/${p.silent}`,
      ];
    }),
  ),
  "",
);

// Where the outcome differs from the recorded label, by reason.
const diff = new Map<string, number>();
for (const r of usable) {
  const rec = byId.get(r.recorded_id!)!;
  const theirs = rec.derived?.regraded_outcome ?? rec.labels.outcome;
  if (theirs === r.outcome) continue;
  const key = `${r.task} ${r.condition}: recorded ${theirs}, ours ${r.outcome}${r.outcome === "blocked" ? ` (${r.detail.replace(/^blocked: /, "")})` : ""}`;
  diff.set(key, (diff.get(key) ?? 0) + 1);
}
out.push("### Runs whose outcome differs from the recorded label", "");
out.push(
  diff.size === 0
    ? "None."
    : table(
        ["runs", "task, condition and outcomes"],
        [...diff.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => [n, k]),
      ),
  "",
);
const report = out.join("\n");
console.log(report);
if (process.argv.includes("--record")) {
  const file = join(ROOT, "bench", "RESULTS.md");
  const text = readFileSync(file, "utf8");
  const start = text.indexOf("## Evaluation harness: recorded leg");
  const next = start < 0 ? -1 : text.indexOf("\n## ", start + 1);
  const body = `${report.trim()}\n`;
  writeFileSync(
    file,
    start < 0 ? `${text.trimEnd()}\n\n${body}` : `${text.slice(0, start)}${body}${next < 0 ? "" : text.slice(next)}`,
  );
  process.stderr.write(`recorded in ${file}\n`);
}

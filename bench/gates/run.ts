// bench:gates — one June evaluation (a result with 50 keyed claims) through the store, against a ledger of 10, 1,000
// and 10,000 demoted claims with watch patterns and 1,000 earlier released runs of the same task, on a file database.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/clock.js";
import { PRIOR_RUN_CLAIMS_SQL } from "../../src/store/sqlite/claim-history.js";
import { ClaimStore } from "../../src/store/sqlite/claims.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { newId } from "../../src/store/common/ids.js";
import { RunStore } from "../../src/store/sqlite/runs.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { ledgerCase } from "./ledger.js";

const LEDGER_SIZES = (process.env.BENCH_SIZES ?? "10,1000,10000").split(",").map(Number);
const PRIOR_RUNS = Number(process.env.BENCH_RUNS ?? 1_000);
const CLAIMS = 50;
const PROBES = Number(process.env.BENCH_PROBES ?? 30);
const TASK = "weekly-gauge-report";

/** Claim k's value: every other one a length (compared physically), the rest text. */
const valueOf = (k: number): string =>
  k % 2 === 0 ? `${(10 + k * 0.3).toFixed(1)} ft` : `grade ${String.fromCharCode(65 + (k % 5))}`;

/** The June result: 50 sourced, verified keyed facts; it repeats demoted claim D-0 ("weir 0 gain of 2.08x"). */
function juneResult(): Record<string, unknown> {
  const claims = Array.from({ length: CLAIMS }, (_, k) => ({
    id: `F${k}`,
    kind: "fact",
    text: `Station ${k} reading for the week.`,
    key: `station ${k} reading`,
    value: valueOf(k),
    source: `https://waterdata.example.org/station/${k}`,
    confidence: 0.9,
    verified: true,
  }));
  claims.push({
    id: "F-weir",
    kind: "fact",
    text: "The weir 0 gain of 2.08x holds.",
    key: "weir 0 gain",
    value: "2.08x",
    source: "runs/2026-06-03/RUN_REPORT.md:12",
    confidence: 0.8,
    verified: true,
  });
  const output = `${claims.map((c) => `${c.text} ${c.value}.`).join(" ")}`;
  return { task: { id: TASK }, result: { output, claims } };
}

/** A demoted ledger of n claims, each with its own watch pattern (a third case-insensitive, a third with a class). */
function ledgerText(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const watch = [
      `weir ${i} gain of 2\\.08x`,
      `(?i)station ${i} beats gauge ${i + 1} by \\d+(\\.\\d+)?x`,
      `\\bclaim-${i}\\b[^.]*\\d+%`,
    ][i % 3];
    lines.push(
      JSON.stringify({
        id: `D-${i}`,
        status: "demoted",
        text: `Demoted claim ${i}`,
        reason: "disproved in review",
        demoted_by: "review/check.py",
        watch,
      }),
    );
  }
  return lines.join("\n");
}

/** 1,000 earlier released runs of the task with the same 50 values (so every key is compared with every run). */
function fillRuns(sqlite: import("better-sqlite3").Database, teamId: string): void {
  const run = sqlite.prepare(
    "INSERT INTO runs (id, team_id, task, status, overall_score, report, input, settings, created_at) VALUES (?, ?, ?, 'released', 100, '{}', '{}', NULL, ?)",
  );
  const claim =
    sqlite.prepare(`INSERT INTO run_claims (run_id, team_id, task, key, value, text, claim_id, run_index, released, supersedes, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, 1, 1, NULL, ?)`);
  const start = Date.parse("2026-03-02T09:00:00Z");
  sqlite.transaction(() => {
    for (let r = 0; r < PRIOR_RUNS; r += 1) {
      const at = new Date(start + r * 3_600_000);
      const id = newId(at.getTime());
      run.run(id, teamId, TASK, at.toISOString());
      for (let k = 0; k < CLAIMS; k += 1)
        claim.run(
          id,
          teamId,
          TASK,
          `station ${k} reading`,
          JSON.stringify(valueOf(k)),
          `Station ${k} reading.`,
          `F${k}`,
          at.toISOString(),
        );
    }
  })();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const p95 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)] ?? NaN;
const ms = (t0: number): number => performance.now() - t0;

type Row = {
  size: number;
  importMs: number;
  firstMs: number;
  medianMs: number;
  p95Ms: number;
  recordMs: number;
  blockedBy: string;
  findings: number;
};
const rows: Row[] = [];
let plan = "";

for (const size of LEDGER_SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "bench-gates-"));
  try {
    const store = openDb(join(dir, "ledger.db"));
    const teamId = ensureDefaultTeam(store.db);
    let t0 = performance.now();
    const imported = new ClaimStore(store.sqlite).importText(teamId, ledgerText(size), systemClock.now());
    const importMs = ms(t0);
    if (imported.imported !== size) throw new Error(`imported ${imported.imported} of ${size}`);
    fillRuns(store.sqlite, teamId);
    const runs = new RunStore(store.sqlite);
    const input = juneResult();
    const gate = (record: boolean) => runs.evaluate(teamId, input, { clock: systemClock, record }).evaluation;
    t0 = performance.now();
    const first = gate(false);
    const firstMs = ms(t0);
    const times: number[] = [];
    for (let i = 0; i < PROBES; i += 1) {
      t0 = performance.now();
      gate(false);
      times.push(ms(t0));
    }
    const recorded: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      t0 = performance.now();
      gate(true);
      recorded.push(ms(t0));
    }
    if (first.gates.stability.status !== "passed")
      throw new Error(`stability ${first.gates.stability.status}: ${JSON.stringify(first.gates.stability.findings)}`);
    rows.push({
      size,
      importMs,
      firstMs,
      medianMs: median(times),
      p95Ms: p95(times),
      recordMs: median(recorded),
      blockedBy: first.blocked_by.join(", "),
      findings: first.gates.contradiction.findings.length,
    });
    plan ||= (
      store.sqlite
        .prepare(`EXPLAIN QUERY PLAN ${PRIOR_RUN_CLAIMS_SQL}`)
        .all({ team: teamId, task: TASK, keys: "[]" }) as { detail: string }[]
    )
      .map((r) => r.detail)
      .join("; ");
    const dbMb = statSync(join(dir, "ledger.db")).size / 1e6;
    process.stderr.write(`ledger ${size}: done (${dbMb.toFixed(1)} MB file)\n`);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const f = (x: number): string => x.toFixed(1);
console.log(
  `${PRIOR_RUNS} earlier runs of "${TASK}" x ${CLAIMS} keyed claims; result of ${CLAIMS + 1} keyed claims; ${PROBES} probes after one cold evaluation\n`,
);
console.log(
  "| demoted claims (watch patterns) | import ms | first evaluation ms | evaluation median ms | p95 ms | evaluate + record ms | blocked by |",
);
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${r.size.toLocaleString("en")} | ${f(r.importMs)} | ${f(r.firstMs)} | ${f(r.medianMs)} | ${f(r.p95Ms)} | ${f(r.recordMs)} | ${r.blockedBy} (${r.findings} finding) |`,
  );
}
const small = rows[0];
const large = rows[rows.length - 1];
if (small && large)
  console.log(
    `\ngrowth 10 → 10,000 demoted claims: median ${f(large.medianMs / small.medianMs)}x, first evaluation ${f(large.firstMs / small.firstMs)}x`,
  );
console.log(`\nstability query plan: ${plan}`);

// The ledger case (issue 11): 50 facts resolved against 1,000,000 crossings.
ledgerCase();

// bench:scale: a ledger of SCALE_CROSSINGS crossings (default 10,000,000) built through the store's write paths, each
// operation a user runs measured on it beside the same figure on a 10,000-crossing ledger, in the same run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/store/sqlite/db.js";
import { sqliteLedgerChain } from "../../src/store/sqlite/chain-port.js";
import { type Built, buildLedger } from "./build.js";
import { bytesPerCrossing, measure, percentile, type Samples } from "./measure.js";

const LARGE = Number(process.env.SCALE_CROSSINGS ?? 10_000_000);
const SMALL = 10_000;
const LIST_P95_MS = 50;

const dir = mkdtempSync(join(tmpdir(), "bench-scale-"));
const log = (line: string) => console.log(line);

type Ledger = { built: Built; file: string; store: ReturnType<typeof openDb>; bpc: number };

function ledgerOf(crossings: number): Ledger {
  const file = join(dir, `ledger-${crossings}.db`);
  const store = openDb(file);
  log(`building ${crossings.toLocaleString("en")} crossings in ${file}`);
  const built = buildLedger(store, crossings, log);
  log(
    `  built ${built.crossings.toLocaleString("en")} crossings, ${built.sessions.toLocaleString("en")} sessions, ` +
      `${built.evaluations.toLocaleString("en")} evaluations, ${built.demoted.toLocaleString("en")} demoted claims ` +
      `in ${built.buildSeconds.toFixed(0)} s`,
  );
  store.sqlite.pragma("optimize");
  return { built, file, store, bpc: bytesPerCrossing(store, file, built.crossings) };
}

const small = ledgerOf(SMALL);
const large = ledgerOf(LARGE);
// Measured in turns (small, large, small, large), so load drift on the shared machine hits both ledgers alike.
const samples = { small: {} as Record<string, Samples>, large: {} as Record<string, Samples> };
for (let turn = 0; turn < 2; turn += 1) {
  for (const [which, l] of [
    ["small", small],
    ["large", large],
  ] as const) {
    log(`measuring the ${which} ledger, turn ${turn + 1} of 2`);
    const got = await measure(l.store, l.file, l.built, 0.5);
    for (const [k, v] of Object.entries(got)) samples[which][k] = [...(samples[which][k] ?? []), ...v];
  }
}
// The ledger chain: `verify` over every team of the large ledger (entries per second), through the chain port as
// `agent-ledger verify` runs it (a large team on two threads).
{
  const chain = sqliteLedgerChain(large.store.sqlite);
  const t0 = performance.now();
  let entries = 0;
  for (const team of await chain.teams()) {
    const v = await chain.verify(team);
    if (!v.ok) throw new Error(`verify failed on the built ledger: ${JSON.stringify(v)}`);
    entries += v.count;
  }
  const secs = (performance.now() - t0) / 1000;
  log(
    `verify: ${entries.toLocaleString("en")} entries in ${secs.toFixed(2)} s = ${(entries / secs).toFixed(0)} entries/s`,
  );
}
small.store.close();
large.store.close();

const LISTS = new Set([
  "sessions_by_label",
  "sessions_by_tool",
  "sessions_by_code",
  "sessions_by_time",
  "crossings_by_magnitude",
  "claims",
  "evaluations",
  "evaluations_by_task",
  "revisions",
  "ui_overview",
  "ui_sessions_by_label",
  "ui_session",
  "ui_crossings",
  "ui_crossings_by_code",
  "ui_crossings_by_tool",
  "ui_evaluations",
  "ui_claims",
  "ui_revisions",
]);
const operations: Record<string, { small_p50_ms: number; large_p50_ms: number; large_p95_ms: number }> = {};
const round = (x: number) => Number(x.toPrecision(4));
console.log(`\n| operation | small p50 ms | large p50 ms | large p95 ms | large / small | target |`);
console.log(`|---|---|---|---|---|---|`);
for (const name of Object.keys(samples.large)) {
  const s = samples.small[name];
  const l = samples.large[name]!;
  if (!s) continue;
  const o = {
    small_p50_ms: round(percentile(s, 50)),
    large_p50_ms: round(percentile(l, 50)),
    large_p95_ms: round(percentile(l, 95)),
  };
  operations[name] = o;
  const ratio = o.large_p50_ms / o.small_p50_ms;
  const target = LISTS.has(name)
    ? `p95 <= ${LIST_P95_MS} ms: ${o.large_p95_ms <= LIST_P95_MS ? "met" : "MISSED"}`
    : name === "backup"
      ? "grows with the file by nature"
      : `<= 1.5x: ${ratio <= 1.5 ? "met" : "MISSED"}`;
  console.log(
    `| ${name} | ${o.small_p50_ms} | ${o.large_p50_ms} | ${o.large_p95_ms} | ${ratio.toFixed(2)}x | ${target} |`,
  );
}
console.log(`\nbytes per crossing: ${large.bpc.toFixed(0)} (small ledger: ${small.bpc.toFixed(0)})`);
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    bench: "scale",
    crossings: large.built.crossings,
    bytes_per_crossing: Math.round(large.bpc),
    operations,
  }),
);

// bench:corpus — the 4,288 recorded runs of the shared corpus loaded as sessions through the HTTP API of the real app
// (file database, app.request), each answer audited and each session replayed; agreement with the corpus labels printed.
// Usage: npm run bench:corpus [-- --sample N] [-- --record] [-- --dump FILE]
//   --sample N  a deterministic sample: every k-th run of the file, k = ceil(4288 / N)
//   --record    write the tables into bench/RESULTS.md under "## Corpus replay"
//   --dump FILE write every observation as JSON (for looking into disagreements)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createApp } from "../../src/api/app.js";
import { systemClock } from "../../src/clock.js";
import { defaultConfig } from "../../src/config.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { seedDatabase } from "../../src/store/sqlite/seed.js";
import { ensureAdminToken } from "../../src/store/sqlite/teams.js";
import { findCorpus, readRuns, readTasks } from "./corpus.js";
import { client, loadRun, type Observed, replayRun, setUpTeams } from "./load.js";
import { renderReport } from "./report.js";
import { score } from "./score.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

const { dir, looked } = findCorpus(ROOT);
if (dir === null) {
  console.log(`corpus not found at ${looked[0]}; this benchmark needs the shared corpus`);
  process.exit(0);
}

const all = readRuns(dir);
const tasks = readTasks(dir);
const sampleSize = arg("--sample") === undefined ? null : Number(arg("--sample"));
const stride = sampleSize === null ? 1 : Math.max(1, Math.ceil(all.length / sampleSize));
const runs = all.filter((_, i) => i % stride === 0);

const tmp = mkdtempSync(join(tmpdir(), "bench-corpus-"));
const store = openDb(join(tmp, "ledger.db"));
try {
  seedDatabase(store);
  const adminToken = "bench-corpus-admin-token-0123456789";
  ensureAdminToken(store.db, adminToken);
  const app = createApp({
    store: sqliteStore(store, { clock: systemClock }),
    config: defaultConfig(),
    clock: systemClock,
    logger: { error: (m, e) => console.error(m, e) },
  });
  const api = client(app);
  const t0 = performance.now();
  const tokens = await setUpTeams(api, adminToken, tasks);
  const observed: Observed[] = [];
  let requests = 0;
  for (const [i, run] of runs.entries()) {
    const o = await loadRun(api, tokens.get(run.task)!, run);
    requests += 1 + o.calls.length + run.calls.filter((c) => c.result !== null).length + (run.answer === null ? 0 : 1);
    observed.push(o);
    if ((i + 1) % 500 === 0) process.stderr.write(`loaded ${i + 1}/${runs.length} runs\n`);
  }
  const loadS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  for (const o of observed) await replayRun(api, tokens.get(o.run.task)!, o);
  const replayS = (performance.now() - t1) / 1000;
  const dump = arg("--dump");
  if (dump) writeFileSync(dump, JSON.stringify(observed.map(({ run, ...rest }) => ({ id: run.id, ...rest }))));
  const command = `npm run bench:corpus${sampleSize === null ? "" : ` -- --sample ${sampleSize}`}`;
  const report = renderReport(score(observed, tasks), {
    command,
    runs: runs.length,
    of: all.length,
    stride,
    loadS,
    replayS,
    requests,
    date: new Date().toISOString().slice(0, 10),
  });
  console.log(report);
  if (process.argv.includes("--record")) {
    const file = join(ROOT, "bench", "RESULTS.md");
    const text = readFileSync(file, "utf8");
    const start = text.indexOf("## Corpus replay");
    const next = start < 0 ? -1 : text.indexOf("\n## ", start + 1);
    const section = `${report.trim()}\n`;
    const out =
      start < 0
        ? `${text.trimEnd()}\n\n${section}`
        : `${text.slice(0, start)}${section}${next < 0 ? "" : text.slice(next)}`;
    writeFileSync(file, out);
    process.stderr.write(`recorded in ${file}\n`);
  }
} finally {
  store.close();
  rmSync(tmp, { recursive: true, force: true });
}

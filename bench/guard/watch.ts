// bench:guard:watch — a guarded call's cost while the revision watch runs, in the same run: the library's batched
// guarded call (bench:guard's figure) in rounds without the watch, then with the watch loop serve runs (started once,
// its first pass done) re-reading every BENCH_WATCH_INTERVAL_MS (default 1000, far harsher than any real setting)
// 10,000 watched readings on one site, against a local server of recorded USGS responses. BENCH_ROUNDS (default 6).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRecordedServer } from "../../demo/usgs-server.js";
import { OgcClient } from "../../src/packs/ogc/client.js";
import { startWatchLoop } from "../../src/packs/ogc/watch.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { libraryCallUs, median } from "./library.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const AGENTS = 32;
const PER_ROUND = 1_600;
const SERIES = "8f3c6b0e2d0a4b7e9c1f5a2d3e4b6c70";

const dir = mkdtempSync(join(tmpdir(), "bench-guard-watch-"));
const db = openDb(join(dir, "ledger.db"));
const store = sqliteStore(db);
const teamId = ensureDefaultTeam(db.db);
const usgs = await startRecordedServer((url) =>
  url.pathname.endsWith("/continuous/items") ? { file: "usgs_daily_empty.json" } : null,
);

// 10,000 provisional readings on one site, all under one released evaluation.
const session = await store.sessions.create(teamId, { context: "watched" });
const start = Date.parse("2026-01-01T00:00:00Z");
await store.packs.record(
  teamId,
  session.id,
  "usgs.series",
  Array.from({ length: 10_000 }, (_, i) => {
    const at = new Date(start + i * 900_000).toISOString();
    const source = `usgs:07374000:00060:${SERIES}`;
    return {
      args: { site: "07374000", parameter: "00060", series: SERIES, time: at },
      quantity: { value: 400000 + i, unit: "ft^3/s", quality: "provisional" as const, source, observed_at: at },
    };
  }),
);
const { evaluation } = await store.evaluations.evaluate(teamId, {
  task: { id: "watched" },
  result: { output: "400000 cfs", claims: [{ id: "M1", kind: "fact", text: "400000 cfs", value: "400000 cfs" }] },
});
db.sqlite
  .prepare(
    `INSERT INTO evaluation_sources (run_id, team_id, task, claim_id, locator, status, crossing_id)
     SELECT ?, team_id, 'watched', 'M1', 'ledger:sessions/x', 'restates', id FROM crossings WHERE session_id = ? AND direction = 'return'`,
  )
  .run(evaluation.id, session.id);

const client = new OgcClient({ baseUrl: usgs.base });
let passes = 0;
const INTERVAL = Number(process.env.BENCH_WATCH_INTERVAL_MS ?? 1000);
const watch = () =>
  startWatchLoop(store, client, {
    intervalMs: INTERVAL,
    tickMs: 50,
    now: () => new Date(),
    onPass: (p) => {
      if (p instanceof Error) throw p;
      if (p.watched !== 10_000) throw new Error(`expected 10,000 watched readings, found ${p.watched}`);
      passes += 1;
    },
  });

await libraryCallUs(db, AGENTS, 50); // warm-up
const off: number[] = [];
const on: number[] = [];
const offCpu: number[] = [];
const onCpu: number[] = [];
for (let r = 0; r < ROUNDS; r += 1) {
  const a = await libraryCallUs(db, AGENTS, PER_ROUND / AGENTS);
  off.push(a.wall);
  offCpu.push(a.cpu);
}
// Then the watch as serve runs it: started once, its first pass (over every watched reading) done, then ticking.
const loop = watch();
while (passes === 0) await new Promise((resolve) => setTimeout(resolve, 50));
for (let r = 0; r < ROUNDS; r += 1) {
  const b = await libraryCallUs(db, AGENTS, PER_ROUND / AGENTS);
  on.push(b.wall);
  onCpu.push(b.cpu);
}
loop.stop();
const result = {
  bench: "guard-watch",
  off_us: Number(median(off).toFixed(1)),
  on_us: Number(median(on).toFixed(1)),
  ratio: Number((median(on) / median(off)).toFixed(3)),
  off_cpu_us: Number(median(offCpu).toFixed(1)),
  on_cpu_us: Number(median(onCpu).toFixed(1)),
  watch_interval_ms: INTERVAL,
  watch_passes: passes,
  watch_requests: client.requests,
};
console.log(JSON.stringify(result));
await usgs.close();
await store.close();
db.sqlite.close();
rmSync(dir, { recursive: true, force: true });

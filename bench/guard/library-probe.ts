// The library's batched guarded call alone, for profiling: `node --import tsx --cpu-prof bench/guard/library-probe.ts`.
// Prints wall and CPU microseconds per call for PROBE_AGENTS agents x PROBE_CALLS calls each, PROBE_ROUNDS rounds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/store/sqlite/db.js";
import { libraryCallUs, median } from "./library.js";

const AGENTS = Number(process.env.PROBE_AGENTS ?? 32);
const CALLS = Number(process.env.PROBE_CALLS ?? 125);
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 7);
const dir = mkdtempSync(join(tmpdir(), "bench-guard-probe-"));
const store = openDb(join(dir, "ledger.db"));
for (const p of (process.env.PROBE_PRAGMAS ?? "").split(";").filter(Boolean)) store.sqlite.pragma(p);
await libraryCallUs(store, AGENTS, 50);
const rounds: { wall: number; cpu: number }[] = [];
for (let r = 0; r < ROUNDS; r += 1) rounds.push(await libraryCallUs(store, AGENTS, CALLS));
store.close();
rmSync(dir, { recursive: true, force: true });
const w = median(rounds.map((x) => x.wall));
const c = median(rounds.map((x) => x.cpu));
console.log(
  `${AGENTS} agents x ${CALLS} calls, ${ROUNDS} rounds: median wall ${w.toFixed(1)} us, CPU ${c.toFixed(1)} us per call`,
);
console.log(JSON.stringify({ probe: "library", wall_us: Number(w.toFixed(1)), cpu_us: Number(c.toFixed(1)) }));

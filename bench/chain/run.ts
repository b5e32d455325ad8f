// bench:chain: what the ledger chain costs and how fast it is checked, in one run.
// 1. The in-process group-committed guarded call (Ledger.callBatched + resultBatched, as bench:guard's library case
//    and the HTTP routes write) on a SQLite file, in alternating rounds with the chain on and off.
// 2. `verify` on a ledger of CHAIN_CROSSINGS crossings (default 1,000,000) built through the store's write paths:
//    as the CLI verifies (in process), on one thread, and as `serve` verifies (on the verify worker), with the event
//    loop's largest delay during each.
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { fixedClock } from "../../src/clock.js";
import { chainSettings } from "../../src/store/common/chain.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { Ledger } from "../../src/store/sqlite/ledger.js";
import { sqliteChain } from "../../src/store/sqlite/chain.js";
import { sqliteLedgerChain } from "../../src/store/sqlite/chain-port.js";
import { createTeam } from "../../src/store/sqlite/teams.js";
import { buildLedger } from "../scale/build.js";

const CROSSINGS = Number(process.env.CHAIN_CROSSINGS ?? 1_000_000);
const CALLS = Number(process.env.CHAIN_CALLS ?? 4_000);
const ROUNDS = Number(process.env.CHAIN_ROUNDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "bench-chain-"));
const log = (line: string) => console.log(line);

/**
 * Guarded calls per second, and this process's CPU microseconds per call and result (the figure a shared machine's
 * load moves least): CALLS calls with results over 50 sessions, 64 in flight, group-committed.
 */
async function callsPerSecond(ledger: Ledger, teamId: string, round: number): Promise<{ rate: number; cpu: number }> {
  const sessions = Array.from(
    { length: 50 },
    (_, i) => ledger.sessions.create(teamId, { context: `r${round}s${i}` }, new Date()).id,
  );
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= CALLS) return;
      const s = sessions[i % sessions.length]!;
      const c = await ledger.callBatched(teamId, s, "read_discharge", { site: "07374000" });
      await ledger.resultBatched(teamId, s, c.call_id, `${1000 + (i % 500)} cfs`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  const c = process.cpuUsage(c0);
  return { rate: CALLS / ((performance.now() - t0) / 1000), cpu: (c.user + c.system) / CALLS };
}

const guardDb = openDb(join(dir, "guard.db"));
const ledger = new Ledger(guardDb, fixedClock("2026-03-02T09:00:00Z"));
const team = createTeam(guardDb.db, "bench-chain").id;
ledger.tools.put(team, "read_discharge", { params: { site: {} }, returns: { unit: "cfs" } }, ledger.datums(team));
const rates = { on: [] as number[], off: [] as number[] };
const cpus = { on: [] as number[], off: [] as number[] };
for (let r = 0; r < ROUNDS; r += 1)
  for (const mode of ["on", "off"] as const) {
    chainSettings.enabled = mode === "on";
    const { rate, cpu } = await callsPerSecond(ledger, team, r * 2 + (mode === "on" ? 0 : 1));
    rates[mode].push(rate);
    cpus[mode].push(cpu);
    log(
      `round ${r + 1}, chain ${mode}: ${rate.toFixed(0)} guarded calls (with results) per second, ${cpu.toFixed(1)} CPU us each`,
    );
  }
chainSettings.enabled = true;
guardDb.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const on = median(rates.on);
const off = median(rates.off);
log(
  `guarded calls/s, median of ${ROUNDS}: chain on ${on.toFixed(0)}, off ${off.toFixed(0)}: cost ${((1 - on / off) * 100).toFixed(1)} %`,
);
const cpuOn = median(cpus.on);
const cpuOff = median(cpus.off);
log(
  `CPU us per call and result, median of ${ROUNDS}: chain on ${cpuOn.toFixed(1)}, off ${cpuOff.toFixed(1)}: ` +
    `cost ${((1 - cpuOff / cpuOn) * 100).toFixed(1)} % of throughput (target <= 10 %)`,
);

const file = join(dir, "scale.db");
const store = openDb(file);
log(`building ${CROSSINGS.toLocaleString("en")} crossings (chained) in ${file}`);
const built = buildLedger(store, CROSSINGS, log);
log(`  built ${built.crossings.toLocaleString("en")} crossings in ${built.buildSeconds.toFixed(0)} s`);
// The ledger at rest, as a verify finds it: its log checkpointed and the file's pages written back to the disk, so
// the passes below do not share the two cores with the kernel writing back the gigabyte just built.
store.sqlite.pragma("wal_checkpoint(TRUNCATE)");
const fd = openSync(file, "r");
fsyncSync(fd);
closeSync(fd);
// Through the chain port, as `agent-ledger verify` and GET /v1/ledger/verify do: a large team is verified on two
// threads (docs/DESIGN-NOTES.md "Ledger chain"). Two passes: the first in a process that has not verified yet (its
// worker starts, its readers map the file), the second as a long-running service verifies again.
const chain = sqliteLedgerChain(store.sqlite);
/** Verifies every team through `port`; the entries per second and the event loop's largest delay meanwhile. */
async function verifyAll(port: typeof chain): Promise<{ entries: number; secs: number; loopMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let entries = 0;
  const t0 = performance.now();
  for (const teamId of await port.teams()) {
    const v = await port.verify(teamId);
    if (!v.ok) throw new Error(`verify failed: ${JSON.stringify(v)}`);
    entries += v.count;
  }
  const secs = (performance.now() - t0) / 1000;
  // One turn more, so a delay that lasted to the end is recorded too.
  await new Promise((r) => setTimeout(r, 20));
  delay.disable();
  return { entries, secs, loopMs: delay.max / 1e6 };
}
for (const pass of ["first", "second"]) {
  const { entries, secs, loopMs } = await verifyAll(chain);
  log(
    `verify, ${pass} pass: ${entries.toLocaleString("en")} entries in ${secs.toFixed(2)} s = ${(entries / secs).toFixed(0)} entries/s (target >= 200,000); the event loop's largest delay ${loopMs.toFixed(0)} ms`,
  );
}
// As `serve` verifies (GET /v1/ledger/verify): on the verify worker thread, the loop left free for other requests.
for (const pass of ["first", "second"]) {
  const { entries, secs, loopMs } = await verifyAll(sqliteLedgerChain(store.sqlite, { offLoop: true }));
  log(
    `verify as serve runs it (verify worker), ${pass} pass: ${entries.toLocaleString("en")} entries in ${secs.toFixed(2)} s = ${(entries / secs).toFixed(0)} entries/s; the event loop's largest delay ${loopMs.toFixed(0)} ms`,
  );
}
// The same walk on one thread (SqliteChain.verify, as a window or a ":memory:" ledger is checked), for the ratio.
{
  const one = sqliteChain(store.sqlite);
  let entries = 0;
  const t0 = performance.now();
  for (const teamId of await chain.teams()) entries += one.verify(teamId).count;
  const secs = (performance.now() - t0) / 1000;
  log(
    `verify on one thread: ${entries.toLocaleString("en")} entries in ${secs.toFixed(2)} s = ${(entries / secs).toFixed(0)} entries/s`,
  );
}
store.close();
rmSync(dir, { recursive: true, force: true });

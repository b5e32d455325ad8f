// bench:pg:probe — the guarded-call path on PostgreSQL measured in process: round trips per call, and the CPU the Node
// process and the PostgreSQL server each spend per call (from /proc), with PROBE_CONCURRENCY sessions in parallel.
import pg from "pg";
import { openPgStore } from "../../src/store/pg/store.js";
import { benchPg, isBenchPostgres, postmasterOf } from "../pg-server.js";
import { cpuOf } from "../proc-cpu.js";

const CALLS = Number(process.env.PROBE_CALLS ?? 2000);
const CONCURRENCY = Number(process.env.PROBE_CONCURRENCY ?? 25);

/** User+system CPU seconds of the benchmark's PostgreSQL server (its postmaster and backends), from /proc. */
function postgresCpu(): number {
  return cpuOf((pid, cmd, stat) => isBenchPostgres(server.dataDir, postmaster, pid, cmd, stat));
}

let roundTrips = 0;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  roundTrips += 1;
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

const server = await benchPg();
const postmaster = postmasterOf(server.dataDir);
const url = await server.newDatabase("bench_probe");
const store = await openPgStore(url, { poolSize: Number(process.env.PROBE_POOL ?? 25) });
try {
  const team = await store.teams.ensureDefault();
  await store.tools.put(team, "read_discharge", { params: { site: {} }, returns: { unit: "cfs" } });
  await store.tools.put(team, "runoff_depth", {
    params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
    returns: { unit: "mm/day" },
  });
  if (process.env.PROBE_DROP) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const stmt of process.env.PROBE_DROP.split(";")) await c.query(stmt);
    await c.end();
  }
  const sessions: string[] = [];
  for (let i = 0; i < CONCURRENCY; i += 1) sessions.push((await store.sessions.create(team, { context: "probe" })).id);
  const args = { discharge: "1250 cfs", area: 29000 };
  // PROBE_MIX=load: bench:load's cycle, a reading and its result, then a computation on it and its result (4 writes).
  const mixed = process.env.PROBE_MIX === "load";
  const loadArgs = { discharge: { value: 1250, unit: "cfs" }, area: "29000 km**2" };
  const worker = async (s: string, n: number) => {
    for (let i = 0; i < n; i += 1) {
      if (!mixed) {
        await store.calls.call(team, s, "runoff_depth", args);
        continue;
      }
      const kind = i % 4;
      if (kind === 0) last.set(s, (await store.calls.call(team, s, "read_discharge", { site: "07374000" })).call_id);
      else if (kind === 2) last.set(s, (await store.calls.call(team, s, "runoff_depth", loadArgs)).call_id);
      else await store.calls.result(team, s, last.get(s)!, kind === 1 ? 1250 : 12.5);
    }
  };
  const last = new Map<string, string>();
  await Promise.all(sessions.map((s) => worker(s, 10)));
  const rt0 = roundTrips;
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpu();
  const t0 = performance.now();
  await Promise.all(sessions.map((s) => worker(s, Math.ceil(CALLS / CONCURRENCY))));
  const wall = (performance.now() - t0) / 1000;
  const n = Math.ceil(CALLS / CONCURRENCY) * CONCURRENCY;
  const cpu = process.cpuUsage(cpu0);
  const pgCpu = postgresCpu() - pg0;
  const node = (cpu.user + cpu.system) / 1e6;
  console.log(
    `${server.describe}; ${n} ${mixed ? "writes (calls and results)" : "calls"}, ${CONCURRENCY} sessions in parallel, node ${process.version}`,
  );
  console.log(`calls/s ${(n / wall).toFixed(0)}; round trips per call ${((roundTrips - rt0) / n).toFixed(2)}`);
  console.log(`CPU per call: node ${((node / n) * 1e6).toFixed(0)} us, postgres ${((pgCpu / n) * 1e6).toFixed(0)} us`);
} finally {
  await store.close();
  await server.stop();
}

// bench:http:sustained — guarded calls without a pause against `serve` on a file database, for long enough that the
// WAL checkpointer must keep up with a log that never stops growing: the longest log and the largest `-wal` file seen
// (sampled every 20 ms), the request tail (p99, p99.9, the largest), the rate, the server's CPU a request, and from
// inside the server its largest loop delay, GC pause and longest request. Two servers in the
// same run, in alternating rounds: today's `serve`, and one whose checkpointer never closes the log (the preload
// bench/http/no-close-preload.ts), which is how `serve` checkpointed before session 20.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { walIndex } from "../../test/store/sqlite/wal-log.js";
import { measuredRow } from "../proc-cpu.js";
import { freePort, perSession, prepare, run, start, TOKEN, waitHealthy } from "./load.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 50;
const SAMPLE_MS = 20;
const WATCH = "./bench/http/loop-watch-preload.ts";
const MIB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "bench-sustained-"));

type Server = {
  label: string;
  child: ChildProcess;
  base: string;
  db: string;
  sessions: string[];
  watched: Watch[];
};

/** Starts one `serve` on a database file of its own, with `preload` (when given) imported first. */
async function serve(label: string, name: string, preload?: string): Promise<Server> {
  const port = await freePort();
  const db = join(dir, `${name}.db`);
  const preloads = [WATCH, ...(preload ? [preload] : [])].flatMap((p) => ["--import", p]);
  const args = [...preloads, "src/cli/main.ts", "serve"];
  const child = await start(
    args,
    { PORT: String(port), AGENT_LEDGER_DB: db, AGENT_LEDGER_ADMIN_TOKEN: TOKEN },
    new RegExp(`listening|${port}`),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitHealthy(`${base}/healthz`);
  const watched: Watch[] = [];
  child.stdout!.on("data", (d: Buffer) => {
    for (const m of d.toString().matchAll(/loop-watch (\{.*\})/g)) watched.push(JSON.parse(m[1]!) as Watch);
  });
  return {
    label,
    child,
    base,
    db,
    sessions: await prepare(base, CONNECTIONS),
    watched,
  };
}

/**
 * The server's largest event-loop delay, largest GC pause and longest request inside it over the last round, in ms
 * (bench/http/loop-watch-preload.ts).
 */
type Watch = { loopMax: number; gcMax: number; servedMax: number };

/** Asks `s` for its loop-watch line and waits for it. */
async function watch(s: Server): Promise<Watch> {
  const n = s.watched.length;
  s.child.kill("SIGUSR2");
  for (let i = 0; i < 100 && s.watched.length === n; i += 1) await new Promise((r) => setTimeout(r, 20));
  const w = s.watched[n];
  if (!w) throw new Error(`${s.label}: no loop-watch line`);
  return w;
}

/** The `-wal` file's size in bytes, 0 while there is none. */
function walSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The log's length in bytes (test/store/sqlite/wal-log.ts), 0 while there is no `-shm` file. */
function logLength(db: string): number {
  try {
    const { frames, pageSize } = walIndex(db);
    return frames * pageSize;
  } catch {
    return 0;
  }
}

type Round = {
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  walMax: number;
  logMax: number;
  cpuUs: number;
  loopMax: number;
  servedMax: number;
  gcMax: number;
};

/** One round of load against `s`, with the log's size sampled throughout. */
async function round(s: Server): Promise<Round> {
  let walMax = 0;
  let logMax = 0;
  await watch(s);
  const sampler = setInterval(() => {
    walMax = Math.max(walMax, walSize(`${s.db}-wal`));
    logMax = Math.max(logMax, logLength(s.db));
  }, SAMPLE_MS);
  const [r, cpu] = await measuredRow(
    [s.child.pid],
    () => false,
    () => run({ ...perSession(s.base, s.sessions, CONNECTIONS), duration: SECONDS }),
  );
  clearInterval(sampler);
  const w = await watch(s);
  if (r.non2xx || r.errors) throw new Error(`${s.label}: ${r.non2xx} non-2xx answers and ${r.errors} errors`);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    p999: r.latency.p99_9,
    max: r.latency.max,
    walMax: walMax / MIB,
    logMax: logMax / MIB,
    cpuUs: cpu.server,
    loopMax: w.loopMax,
    servedMax: w.servedMax,
    gcMax: w.gcMax,
  };
}

const servers = [
  await serve("serve (the log closed while group commits wait)", "closing"),
  await serve("checkpointer without closing (before session 20)", "open", "./bench/http/no-close-preload.ts"),
];
// A short round each first, not counted: the first seconds of a process (JIT, the tables' first pages) are slower.
for (const s of servers) await run({ ...perSession(s.base, s.sessions, CONNECTIONS), duration: 3 });
const results = new Map<string, Round[]>(servers.map((s) => [s.label, []]));
try {
  for (let i = 0; i < ROUNDS; i += 1) {
    for (const s of i % 2 === 0 ? servers : [...servers].reverse()) {
      const r = await round(s);
      results.get(s.label)!.push(r);
      console.log(
        `round ${i + 1} ${s.label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, p99.9 ${r.p999} ms, ` +
          `max ${r.max} ms, longest log ${r.logMax.toFixed(1)} MiB (file ${r.walMax.toFixed(1)}), ${r.cpuUs.toFixed(0)} us CPU a request, ` +
          `largest loop delay ${r.loopMax} ms, largest GC pause ${r.gcMax} ms, longest in the server ${r.servedMax} ms`,
      );
    }
  }
} finally {
  for (const s of servers) s.child.kill();
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\n${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections; medians:`);
console.log(
  "| server | req/s | p99 ms | p99.9 ms | max ms | longest in the server ms | largest loop delay ms | largest GC ms | longest log MiB | largest -wal file MiB | server CPU us a request |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const [label, rs] of results) {
  const col = (f: (r: Round) => number, digits = 0) => median(rs.map(f)).toFixed(digits);
  console.log(
    `| ${label} | ${col((r) => r.rps)} | ${col((r) => r.p99)} | ${col((r) => r.p999)} | ${col((r) => r.max)} | ` +
      `${col((r) => r.servedMax)} | ${col((r) => r.loopMax)} | ${col((r) => r.gcMax)} | ${col((r) => r.logMax, 1)} | ${col((r) => r.walMax, 1)} | ${col((r) => r.cpuUs)} |`,
  );
}

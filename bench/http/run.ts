// bench:http — guarded calls per second over loopback against the real server on a file database, beside a route that
// parses a JSON body and inserts one row, measured with autocannon in the same run. Bounded: a few seconds per target.
// The PostgreSQL leg runs in the same run: one `serve` on PostgreSQL, then two on the same database (half the
// connections each), every connection in its own session, against SQLite under the same per-connection workload.
// Each row also gives the CPU per request of the server process(es), of PostgreSQL and of autocannon (this process),
// read from /proc: on a shared machine the rates move with the neighbours' load, the CPU per request much less.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type autocannon from "autocannon";
import { benchPg, isBenchPostgres, postmasterOf } from "../pg-server.js";
import { measuredRow, type RowCpu } from "../proc-cpu.js";
import {
  CALL,
  DECL,
  DURATION,
  freePort,
  HEADERS,
  json,
  perSession,
  prepare,
  run,
  start,
  TOKEN,
  waitHealthy,
} from "./load.js";

const WARM_SECONDS = 2;
const CONNECTIONS = 50;
const CHAIN_ROUNDS = Number(process.env.BENCH_CHAIN_ROUNDS ?? 5);
const CHAIN_SECONDS = 4;
const dir = mkdtempSync(join(tmpdir(), "bench-http-"));

/** Sums the throughput of runs that ran at the same time; latency is the worse of the two. */
function combined(parts: autocannon.Result[]): autocannon.Result {
  const [first] = parts;
  return {
    ...first!,
    requests: {
      ...first!.requests,
      average: parts.reduce((n, r) => n + r.requests.average, 0),
      total: parts.reduce((n, r) => n + r.requests.total, 0),
    },
    latency: {
      ...first!.latency,
      p50: Math.max(...parts.map((r) => r.latency.p50)),
      p99: Math.max(...parts.map((r) => r.latency.p99)),
    },
    non2xx: parts.reduce((n, r) => n + r.non2xx, 0),
    errors: parts.reduce((n, r) => n + r.errors, 0),
  };
}

/** Runs a row's load and measures the CPU per request of its servers, this run's PostgreSQL and autocannon. */
const measured = (servers: ChildProcess[], load: () => Promise<autocannon.Result>) =>
  measuredRow(
    servers.map((c) => c.pid),
    (pid, cmd, stat) => isBenchPostgres(pgDataDir, postmaster, pid, cmd, stat),
    load,
  );

const ours = await start(
  ["src/cli/main.ts", "serve"],
  { PORT: "8791", AGENT_LEDGER_DB: join(dir, "ledger.db"), AGENT_LEDGER_ADMIN_TOKEN: TOKEN },
  /listening|8791/,
);
// Issue 29: the same server with the ledger chain off, for the chain's cost over HTTP in this run.
const unchained = await start(
  ["src/cli/main.ts", "serve"],
  {
    PORT: "8792",
    AGENT_LEDGER_DB: join(dir, "unchained.db"),
    AGENT_LEDGER_ADMIN_TOKEN: TOKEN,
    AGENT_LEDGER_CHAIN: "off",
  },
  /listening|8792/,
);
const base = await start(
  ["bench/http/baseline-server.ts"],
  { PORT: "8790", BASELINE_DB: join(dir, "baseline.db") },
  /baseline ready/,
);
const pgServer = await benchPg();
const pgDataDir = pgServer.dataDir;
const postmaster = postmasterOf(pgDataDir);
const pgUrl = await pgServer.newDatabase("bench_http");
const pgPorts = [await freePort(), await freePort()];
const pgServe = (port: number) =>
  start(
    ["src/cli/main.ts", "serve"],
    { PORT: String(port), AGENT_LEDGER_DB: pgUrl, AGENT_LEDGER_ADMIN_TOKEN: TOKEN },
    /listening on/,
  );
const pgInstances: ChildProcess[] = [];
try {
  await waitHealthy("http://127.0.0.1:8791/healthz");
  const session = await json("http://127.0.0.1:8791/v1/sessions", "POST", { context: "bench" });
  await json("http://127.0.0.1:8791/v1/tools/runoff_depth", "PUT", DECL);
  const liteSessions = await prepare("http://127.0.0.1:8791", CONNECTIONS);
  await waitHealthy("http://127.0.0.1:8792/healthz");
  const offSessions = await prepare("http://127.0.0.1:8792", CONNECTIONS);
  await run({ ...perSession("http://127.0.0.1:8792", offSessions, CONNECTIONS), duration: WARM_SECONDS + 3 });
  pgInstances.push(await pgServe(pgPorts[0]!));
  const pgA = `http://127.0.0.1:${pgPorts[0]}`;
  const pgB = `http://127.0.0.1:${pgPorts[1]}`;
  await waitHealthy(`${pgA}/healthz`);
  const pgSessions = await prepare(pgA, CONNECTIONS);
  const results: [string, autocannon.Result, RowCpu][] = [];
  const row = async (name: string, servers: ChildProcess[], load: () => Promise<autocannon.Result>) => {
    results.push([name, ...(await measured(servers, load))]);
  };
  await row("baseline: parse JSON + insert one row", [base], () =>
    run({
      url: "http://127.0.0.1:8790/readings",
      method: "POST",
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site: "07374000", value: 1250 }),
    }),
  );
  await row('guarded call ("1250 cfs" converted, carry-over checked, 2 crossings stored)', [ours], () =>
    run({
      url: `http://127.0.0.1:8791/v1/sessions/${session.id}/calls`,
      method: "POST",
      connections: CONNECTIONS,
      duration: DURATION,
      headers: HEADERS,
      body: CALL,
    }),
  );
  await row("SQLite: guarded call, one session per connection", [ours], () =>
    run(perSession("http://127.0.0.1:8791", liteSessions, CONNECTIONS)),
  );
  // Issue 29: the chain's cost, as alternating rounds of the same per-session calls against the chained server and
  // one with AGENT_LEDGER_CHAIN=off, so the machine's load drifts over both alike; medians of CHAIN_ROUNDS each.
  const chainRounds: Record<"on" | "off", { rate: number; cpu: number }[]> = { on: [], off: [] };
  for (let r = 0; r < CHAIN_ROUNDS; r += 1)
    for (const mode of ["on", "off"] as const) {
      const [server, url, sessions] =
        mode === "on"
          ? [ours, "http://127.0.0.1:8791", liteSessions]
          : [unchained, "http://127.0.0.1:8792", offSessions];
      const [res, cpu] = await measured([server], () =>
        run({ ...perSession(url, sessions, CONNECTIONS), duration: CHAIN_SECONDS }),
      );
      chainRounds[mode].push({ rate: res.requests.average, cpu: cpu.server });
    }
  // The SQLite server had the 5 s of the one-session leg to warm up before its per-session leg; each PostgreSQL
  // instance gets WARM_SECONDS of the same per-session calls, unmeasured, before its own.
  await run({ ...perSession(pgA, pgSessions, CONNECTIONS), duration: WARM_SECONDS });
  await row("PostgreSQL, 1 instance: guarded call, one session per connection", [...pgInstances], () =>
    run(perSession(pgA, pgSessions, CONNECTIONS)),
  );
  pgInstances.push(await pgServe(pgPorts[1]!));
  await waitHealthy(`${pgB}/healthz`);
  const half = CONNECTIONS / 2;
  await run({ ...perSession(pgB, pgSessions.slice(half), half), duration: WARM_SECONDS });
  await row("PostgreSQL, 2 instances on one database (25 connections each)", [...pgInstances], async () =>
    combined(
      await Promise.all([
        run(perSession(pgA, pgSessions.slice(0, half), half)),
        run(perSession(pgB, pgSessions.slice(half), half)),
      ]),
    ),
  );
  console.log(
    `PostgreSQL: ${pgServer.describe}; ${CONNECTIONS} connections, ${DURATION} s per row, node ${process.version}\n`,
  );
  console.log("| route | req/s | p50 ms | p99 ms | non-2xx | errors | CPU us/req: server | PostgreSQL | autocannon |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const [name, r, c] of results)
    console.log(
      `| ${name} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} | ${r.errors} ` +
        `| ${c.server} | ${c.postgres} | ${c.autocannon} |`,
    );
  const rate = (i: number) => results[i]![1].requests.average;
  console.log(`\nguarded / baseline throughput: ${(rate(1) / rate(0)).toFixed(2)} (target >= 0.5)`);
  console.log(
    `PostgreSQL 1 instance / SQLite (one session per connection): ${(rate(3) / rate(2)).toFixed(2)} (target >= 0.5)`,
  );
  console.log(`PostgreSQL 2 instances / 1 instance: ${(rate(4) / rate(3)).toFixed(2)} (target >= 1.5)`);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const show = (mode: "on" | "off", k: "rate" | "cpu") => chainRounds[mode].map((x) => x[k].toFixed(0)).join(", ");
  const [onRate, offRate] = [med(chainRounds.on.map((x) => x.rate)), med(chainRounds.off.map((x) => x.rate))];
  const [onCpu, offCpu] = [med(chainRounds.on.map((x) => x.cpu)), med(chainRounds.off.map((x) => x.cpu))];
  console.log(
    `\nledger chain on / off, ${CHAIN_ROUNDS} alternating rounds of ${CHAIN_SECONDS} s (SQLite, one session per connection):`,
  );
  console.log("| chain | median req/s | rounds | median server CPU us/req | rounds |");
  console.log("|---|---|---|---|---|");
  console.log(`| on | ${onRate.toFixed(0)} | ${show("on", "rate")} | ${onCpu.toFixed(0)} | ${show("on", "cpu")} |`);
  console.log(
    `| off | ${offRate.toFixed(0)} | ${show("off", "rate")} | ${offCpu.toFixed(0)} | ${show("off", "cpu")} |`,
  );
  console.log(
    `ledger chain's cost to guarded-call throughput over HTTP: ${((1 - onRate / offRate) * 100).toFixed(1)} % by rate, ` +
      `${((1 - offCpu / onCpu) * 100).toFixed(1)} % by server CPU per request (target <= 10 %)`,
  );
} finally {
  ours.kill("SIGTERM");
  unchained.kill("SIGTERM");
  base.kill("SIGTERM");
  for (const p of pgInstances) p.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
  await pgServer.stop();
  rmSync(dir, { recursive: true, force: true });
}

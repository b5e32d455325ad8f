// bench:pg:http-probe — one `serve` on PostgreSQL under guarded calls (one session per connection): requests per
// second, transactions and statements the server ran per request (pg_stat_database), and the CPU the serve process
// and the PostgreSQL server each spent per request (from /proc); PROBE_ENGINE=sqlite serves a SQLite file instead. PROBE_PROFILE=dir writes the serve process's
// --cpu-prof there.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { benchPg } from "../pg-server.js";

const SECONDS = Number(process.env.PROBE_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.PROBE_CONNECTIONS ?? 50);
const TOKEN = "bench-admin-token-0123456789";
const PORT = 8795;

function cpuOf(filter: (pid: string, cmd: string) => boolean): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!filter(pid, cmd)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      /* gone */
    }
  }
  return total;
}

const sqlite = process.env.PROBE_ENGINE === "sqlite";
const server = await benchPg();
const url = sqlite
  ? join(mkdtempSync(join(tmpdir(), "probe-")), "ledger.db")
  : await server.newDatabase("bench_http_probe");
const profile = process.env.PROBE_PROFILE;
const child = spawn(
  process.execPath,
  [...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []), "--import", "tsx", "src/cli/main.ts", "serve"],
  { env: { ...process.env, PORT: String(PORT), AGENT_LEDGER_DB: url, AGENT_LEDGER_ADMIN_TOKEN: TOKEN }, stdio: "pipe" },
);
await new Promise<void>((resolve) => {
  const on = (d: Buffer) => /listening on/.test(d.toString()) && resolve();
  child.stdout!.on("data", on);
  child.stderr!.on("data", on);
});
const base = `http://127.0.0.1:${PORT}`;
const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const send = async (path: string, method: string, body: unknown) =>
  (await (await fetch(base + path, { method, headers, body: JSON.stringify(body) })).json()) as { id: string };
await send("/v1/tools/runoff_depth", "PUT", {
  params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
  returns: { unit: "mm/day" },
});
const sessions: string[] = [];
for (let i = 0; i < CONNECTIONS; i += 1) sessions.push((await send("/v1/sessions", "POST", { context: "p" })).id);
const admin = sqlite ? null : new pg.Client({ connectionString: url });
await admin?.connect();
const TRANSACTIONS = "SELECT xact_commit + xact_rollback AS x FROM pg_stat_database WHERE datname = current_database()";
const stats = async () => (admin ? ((await admin.query(TRANSACTIONS)).rows[0].x as string) : "0");
const body = JSON.stringify({ tool: "runoff_depth", args: { discharge: "1250 cfs", area: 29000 } });
let next = 0;
const opts = (duration: number): autocannon.Options => ({
  url: base,
  connections: CONNECTIONS,
  duration,
  requests: [
    {
      method: "POST",
      headers,
      body,
      setupRequest: ((req: autocannon.Request, ctx: { s?: string }) => {
        ctx.s ??= sessions[next++ % sessions.length];
        return { ...req, path: `/v1/sessions/${ctx.s}/calls` };
      }) as unknown as NonNullable<autocannon.Request["setupRequest"]>,
    },
  ],
});
const run = (o: autocannon.Options) =>
  new Promise<autocannon.Result>((res, rej) => autocannon(o, (e, r) => (e ? rej(e) : res(r))));
if (process.env.PROBE_WARM !== "0") await run(opts(1));
const servePid = String(child.pid);
const x0 = Number(await stats());
const node0 = cpuOf((pid) => pid === servePid);
const pg0 = cpuOf((_, cmd) => /postgres/.test(cmd) && !/node/.test(cmd));
const r = await run(opts(SECONDS));
const x1 = Number(await stats());
const n = r.requests.total;
const nodeCpu = cpuOf((pid) => pid === servePid) - node0;
const pgCpu = cpuOf((_, cmd) => /postgres/.test(cmd) && !/node/.test(cmd)) - pg0;
console.log(`${sqlite ? "SQLite file" : server.describe}; ${CONNECTIONS} connections, ${SECONDS} s`);
console.log(
  `req/s ${r.requests.average.toFixed(0)}, non-2xx ${r.non2xx}, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`,
);
console.log(`transactions per request ${((x1 - x0 - 1) / n).toFixed(2)}`);
console.log(
  `CPU per request: serve ${((nodeCpu / n) * 1e6).toFixed(0)} us, postgres ${((pgCpu / n) * 1e6).toFixed(0)} us`,
);
await admin?.end();
child.kill("SIGINT");
await new Promise((r) => child.on("exit", r));
await server.stop();

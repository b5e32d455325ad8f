// bench:pg:http-probe — one `serve` on PostgreSQL under guarded calls (one session per connection): requests per
// second, transactions the server ran per request (pg_stat_database), and the CPU the serve process(es), the
// PostgreSQL server and autocannon (this process) each spent per request (from /proc). PROBE_INSTANCES=2 runs two
// serves on the database, half the connections each; PROBE_ENGINE=sqlite serves a SQLite file instead.
// PROBE_PROFILE=dir writes each serve process's --cpu-prof there.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { benchPg, isBenchPostgres, postmasterOf } from "../pg-server.js";
import { cpuOf } from "../proc-cpu.js";

const SECONDS = Number(process.env.PROBE_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.PROBE_CONNECTIONS ?? 50);
const TOKEN = "bench-admin-token-0123456789";
const PORT = 8795;
const INSTANCES = Number(process.env.PROBE_INSTANCES ?? 1);

const sqlite = process.env.PROBE_ENGINE === "sqlite";
const server = await benchPg();
const url = sqlite
  ? join(mkdtempSync(join(tmpdir(), "probe-")), "ledger.db")
  : await server.newDatabase("bench_http_probe");
const profile = process.env.PROBE_PROFILE;
const serve = (port: number) =>
  spawn(
    process.execPath,
    [...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []), "--import", "tsx", "src/cli/main.ts", "serve"],
    {
      env: { ...process.env, PORT: String(port), AGENT_LEDGER_DB: url, AGENT_LEDGER_ADMIN_TOKEN: TOKEN },
      stdio: "pipe",
    },
  );
const started = (child: ReturnType<typeof spawn>) =>
  new Promise<void>((resolve) => {
    const on = (d: Buffer) => /listening on/.test(d.toString()) && resolve();
    child.stdout!.on("data", on);
    child.stderr!.on("data", on);
  });
const children = [serve(PORT)];
await started(children[0]!);
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
const opts = (port: number, own: string[], duration: number): autocannon.Options => {
  let next = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: own.length,
    duration,
    requests: [
      {
        method: "POST",
        headers,
        body,
        setupRequest: ((req: autocannon.Request, ctx: { s?: string }) => {
          ctx.s ??= own[next++ % own.length];
          return { ...req, path: `/v1/sessions/${ctx.s}/calls` };
        }) as unknown as NonNullable<autocannon.Request["setupRequest"]>,
      },
    ],
  };
};
const run = (o: autocannon.Options) =>
  new Promise<autocannon.Result>((res, rej) => autocannon(o, (e, r) => (e ? rej(e) : res(r))));
for (let i = 1; i < INSTANCES; i += 1) {
  children.push(serve(PORT + i));
  await started(children[i]!);
}
// Each instance serves its own share of the sessions, every connection in its own session.
const shares = children.map((_, i) => sessions.filter((_, j) => j % INSTANCES === i));
const all = (duration: number) => Promise.all(shares.map((own, i) => run(opts(PORT + i, own, duration))));
if (process.env.PROBE_WARM !== "0") await all(1);
const servePids = new Set(children.map((c) => String(c.pid)));
const postmaster = postmasterOf(server.dataDir);
const pgCpu = () => cpuOf((pid, cmd, st) => isBenchPostgres(server.dataDir, postmaster, pid, cmd, st));
const serveCpu = () => cpuOf((pid) => servePids.has(pid));
const x0 = Number(await stats());
const [node0, pg0, self0] = [serveCpu(), pgCpu(), process.cpuUsage()];
const rs = await all(SECONDS);
const x1 = Number(await stats());
const n = rs.reduce((t, r) => t + r.requests.total, 0);
const self = process.cpuUsage(self0);
const [nodeCpu, pgUsed] = [serveCpu() - node0, pgCpu() - pg0];
const per = (seconds: number) => ((seconds / n) * 1e6).toFixed(0);
console.log(
  `${sqlite ? "SQLite file" : server.describe}; ${INSTANCES} serve, ${CONNECTIONS} connections, ${SECONDS} s`,
);
const rate = rs.reduce((t, r) => t + r.requests.average, 0);
const non2xx = rs.reduce((t, r) => t + r.non2xx, 0);
console.log(`req/s ${rate.toFixed(0)}, non-2xx ${non2xx}, p50 ${rs[0]!.latency.p50} ms, p99 ${rs[0]!.latency.p99} ms`);
console.log(`transactions per request ${((x1 - x0 - 1) / n).toFixed(2)}`);
console.log(
  `CPU per request: serve ${per(nodeCpu)} us, postgres ${per(pgUsed)} us, autocannon ${per((self.user + self.system) / 1e6)} us`,
);
await admin?.end();
for (const c of children) c.kill("SIGINT");
await Promise.all(children.map((c) => new Promise((r) => c.on("exit", r))));
await server.stop();

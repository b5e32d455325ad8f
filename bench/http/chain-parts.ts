// bench:http:parts — the chain's append over HTTP taken apart (issue 29): five `serve` processes on SQLite files, the
// whole chain, no entry rows written, the rows' hashing left out (constant digests), neither, and the chain off, each
// part left out by bench/http/chain-part-preload.ts. Alternating rounds of the same per-session guarded calls; medians
// of the rate and of the server's CPU per request, and each one's cost against the chain-off server of the same run.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { measuredRow } from "../proc-cpu.js";
const TOKEN = "bench-admin-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "bench-http-parts-"));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
function start(pre: string[], port: number, env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...pre, "src/cli/main.ts", "serve"], {
      env: {
        ...process.env,
        PORT: String(port),
        AGENT_LEDGER_DB: join(dir, `${port}.db`),
        AGENT_LEDGER_ADMIN_TOKEN: TOKEN,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const onData = (d: Buffer) => {
      if (/listening/.test(d.toString())) resolve(child);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`exit ${code}`)));
  });
}
const HEADERS = { "content-type": "application/json", authorization: `Bearer ${TOKEN}` };
const DECL = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };
const CALL = JSON.stringify({ tool: "runoff_depth", args: { discharge: "1250 cfs", area: 29000 } });
async function json(url: string, method: string, body: unknown) {
  const r = await fetch(url, { method, headers: HEADERS, body: JSON.stringify(body) });
  return (await r.json()) as { id: string };
}
async function prepare(base: string, n: number) {
  await json(`${base}/v1/tools/runoff_depth`, "PUT", DECL);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await json(`${base}/v1/sessions`, "POST", { context: "bench" })).id);
  return ids;
}
function perSession(base: string, sessions: string[], duration: number): autocannon.Options {
  let next = 0;
  const setupRequest = ((req: autocannon.Request, ctx: { session?: string }) => {
    ctx.session ??= sessions[next++ % sessions.length];
    return { ...req, path: `/v1/sessions/${ctx.session}/calls` };
  }) as unknown as NonNullable<autocannon.Request["setupRequest"]>;
  return {
    url: base,
    connections: 50,
    duration,
    requests: [{ method: "POST", headers: HEADERS, body: CALL, setupRequest }],
  };
}
const run = (o: autocannon.Options) =>
  new Promise<autocannon.Result>((res, rej) => autocannon(o, (e, r) => (e ? rej(e) : res(r))));
const PRELOAD = ["--import", "./bench/http/chain-part-preload.ts"];
const modes: [string, string[], Record<string, string>, number][] = [
  ["whole chain", [], {}, 8801],
  ["rows hashed, no entry rows", PRELOAD, { BENCH_CHAIN_PART: "entries" }, 8802],
  ["entry rows, hashing left out", PRELOAD, { BENCH_CHAIN_PART: "hashing" }, 8804],
  ["neither: head moved only", PRELOAD, { BENCH_CHAIN_PART: "both" }, 8805],
  ["chain off", [], { AGENT_LEDGER_CHAIN: "off" }, 8803],
];
const servers = await Promise.all(modes.map(([, pre, env, port]) => start(pre, port, env)));
try {
  const urls = modes.map(([, , , port]) => `http://127.0.0.1:${port}`);
  const sess = await Promise.all(urls.map((u) => prepare(u, 50)));
  for (let i = 0; i < modes.length; i++) await run(perSession(urls[i]!, sess[i]!, 3));
  const out: { rate: number; cpu: number }[][] = modes.map(() => []);
  for (let r = 0; r < ROUNDS; r++)
    for (let i = 0; i < modes.length; i++) {
      const [res, cpu] = await measuredRow(
        [servers[i]!.pid],
        () => false,
        () => run(perSession(urls[i]!, sess[i]!, 4)),
      );
      out[i]!.push({ rate: res.requests.average, cpu: cpu.server });
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rate = (i: number) => med(out[i]!.map((x) => x.rate));
  const cpu = (i: number) => med(out[i]!.map((x) => x.cpu));
  const off = modes.length - 1;
  console.log(`${ROUNDS} alternating rounds of 4 s, 50 connections, one session each, node ${process.version}\n`);
  console.log("| append | median req/s | median server CPU us/req | cost by rate | cost by CPU |");
  console.log("|---|---|---|---|---|");
  for (let i = 0; i < modes.length; i++)
    console.log(
      `| ${modes[i]![0]} | ${rate(i).toFixed(0)} | ${cpu(i)} | ${((1 - rate(i) / rate(off)) * 100).toFixed(1)} % ` +
        `| ${((1 - cpu(off) / cpu(i)) * 100).toFixed(1)} % |`,
    );
} finally {
  for (const s of servers) s.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}

// bench:http:otel — what OpenTelemetry export costs a guarded call: two `serve` processes on file databases, one
// without OTEL_EXPORTER_OTLP_ENDPOINT and one exporting http/protobuf to a collector stand-in in this process,
// measured with autocannon in BENCH_ROUNDS alternating rounds (off, on; then on, off; ...) in one run, so a
// neighbour's load and any drift land on both; the verdict is the ratio of the median throughputs. Each server's CPU
// time per request (from /proc) is printed too: it is what export costs even where throughput is noise.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = 50;
const TOKEN = "bench-admin-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "bench-otel-"));

// BENCH_CPU_PROF=DIR writes CPU profiles of both servers there (on their clean exit at the end of the run).
const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

function serve(name: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...profile, "--import", "tsx", "src/cli/main.ts", "serve", "--port", "0"], {
      env: { ...process.env, AGENT_LEDGER_DB: join(dir, `${name}.db`), AGENT_LEDGER_ADMIN_TOKEN: TOKEN, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

async function json(url: string, method: string, body: unknown): Promise<{ id: string }> {
  const r = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { id: string };
}

async function guardedSession(base: string): Promise<string> {
  await json(`${base}/v1/tools/runoff_depth`, "PUT", {
    params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
    returns: { unit: "mm/day" },
  });
  return (await json(`${base}/v1/sessions`, "POST", { context: "bench" })).id;
}

/** User + system CPU so far, in ms, of a process (all its threads) or, with `thread`, of one thread of it. */
function cpuMs(pid: number, thread?: number): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
  // Fields 14 and 15 of stat, in clock ticks of 10 ms.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const run = (opts: autocannon.Options): Promise<autocannon.Result> =>
  new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));

// The collector stand-in reads each export and answers 200.
let exported = 0;
const collector = createServer((req, res) => {
  req.on("data", (c: Buffer) => {
    exported += c.length;
  });
  req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
});
await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", () => resolve()));
const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

const off = await serve("off", {});
const on = await serve("on", { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" });
try {
  const sessions = { off: await guardedSession(off.url), on: await guardedSession(on.url) };
  const leg = (base: string, session: string): autocannon.Options => ({
    url: `${base}/v1/sessions/${session}/calls`,
    method: "POST",
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ tool: "runoff_depth", args: { discharge: "1250 cfs", area: 29000 } }),
  });
  // The main thread's CPU is what bounds a server's throughput while a core is free; the process's also counts the
  // threads V8 and Node keep (garbage collection, the exporter's worker).
  type Leg = { result: autocannon.Result; cpuMsPerRequest: number; mainMsPerRequest: number };
  const results: { off: Leg[]; on: Leg[] } = { off: [], on: [] };
  const measure = async (which: "off" | "on") => {
    const server = which === "off" ? off : on;
    const pid = server.child.pid!;
    const [before, mainBefore] = [cpuMs(pid), cpuMs(pid, pid)];
    const result = await run(leg(server.url, sessions[which]));
    const requests = result.requests.total || 1;
    results[which].push({
      result,
      cpuMsPerRequest: (cpuMs(pid) - before) / requests,
      mainMsPerRequest: (cpuMs(pid, pid) - mainBefore) / requests,
    });
  };
  // A short warm-up of each, then the rounds; each round swaps which goes first.
  await run({ ...leg(off.url, sessions.off), duration: 2 });
  await run({ ...leg(on.url, sessions.on), duration: 2 });
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
    for (const which of order) await measure(which);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const rps = (ls: Leg[]) => ls.map((l) => l.result.requests.average);
  const cpu = (ls: Leg[]) => ls.map((l) => l.cpuMsPerRequest);
  const mainCpu = (ls: Leg[]) => ls.map((l) => l.mainMsPerRequest);
  console.log(
    `| guarded call (POST .../calls, 1250 cfs converted) | req/s (${ROUNDS} rounds) | median req/s | median CPU ms/req | main thread | p50 ms | p99 ms | non-2xx |`,
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const [name, ls] of [
    ["export off (no OTEL_EXPORTER_OTLP_ENDPOINT)", results.off],
    ["export on (http/protobuf, batch processor)", results.on],
  ] as const)
    console.log(
      `| ${name} | ${rps(ls)
        .map((r) => r.toFixed(0))
        .join(
          " / ",
        )} | ${median(rps(ls)).toFixed(0)} | ${median(cpu(ls)).toFixed(3)} | ${median(mainCpu(ls)).toFixed(3)} | ` +
        `${ls.map((l) => l.result.latency.p50).join(" / ")} | ${ls.map((l) => l.result.latency.p99).join(" / ")} | ` +
        `${ls.reduce((n, l) => n + l.result.non2xx, 0)} |`,
    );
  console.log(
    `\nexport on / off, ratio of median throughputs: ${(median(rps(results.on)) / median(rps(results.off))).toFixed(3)} ` +
      `(target >= 0.90); CPU per request off / on: ${(median(cpu(results.off)) / median(cpu(results.on))).toFixed(3)} ` +
      `(main thread: ${(median(mainCpu(results.off)) / median(mainCpu(results.on))).toFixed(3)}); ` +
      `${exported} bytes of spans reached the collector`,
  );
} finally {
  off.child.kill("SIGTERM");
  on.child.kill("SIGTERM");
  collector.close();
  rmSync(dir, { recursive: true, force: true });
}

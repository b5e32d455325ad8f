// bench:http — guarded calls per second over loopback against the real server on a file database, beside a route that
// parses a JSON body and inserts one row, measured with autocannon in the same run. Bounded: a few seconds per target.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;
const TOKEN = "bench-admin-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "bench-http-"));

function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const onData = (d: Buffer) => {
      if (ready.test(d.toString())) resolve(child);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never became healthy`);
}

async function json(url: string, method: string, body: unknown): Promise<{ id: string }> {
  const r = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { id: string };
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

const ours = await start(
  ["src/cli/main.ts", "serve"],
  { PORT: "8791", AGENT_LEDGER_DB: join(dir, "ledger.db"), AGENT_LEDGER_ADMIN_TOKEN: TOKEN },
  /listening|8791/,
);
// A collector stand-in for the export-on server: it reads each OTLP/HTTP request and answers 200, counting spans' bytes.
let exportedBytes = 0;
const collector = createServer((req, res) => {
  req.on("data", (c: Buffer) => {
    exportedBytes += c.length;
  });
  req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
});
await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", () => resolve()));
const collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
const traced = await start(
  ["src/cli/main.ts", "serve"],
  {
    PORT: "8792",
    AGENT_LEDGER_DB: join(dir, "traced.db"),
    AGENT_LEDGER_ADMIN_TOKEN: TOKEN,
    OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
  },
  /listening|8792/,
);
const base = await start(
  ["bench/http/baseline-server.ts"],
  { PORT: "8790", BASELINE_DB: join(dir, "baseline.db") },
  /baseline ready/,
);
try {
  await waitHealthy("http://127.0.0.1:8791/healthz");
  await json("http://127.0.0.1:8791/v1/tools/runoff_depth", "PUT", {
    params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
    returns: { unit: "mm/day" },
  });
  const session = await json("http://127.0.0.1:8791/v1/sessions", "POST", { context: "bench" });
  await waitHealthy("http://127.0.0.1:8792/healthz");
  await json("http://127.0.0.1:8792/v1/tools/runoff_depth", "PUT", {
    params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
    returns: { unit: "mm/day" },
  });
  const tracedSession = await json("http://127.0.0.1:8792/v1/sessions", "POST", { context: "bench" });
  const results: [string, autocannon.Result][] = [];
  results.push([
    "baseline: parse JSON + insert one row",
    await run({
      url: "http://127.0.0.1:8790/readings",
      method: "POST",
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ site: "07374000", value: 1250 }),
    }),
  ]);
  results.push([
    'guarded call ("1250 cfs" converted, carry-over checked, 2 crossings stored)',
    await run({
      url: `http://127.0.0.1:8791/v1/sessions/${session.id}/calls`,
      method: "POST",
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ tool: "runoff_depth", args: { discharge: "1250 cfs", area: 29000 } }),
    }),
  ]);
  // Export off and on, alternated twice so a neighbour's load lands on both; each run half the usual length.
  const guarded = (port: number, id: string): autocannon.Options => ({
    url: `http://127.0.0.1:${port}/v1/sessions/${id}/calls`,
    method: "POST",
    connections: CONNECTIONS,
    duration: Math.max(2, Math.round(DURATION / 2)),
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ tool: "runoff_depth", args: { discharge: "1250 cfs", area: 29000 } }),
  });
  const off: autocannon.Result[] = [];
  const on: autocannon.Result[] = [];
  for (let round = 0; round < 2; round += 1) {
    off.push(await run(guarded(8791, session.id)));
    on.push(await run(guarded(8792, tracedSession.id)));
  }
  const mean = (rs: autocannon.Result[]) => rs.reduce((n, r) => n + r.requests.average, 0) / rs.length;
  console.log(`| route | req/s | p50 ms | p99 ms | non-2xx | errors |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const [name, r] of results)
    console.log(
      `| ${name} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} | ${r.errors} |`,
    );
  console.log(
    `\nguarded / baseline throughput: ${(results[1]![1].requests.average / results[0]![1].requests.average).toFixed(2)} (target >= 0.5)`,
  );
  for (const [name, rs] of [
    ["guarded call, OpenTelemetry export off", off],
    ["guarded call, OpenTelemetry export on (http/protobuf to a local collector)", on],
  ] as const)
    console.log(
      `${name}: ${rs.map((r) => r.requests.average.toFixed(0)).join(" / ")} req/s, p50 ${rs.map((r) => r.latency.p50).join(" / ")} ms`,
    );
  console.log(
    `export on / export off guarded throughput: ${(mean(on) / mean(off)).toFixed(3)} (target >= 0.90); ` +
      `${exportedBytes} bytes of spans reached the collector`,
  );
} finally {
  ours.kill("SIGTERM");
  traced.kill("SIGTERM");
  base.kill("SIGTERM");
  collector.close();
  rmSync(dir, { recursive: true, force: true });
}

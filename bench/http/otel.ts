// bench:http:otel — what OpenTelemetry export costs a guarded call: two `serve` processes on file databases, one
// without OTEL_EXPORTER_OTLP_ENDPOINT and one exporting http/protobuf to a collector stand-in in this process,
// measured with autocannon alternately (off, on, off, on) in one run so a neighbour's load lands on both.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;
const TOKEN = "bench-admin-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "bench-otel-"));

function serve(name: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", "--port", "0"], {
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
  const results: { off: autocannon.Result[]; on: autocannon.Result[] } = { off: [], on: [] };
  for (let round = 0; round < 2; round += 1) {
    results.off.push(await run(leg(off.url, sessions.off)));
    results.on.push(await run(leg(on.url, sessions.on)));
  }
  const mean = (rs: autocannon.Result[]) => rs.reduce((n, r) => n + r.requests.average, 0) / rs.length;
  console.log("| guarded call (POST .../calls, 1250 cfs converted) | req/s (2 runs) | p50 ms | p99 ms | non-2xx |");
  console.log("|---|---|---|---|---|");
  for (const [name, rs] of [
    ["export off (no OTEL_EXPORTER_OTLP_ENDPOINT)", results.off],
    ["export on (http/protobuf, batch processor)", results.on],
  ] as const)
    console.log(
      `| ${name} | ${rs.map((r) => r.requests.average.toFixed(0)).join(" / ")} | ${rs.map((r) => r.latency.p50).join(" / ")} | ` +
        `${rs.map((r) => r.latency.p99).join(" / ")} | ${rs.reduce((n, r) => n + r.non2xx, 0)} |`,
    );
  console.log(
    `\nexport on / off guarded throughput: ${(mean(results.on) / mean(results.off)).toFixed(3)} (target >= 0.90); ` +
      `${exported} bytes of spans reached the collector before shutdown`,
  );
} finally {
  off.child.kill("SIGTERM");
  on.child.kill("SIGTERM");
  collector.close();
  rmSync(dir, { recursive: true, force: true });
}

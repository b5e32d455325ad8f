// bench:mcp — what the Streamable HTTP proxy adds to a tool call: the same calls to the demo server over HTTP, made
// directly and through `agent-ledger mcp --upstream-url ... --listen` (checked, recorded in a file database, result
// labelled), alternated call by call in one run so a neighbour's load lands on both. A second pair calls an
// unannotated tool (`station_name`), which the proxy forwards without guarding: the gap there is the HTTP hop alone,
// so the guard's own share is the difference. Two more legs call station_name through relays that do no MCP work: a
// byte relay over node:http (bench/mcp/byte-relay.ts) and a bare TCP pipe (bench/mcp/tcp-relay.ts), the floors of one
// more HTTP hop and of one more TCP hop on this machine. Prints p50/p90/p99, the p50 gaps, and the CPU time each
// process spent per call (read from /proc, so it holds on a loaded machine where wall-clock latency does not), and the
// kernel's share of the proxy's (socket and file writes). BENCH_CALLS rounds are measured (default 1000) after
// BENCH_WARMUP rounds (default 100) that are not. It also prints the guarded target's floor: the ledger steps a guarded
// call cannot take off its path, timed in this process, added to the forwarded call's cost.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "bench-mcp-"));

// Both servers are real processes, as a user runs them: the demo server over Streamable HTTP, and the CLI proxy.
const children: ChildProcess[] = [];
// What the processes write to stderr: the proxy's stage lines (with bench/mcp/stages.patch applied) come at its exit.
const stderrOf = new Map<ChildProcess, string>();
function launch(args: string[], ready: RegExp): Promise<{ url: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString("utf8");
      stderrOf.set(child, err);
      const m = ready.exec(err);
      if (m) resolve({ url: m[1]!, pid: child.pid! });
    });
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}): ${err}`)));
  });
}
const port = 20_000 + Math.floor(Math.random() * 20_000);
const upstream = await launch(
  ["--import", "tsx", join(ROOT, "demo/server.ts"), "--http", String(port)],
  /serving on (http:\/\/\S+)/,
);
// BENCH_CPU_PROF=DIR writes a CPU profile of the proxy process there (on its clean exit at the end of the run).
const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const front = await launch(
  [
    ...profile,
    join(ROOT, "bin/agent-ledger.js"),
    "mcp",
    "--annotations",
    join(ROOT, "demo/water.toml"),
    "--db",
    join(dir, "ledger.db"),
    "--upstream-url",
    upstream.url,
    "--listen",
    "127.0.0.1:0",
  ],
  /over Streamable HTTP at (http:\/\/\S+)/,
);

// The floor: a byte relay in its own process (bench/mcp/byte-relay.ts), the same HTTP hop with nothing done in it.
const relay = await launch(
  ["--import", "tsx", join(ROOT, "bench/mcp/byte-relay.ts"), upstream.url],
  /relaying on (http:\/\/\S+)/,
);
// Below it: a TCP pipe in its own process (bench/mcp/tcp-relay.ts), the kernel's share of a hop with no HTTP parsed.
const pipe = await launch(
  ["--import", "tsx", join(ROOT, "bench/mcp/tcp-relay.ts"), upstream.url],
  /relaying on (http:\/\/\S+)/,
);

// The stdio demo server behind two HTTP fronts: ours (--listen with the command as upstream) and supergateway 4.0.0
// (stdio to Streamable HTTP, stateful: one child per session, as ours), measured against the same
// server reached over stdio directly.
const DEMO_STDIO = [process.execPath, "--import", "tsx", join(ROOT, "demo/server.ts")];
const stdioFront = await launch(
  [
    ...profile,
    join(ROOT, "bin/agent-ledger.js"),
    "mcp",
    "--annotations",
    join(ROOT, "demo/water.toml"),
    "--db",
    join(dir, "ledger-stdio.db"),
    "--listen",
    "127.0.0.1:0",
    "--",
    ...DEMO_STDIO,
  ],
  /over Streamable HTTP at (http:\/\/\S+)/,
);
const sgPort = 20_000 + Math.floor(Math.random() * 20_000);
const gatewayProcess = spawn(
  process.execPath,
  [
    join(ROOT, "node_modules/supergateway/dist/index.js"),
    "--stdio",
    DEMO_STDIO.join(" "),
    "--outputTransport",
    "streamableHttp",
    "--stateful",
    "--port",
    String(sgPort),
    "--logLevel",
    "none",
  ],
  { cwd: ROOT, stdio: ["ignore", "ignore", "ignore"] },
);
children.push(gatewayProcess);
const supergateway = { url: `http://127.0.0.1:${sgPort}/mcp`, pid: gatewayProcess.pid! };
for (let i = 0; ; i += 1) {
  const up = await fetch(supergateway.url, { method: "GET" }).then(
    () => true,
    () => false,
  );
  if (up) break;
  if (i > 100) throw new Error("supergateway did not start listening in 10 s");
  await new Promise((r) => setTimeout(r, 100));
}

const connect = async (url: string) => {
  const c = new Client({ name: "bench", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
};
const direct = await connect(upstream.url);
const guarded = await connect(front.url);
const relayed = await connect(relay.url);
const piped = await connect(pipe.url);
const stdioDirect = new Client({ name: "bench", version: "1.0.0" });
const stdioLink = new StdioClientTransport({ command: DEMO_STDIO[0]!, args: DEMO_STDIO.slice(1), cwd: ROOT });
await stdioDirect.connect(stdioLink);
const ours = await connect(stdioFront.url);
const gateway = await connect(supergateway.url);

// runoff_depth with a discharge in the declared m^3/s: checked, recorded (call and result), labelled in mm/day.
// station_name is not annotated: the proxy forwards it untouched and records nothing.
type Leg = { client: Client; name: string; args: Record<string, unknown> };
const RUNOFF = { name: "runoff_depth", args: { discharge: 35.39605824, area: 29000 } };
const STATION = { name: "station_name", args: { station: "07374000" } };
const legs = {
  direct: { client: direct, ...RUNOFF },
  guarded: { client: guarded, ...RUNOFF },
  directPlain: { client: direct, ...STATION },
  forwarded: { client: guarded, ...STATION },
  relayed: { client: relayed, ...STATION },
  piped: { client: piped, ...STATION },
  stdioDirect: { client: stdioDirect, ...RUNOFF },
  stdioDirectPlain: { client: stdioDirect, ...STATION },
  oursGuarded: { client: ours, ...RUNOFF },
  oursForwarded: { client: ours, ...STATION },
  sgRunoff: { client: gateway, ...RUNOFF },
  sgStation: { client: gateway, ...STATION },
} satisfies Record<string, Leg>;
type LegName = keyof typeof legs;
const names = Object.keys(legs) as LegName[];

// The guard's floor: what a guarded call must do on its path whatever the transport, timed on the proxy's own ledger
// (LocalLedger, a file database, chain on, its checkpointer running) in this process, alternated with the legs: the
// verdict before the request may be sent (the call's transaction up to the moment it tells the verdict), and the
// result's record before the answer may be (its turn, verdict, rows, chain entries and commit). The call's own commit
// is left out: the upstream works meanwhile.
const floorLedger = await LocalLedger.open(join(dir, "ledger-floor.db"));
floorLedger.startBackground();
await floorLedger.declare("runoff_depth", loadAnnotations(join(ROOT, "demo/water.toml")).get("runoff_depth")!.input);
const floorSession = await floorLedger.openSession({ bench: "floor" });
const floorTimes = { verdict: [] as number[], result: [] as number[] };
const floor = async (): Promise<void> => {
  const t0 = performance.now();
  let told = 0;
  const call = await floorLedger.call(floorSession, "runoff_depth", RUNOFF.args, undefined, undefined, () => {
    told = performance.now();
  });
  if (!call.ok || told === 0) throw new Error(`the floor's call was not accepted early: ${JSON.stringify(call)}`);
  const t1 = performance.now();
  const result = await floorLedger.result(floorSession, call.call_id, 1.054);
  if (!result.ok) throw new Error(`the floor's result was refused: ${JSON.stringify(result.violations)}`);
  floorTimes.verdict.push(told - t0);
  floorTimes.result.push(performance.now() - t1);
};

const time = async (leg: Leg): Promise<number> => {
  const t0 = performance.now();
  const r = await leg.client.callTool({ name: leg.name, arguments: leg.args });
  if (r.isError) throw new Error(`${leg.name} failed: ${JSON.stringify(r.content)}`);
  return performance.now() - t0;
};

/** User + system CPU of a process so far, in ms (/proc/PID/stat fields 14 and 15, in clock ticks of 10 ms). */
const statFields = (pid: number): string[] => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
};
const cpuMs = (pid: number): number => {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
/** System (kernel) CPU of a process so far, in ms: the socket writes and reads, SQLite's file writes. */
const sysMs = (pid: number): number => Number(statFields(pid)[12]) * 10;
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const lat = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<LegName, number[]>;
const cpu = Object.fromEntries(
  names.map((n) => [n, { proxy: 0, proxySys: 0, upstream: 0, client: 0, calls: 0 }]),
) as Record<LegName, { proxy: number; proxySys: number; upstream: number; client: number; calls: number }>;
const BLOCK = 25;
try {
  for (let i = 0; i < WARMUP; i += 1) {
    for (const n of names) await time(legs[n]);
    await floor();
  }
  floorTimes.verdict.length = 0;
  floorTimes.result.length = 0;
  // Latency: the legs alternated call by call, each round in a rotated order so none always follows the same one.
  for (let i = 0; i < CALLS; i += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const n = names[(i + k) % names.length]!;
      lat[n].push(await time(legs[n]));
    }
    await floor();
  }
  // CPU: blocks of calls of one leg, rotated, so each process's CPU time is charged to the leg that caused it.
  for (let b = 0; b < Math.max(4, Math.round(CALLS / BLOCK)); b += 1) {
    for (const n of names) {
      // A relay leg's hop is its relay process; every other leg's is the proxy.
      const hops: Partial<Record<LegName, number>> = {
        relayed: relay.pid,
        piped: pipe.pid,
        oursGuarded: stdioFront.pid,
        oursForwarded: stdioFront.pid,
        sgRunoff: supergateway.pid,
        sgStation: supergateway.pid,
        // Called directly over stdio, the hop is the demo server child itself.
        stdioDirect: stdioLink.pid ?? front.pid,
        stdioDirectPlain: stdioLink.pid ?? front.pid,
      };
      const hop = hops[n] ?? front.pid;
      const p0 = cpuMs(hop);
      const s0 = sysMs(hop);
      const u0 = cpuMs(upstream.pid);
      const c0 = selfCpuMs();
      for (let i = 0; i < BLOCK; i += 1) await time(legs[n]);
      cpu[n].proxy += cpuMs(hop) - p0;
      cpu[n].proxySys += sysMs(hop) - s0;
      cpu[n].upstream += cpuMs(upstream.pid) - u0;
      cpu[n].client += selfCpuMs() - c0;
      cpu[n].calls += BLOCK;
    }
  }
} finally {
  await Promise.allSettled([direct, guarded, relayed, piped, stdioDirect, ours, gateway].map((c) => c.close()));
  await floorLedger.close();
  const exits = children.map((c) => new Promise((done) => (c.exitCode === null ? c.once("exit", done) : done(null))));
  for (const c of children) c.kill("SIGTERM");
  await Promise.race([Promise.all(exits), new Promise((done) => setTimeout(done, 5000))]);
  rmSync(dir, { recursive: true, force: true });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const TITLES: Record<LegName, string> = {
  direct: "direct: SDK client -> HTTP upstream (runoff_depth)",
  guarded: "guarded: SDK client -> --listen proxy -> HTTP upstream (runoff_depth: checked, recorded, labelled)",
  directPlain: "direct: SDK client -> HTTP upstream (station_name)",
  forwarded: "forwarded: SDK client -> --listen proxy -> HTTP upstream (station_name: not annotated, not recorded)",
  relayed: "relayed: SDK client -> bare byte relay -> HTTP upstream (station_name: no MCP parsing, the floor of a hop)",
  piped: "piped: SDK client -> TCP pipe -> HTTP upstream (station_name: no HTTP parsing, the kernel's share of a hop)",
  stdioDirect: "stdio direct: SDK client -> stdio demo server (runoff_depth)",
  stdioDirectPlain: "stdio direct: SDK client -> stdio demo server (station_name)",
  oursGuarded: "ours: SDK client -> --listen proxy -> stdio demo server (runoff_depth: checked, recorded, labelled)",
  oursForwarded: "ours: SDK client -> --listen proxy -> stdio demo server (station_name: forwarded)",
  sgRunoff: "supergateway 4.0.0 --stateful -> stdio demo server (runoff_depth)",
  sgStation: "supergateway 4.0.0 --stateful -> stdio demo server (station_name)",
};
const per = (n: LegName, k: "proxy" | "upstream" | "client") => (cpu[n][k] / cpu[n].calls).toFixed(3);
console.log("| path | calls | p50 ms | p90 ms | p99 ms | CPU ms/call: client | upstream | proxy (relay) |");
console.log("|---|---|---|---|---|---|---|---|");
for (const n of names) {
  const xs = lat[n];
  console.log(
    `| ${TITLES[n]} | ${xs.length} | ${pct(xs, 50).toFixed(3)} | ${pct(xs, 90).toFixed(3)} | ${pct(xs, 99).toFixed(3)} | ` +
      `${per(n, "client")} | ${per(n, "upstream")} | ${per(n, "proxy")} |`,
  );
}
const gap = (a: LegName, b: LegName) => pct(lat[a], 50) - pct(lat[b], 50);
console.log(
  `\nproxy adds ${gap("guarded", "direct").toFixed(3)} ms at p50 (target <= 1 ms); guarded / direct p50: ${(pct(lat.guarded, 50) / pct(lat.direct, 50)).toFixed(2)}`,
);
console.log(
  `the HTTP hop alone (forwarded, not guarded) adds ${gap("forwarded", "directPlain").toFixed(3)} ms at p50; ` +
    `the guard's share is ${(gap("guarded", "direct") - gap("forwarded", "directPlain")).toFixed(3)} ms`,
);
console.log(
  `a bare byte relay adds ${gap("relayed", "directPlain").toFixed(3)} ms at p50 (the floor of any HTTP hop here); ` +
    `the proxy adds ${gap("guarded", "relayed").toFixed(3)} ms over that floor`,
);
console.log(
  `a TCP pipe adds ${gap("piped", "directPlain").toFixed(3)} ms at p50 (the kernel's share of a hop); ` +
    `Node's HTTP on the relay's two sockets adds ${gap("relayed", "piped").toFixed(3)} ms over it`,
);
const cpuPer = (n: LegName) => cpu[n].proxy / cpu[n].calls;
const sysPer = (n: LegName) => cpu[n].proxySys / cpu[n].calls;
console.log(
  `proxy CPU per call: guarded ${cpuPer("guarded").toFixed(3)} ms, forwarded ${cpuPer("forwarded").toFixed(3)} ms ` +
    `(guard and recording: ${(cpuPer("guarded") - cpuPer("forwarded")).toFixed(3)} ms); of which kernel (sys): ` +
    `guarded ${sysPer("guarded").toFixed(3)} ms, forwarded ${sysPer("forwarded").toFixed(3)} ms`,
);
const forwardedRatio = gap("oursForwarded", "stdioDirectPlain") / gap("sgStation", "stdioDirectPlain");
const guardedRatio = gap("oursGuarded", "stdioDirect") / gap("sgRunoff", "stdioDirect");
console.log(
  `\nin front of the stdio demo server, p50 added over calling it on stdio: ours forwarded ` +
    `${gap("oursForwarded", "stdioDirectPlain").toFixed(3)} ms, supergateway ${gap("sgStation", "stdioDirectPlain").toFixed(3)} ms ` +
    `(ours/supergateway ${forwardedRatio.toFixed(2)}, target <= 0.80); ours guarded ` +
    `${gap("oursGuarded", "stdioDirect").toFixed(3)} ms, supergateway ${gap("sgRunoff", "stdioDirect").toFixed(3)} ms ` +
    `(ours/supergateway ${guardedRatio.toFixed(2)}, target <= 1.00)`,
);
// The least a guarded call can add here: ours forwarded, plus what the longer runoff_depth exchange adds to any hop
// (supergateway's runoff_depth less its station_name), plus the two ledger steps no transport can take off the path.
const verdictFloor = pct(floorTimes.verdict, 50);
const resultFloor = pct(floorTimes.result, 50);
const exchange = gap("sgRunoff", "stdioDirect") - gap("sgStation", "stdioDirectPlain");
const least = gap("oursForwarded", "stdioDirectPlain") + exchange + verdictFloor + resultFloor;
console.log(
  `the guarded target's floor in this run: ours forwarded ${gap("oursForwarded", "stdioDirectPlain").toFixed(3)} ms + ` +
    `the longer exchange ${exchange.toFixed(3)} ms (supergateway's runoff_depth less its station_name) + the verdict ` +
    `before sending ${verdictFloor.toFixed(3)} ms + the result's record before answering ${resultFloor.toFixed(3)} ms ` +
    `(p50, the proxy's ledger in this process) = ${least.toFixed(3)} ms, ${(least / gap("sgRunoff", "stdioDirect")).toFixed(2)}x ` +
    `supergateway's guarded figure; ours is ${guardedRatio.toFixed(2)}x`,
);
const stages = [...stderrOf.values()].flatMap((text) => text.split("\n").filter((l) => l.includes(": stage ")));
if (stages.length > 0)
  console.log(`\nthe proxy's stages (bench/mcp/stages.patch), every leg through it:\n${stages.join("\n")}`);

// bench:mcp — what the Streamable HTTP proxy adds to a tool call: the same calls to the demo server over HTTP, made
// directly and through `agent-ledger mcp --upstream-url ... --listen` (checked, recorded in a file database, result
// labelled), alternated call by call in one run so a neighbour's load lands on both. Prints p50/p90/p99 and the p50 gap.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WARMUP = 100;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "bench-mcp-"));

// Both servers are real processes, as a user runs them: the demo server over Streamable HTTP, and the CLI proxy.
const children: ChildProcess[] = [];
function launch(args: string[], ready: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString("utf8");
      const m = ready.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}): ${err}`)));
  });
}
const port = 20_000 + Math.floor(Math.random() * 20_000);
const upstreamUrl = await launch(
  ["--import", "tsx", join(ROOT, "demo/server.ts"), "--http", String(port)],
  /serving on (http:\/\/\S+)/,
);
const frontUrl = await launch(
  [
    join(ROOT, "bin/agent-ledger.js"),
    "mcp",
    "--annotations",
    join(ROOT, "demo/water.toml"),
    "--db",
    join(dir, "ledger.db"),
    "--upstream-url",
    upstreamUrl,
    "--listen",
    "127.0.0.1:0",
  ],
  /over Streamable HTTP at (http:\/\/\S+)/,
);

const connect = async (url: string) => {
  const c = new Client({ name: "bench", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
};
const direct = await connect(upstreamUrl);
const guarded = await connect(frontUrl);

// runoff_depth with a discharge in the declared m^3/s: checked, recorded (call and result), labelled in mm/day.
const args = { discharge: 35.39605824, area: 29000 };
const time = async (c: Client): Promise<number> => {
  const t0 = performance.now();
  const r = await c.callTool({ name: "runoff_depth", arguments: args });
  if (r.isError) throw new Error(`runoff_depth failed: ${JSON.stringify(r.content)}`);
  return performance.now() - t0;
};

const d: number[] = [];
const g: number[] = [];
try {
  for (let i = 0; i < WARMUP; i += 1) {
    await time(direct);
    await time(guarded);
  }
  for (let i = 0; i < CALLS; i += 1) {
    // Alternate which goes first so neither always runs on a warm socket.
    if (i % 2 === 0) {
      d.push(await time(direct));
      g.push(await time(guarded));
    } else {
      g.push(await time(guarded));
      d.push(await time(direct));
    }
  }
} finally {
  await Promise.allSettled([direct.close(), guarded.close()]);
  for (const c of children) c.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const row = (name: string, xs: number[]) =>
  `| ${name} | ${xs.length} | ${pct(xs, 50).toFixed(3)} | ${pct(xs, 90).toFixed(3)} | ${pct(xs, 99).toFixed(3)} |`;
console.log("| path | calls | p50 ms | p90 ms | p99 ms |");
console.log("|---|---|---|---|---|");
console.log(row("direct: SDK client -> HTTP upstream", d));
console.log(row("guarded: SDK client -> --listen proxy -> HTTP upstream (checked, recorded, labelled)", g));
const gap = pct(g, 50) - pct(d, 50);
console.log(
  `\nproxy adds ${gap.toFixed(3)} ms at p50 (target <= 1 ms); guarded / direct p50: ${(pct(g, 50) / pct(d, 50)).toFixed(2)}`,
);

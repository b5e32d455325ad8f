// Startup benchmark: time to a healthy /healthz and to `--version`, each beside a bare `node -e ""`
// measured in the same run. Usage: npm run bench:startup [-- --runs 7]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "agent-ledger.js");
const MAIN = join(ROOT, "src", "cli", "main.ts");
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
const TARGET_EXTRA_S = 0.5;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Wall seconds of one command run to completion. */
function timeCommand(cmd: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: "ignore", env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "" } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}`);
  return (performance.now() - t0) / 1000;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Wall seconds from spawning `serve` to the first 200 from /healthz. */
async function timeHealthy(dbFile: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "serve"], {
    cwd: ROOT,
    stdio: "ignore",
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      AGENT_LEDGER_DB: dbFile,
      AGENT_LEDGER_ADMIN_TOKEN: "bench-admin-token-0123456789",
    },
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode} before /healthz answered`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (res.status === 200) return (performance.now() - t0) / 1000;
      } catch {
        // not listening yet
      }
      if (performance.now() - t0 > 30_000) throw new Error("/healthz did not answer within 30 s");
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), "ledger-bench-startup-"));
const samples: Record<string, number[]> = {
  bare: [],
  version: [],
  npxOwn: [],
  npxVersion: [],
  healthyFresh: [],
  healthyExisting: [],
};
try {
  const existing = join(dir, "existing.db");
  await timeHealthy(existing); // create, migrate and seed it once
  for (let i = 0; i < RUNS; i++) {
    // Interleaved so drift in machine load hits every command alike.
    samples.bare!.push(timeCommand(process.execPath, ["-e", ""]));
    samples.version!.push(timeCommand(process.execPath, [BIN, "--version"]));
    samples.npxOwn!.push(timeCommand("npx", ["--version"]));
    samples.npxVersion!.push(timeCommand("npx", ["--no-install", "agent-ledger", "--version"]));
    samples.healthyFresh!.push(await timeHealthy(join(dir, `fresh-${i}.db`)));
    samples.healthyExisting!.push(await timeHealthy(existing));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const bare = median(samples.bare!);
const rows: [string, string, number][] = [
  ["bare", 'node -e ""', bare],
  ["version", "node bin/agent-ledger.js --version", median(samples.version!)],
  ["npxOwn", "npx --version (npm's own start-up, for scale)", median(samples.npxOwn!)],
  ["npxVersion", "npx agent-ledger --version", median(samples.npxVersion!)],
  ["healthyFresh", "serve → 200 /healthz (new DB: migrate + seed)", median(samples.healthyFresh!)],
  ["healthyExisting", "serve → 200 /healthz (existing DB)", median(samples.healthyExisting!)],
];
console.log(`startup, median of ${RUNS} runs (node ${process.version}, ${new Date().toISOString()})`);
console.log("| what | median s | × bare node | + over bare node s |");
console.log("|---|---|---|---|");
for (const [, label, s] of rows)
  console.log(`| ${label} | ${s.toFixed(3)} | ${(s / bare).toFixed(1)} | ${(s - bare).toFixed(3)} |`);
const extra = median(samples.version!) - bare;
const ok = extra < TARGET_EXTRA_S;
console.log(
  `--version costs ${extra.toFixed(3)} s more than bare node: ${ok ? "PASS" : "FAIL"} (target < ${TARGET_EXTRA_S} s)`,
);
process.exitCode = ok ? 0 : 1;

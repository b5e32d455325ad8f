// bench:abuse — one team may not stall the service for the others. Eight clients of normal traffic (a guarded call
// and a read of the session, in turn) run for ABUSE_SECONDS (default 20) alone, then again while one more client
// sends the largest evaluation and the largest call the limits allow, in a loop. Prints the normal clients' p99 in
// both phases and their ratio (target <= 2x), and the server's largest event-loop delay under the abuser (target
// <= 100 ms). Exits 1 if any normal request failed.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { factsOnOneKey } from "../../test/helpers/largest.js";

const SECONDS = Number(process.env.ABUSE_SECONDS ?? 20);
const CLIENTS = 8;
const WARMUP_SECONDS = 3;
const TOKEN = "bench-abuse-admin-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "bench-abuse-"));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function start(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/abuse/server.ts"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/listening on/.test(out)) resolve({ child, output: () => out });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}:\n${out}`)));
  });
}

const port = await freePort();
const server = await start({
  PORT: String(port),
  AGENT_LEDGER_DB: join(dir, "ledger.db"),
  AGENT_LEDGER_ADMIN_TOKEN: TOKEN,
});
const url = `http://127.0.0.1:${port}`;
const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const post = async (path: string, body: unknown) => {
  const r = await fetch(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

/** The server's largest event-loop delay since the last reading. */
async function loopDelay(): Promise<number> {
  const before = server.output().length;
  server.child.kill("SIGUSR2");
  for (let i = 0; i < 100; i++) {
    const m = /event-loop max ([\d.]+) ms/.exec(server.output().slice(before));
    if (m) return Number(m[1]);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the server did not report its event-loop delay");
}

const normalSession = (await post("/v1/sessions", { context: "normal traffic" })).body.id as string;
const abuseSession = (await post("/v1/sessions", { context: "abuse" })).body.id as string;

const largestEvaluation = JSON.stringify(factsOnOneKey(DEFAULT_LIMITS.claims, "abuse"));
const largestCall = JSON.stringify({
  tool: "undeclared",
  args: Object.fromEntries(Array.from({ length: DEFAULT_LIMITS.crossings }, (_, i) => [`arg${i}`, `value ${i}`])),
});

function normal(seconds = SECONDS): Promise<autocannon.Result> {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url,
        connections: CLIENTS,
        duration: seconds,
        headers,
        requests: [
          { method: "POST", path: `/v1/sessions/${normalSession}/calls`, body: '{"tool":"read","args":{"site":"1"}}' },
          { method: "GET", path: `/v1/sessions/${normalSession}` },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );
}

let abusing = false;
const abuse = { evaluations: 0, calls: 0, refused: 0 };
async function abuser(): Promise<void> {
  while (abusing) {
    const e = await fetch(`${url}/v1/evaluations`, { method: "POST", headers, body: largestEvaluation });
    await e.arrayBuffer();
    if (e.status === 200) abuse.evaluations++;
    else abuse.refused++;
    const c = await fetch(`${url}/v1/sessions/${abuseSession}/calls`, { method: "POST", headers, body: largestCall });
    await c.arrayBuffer();
    if (c.status === 200) abuse.calls++;
    else abuse.refused++;
  }
}

let exitCode = 0;
try {
  // A warm-up first, so the phases compare the service at its steady state, not its first requests' compiling.
  await normal(WARMUP_SECONDS);
  await loopDelay();
  const alone = await normal();
  const aloneDelay = await loopDelay();
  abusing = true;
  const running = abuser();
  const beside = await normal();
  abusing = false;
  await running;
  const besideDelay = await loopDelay();
  const failed = alone.non2xx + alone.errors + beside.non2xx + beside.errors;
  const ratio = beside.latency.p99 / Math.max(alone.latency.p99, 1);
  console.log(
    `bench:abuse, ${CLIENTS} normal clients for ${SECONDS} s per phase, limits ${JSON.stringify(DEFAULT_LIMITS)}`,
  );
  console.log("| phase | normal requests | req/s | p50 ms | p99 ms | max event-loop delay ms |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, r, d] of [
    ["alone", alone, aloneDelay],
    ["beside the abuser", beside, besideDelay],
  ] as const)
    console.log(
      `| ${name} | ${r.requests.total} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${d} |`,
    );
  console.log(
    `abuser: ${abuse.evaluations} largest evaluations and ${abuse.calls} largest calls answered, ${abuse.refused} refused`,
  );
  console.log(
    `p99 ratio ${ratio.toFixed(2)}x (target <= 2x); max event-loop delay ${besideDelay} ms (target <= 100 ms)`,
  );
  if (failed > 0) {
    console.error(`${failed} normal request(s) failed`);
    exitCode = 1;
  }
} finally {
  server.child.kill("SIGTERM");
  await new Promise((r) => server.child.once("exit", r));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

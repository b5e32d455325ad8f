// bench:abuse:cpu — what one largest request costs in-process: N largest evaluations and N largest calls through the
// real app (app.request, a SQLite file), timed one by one, with the longest stretch the loop went without turning
// (a 1 ms ticker's largest gap) while each kind ran. ABUSE_CPU_PROFILE=<file> writes a V8 CPU profile of the timed part
// alone (start-up left out) to see where the time goes.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { createTestApp } from "../../test/helpers/db.js";
import { factsOnOneKey } from "../../test/helpers/largest.js";

const N = Number(process.env.ABUSE_CPU_N ?? 30);
const dir = mkdtempSync(join(tmpdir(), "bench-abuse-cpu-"));
const t = createTestApp({ file: join(dir, "ledger.db") });
const session = (await t.call("POST", "/v1/sessions", { body: { context: "abuse" } })).body as { id: string };
const evaluation = JSON.stringify(factsOnOneKey(DEFAULT_LIMITS.claims, "abuse"));
const call = JSON.stringify({
  tool: "undeclared",
  args: Object.fromEntries(Array.from({ length: DEFAULT_LIMITS.crossings }, (_, i) => [`arg${i}`, `value ${i}`])),
});
const send = async (path: string, body: string) => {
  const r = await t.app.request(path, { method: "POST", headers: t.authHeaders(), body });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Medians over `n` sends of: wall ms, CPU ms of this process (all threads), and the longest stretch the loop went
 * without turning during the request (a 1 ms ticker's largest gap). Medians, so a shared machine's stalls count less.
 */
async function measure(path: string, body: string, n: number) {
  await send(path, body); // warm
  const wall: number[] = [];
  const cpu: number[] = [];
  const stall: number[] = [];
  for (let i = 0; i < n; i++) {
    let last = performance.now();
    let gap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 1);
    const c0 = process.cpuUsage();
    const s = performance.now();
    await send(path, body);
    const end = performance.now();
    const c = process.cpuUsage(c0);
    clearInterval(ticker);
    wall.push(end - s);
    cpu.push((c.user + c.system) / 1000);
    stall.push(Math.max(gap, end - last));
    await new Promise((r) => setTimeout(r, 2));
  }
  return { wall: median(wall), cpu: median(cpu), stall: median(stall), worst: Math.max(...stall) };
}

const profileFile = process.env.ABUSE_CPU_PROFILE;
const inspector = new Session();
if (profileFile) {
  inspector.connect();
  await inspector.post("Profiler.enable");
  await inspector.post("Profiler.start");
}
const e = await measure("/v1/evaluations", evaluation, N);
const c = await measure(`/v1/sessions/${session.id}/calls`, call, N);
if (profileFile) writeFileSync(profileFile, JSON.stringify((await inspector.post("Profiler.stop")).profile));
const f = (x: number) => x.toFixed(1);
console.log(`${N} of each, in-process; medians of wall ms, CPU ms and longest loop stall ms per request (worst stall)`);
for (const [name, r] of [
  ["largest evaluation", e],
  ["largest call", c],
] as const)
  console.log(`${name}: wall ${f(r.wall)}, CPU ${f(r.cpu)}, stall ${f(r.stall)} (worst ${f(r.worst)})`);
t.db.sqlite.close();
rmSync(dir, { recursive: true, force: true });

// bench:ui — every dashboard page through app.request() (in process, cookie session, full HTML rendered) on a ledger
// of 100,000 sessions and 1,000,000 crossings: p50 and p95 per page against the 100 ms budget of issue 13.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/api/app.js";
import { fixedClock } from "../../src/clock.js";
import { defaultConfig } from "../../src/config.js";
import { benchLedger, CROSSINGS_PER_SESSION, NOW, SESSIONS } from "./ledger.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";

const FILE = process.env.BENCH_UI_DB ?? join(tmpdir(), `agent-ledger-bench-ui-${SESSIONS}.db`);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const WARMUP = 5;
const BUDGET_MS = 100;

const log = (s: string) => process.stdout.write(`${s}\n`);
const l = benchLedger(FILE, log);
const count = (table: string) =>
  (l.store.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n.toLocaleString("en-US");
log(
  `ledger ${FILE}: ${count("sessions")} sessions, ${count("crossings")} crossings, ${count("calls")} calls, ` +
    `${count("audits")} audits, ${count("runs")} evaluations, ${count("claims")} claims ` +
    `(${CROSSINGS_PER_SESSION} crossings a session over the 365 days before ${NOW})`,
);

const app = createApp({
  store: sqliteStore(l.store, { clock: fixedClock(NOW) }),
  config: defaultConfig(),
  clock: fixedClock(NOW),
});
const login = await app.request("/ui/login", {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
  body: new URLSearchParams({ token: l.token }).toString(),
});
const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
if (login.status !== 303 || cookie === "") throw new Error(`login answered ${login.status}`);

const PAGES: [string, string][] = [
  ["overview, 30 days", "/ui"],
  ["overview, 7 days", "/ui?days=7"],
  ["overview, 90 days", "/ui?days=90"],
  ["sessions", "/ui/sessions"],
  ["sessions by label", "/ui/sessions?label=run:nightly"],
  ["sessions by two labels", "/ui/sessions?label=run:nightly&label=model:m3"],
  ["sessions by tool", "/ui/sessions?tool=rating_curve"],
  ["sessions by code", "/ui/sessions?code=datum_mismatch"],
  ["sessions by time window", "/ui/sessions?since=2026-06-01&until=2026-06-02"],
  ["sessions, all filters", "/ui/sessions?label=run:adhoc&tool=read_stage&code=missing_unit&since=2026-03-01"],
  ["one session", `/ui/sessions/${l.sessionId}`],
  ["crossings", "/ui/crossings"],
  ["crossings by code", "/ui/crossings?code=timezone_error"],
  ["crossings by tool", "/ui/crossings?tool=unit_probe"],
  ["evaluations", "/ui/evaluations"],
  ["one evaluation", `/ui/evaluations/${l.evaluationId}`],
  ["claims", "/ui/claims"],
  ["one claim (strip plot)", `/ui/claims/${l.claimId}`],
  ["revisions", "/ui/revisions"],
];

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const rows: string[] = [];
let worst = 0;
for (const [name, path] of PAGES) {
  const times: number[] = [];
  const cpu: number[] = [];
  let bytes = 0;
  let first = 0;
  for (let i = 0; i < WARMUP + RUNS; i += 1) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const res = await app.request(path, { headers: { cookie } });
    const html = await res.text();
    const ms = performance.now() - t0;
    const used = process.cpuUsage(c0);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${html.slice(0, 200)}`);
    if (i === 0) first = ms;
    if (i >= WARMUP) {
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
    }
    bytes = html.length;
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const p95 = pct(times, 0.95);
  worst = Math.max(worst, p95);
  rows.push(
    `| ${name} | \`${path.length > 60 ? `${path.slice(0, 57)}...` : path}\` | ${first.toFixed(1)} | ${pct(times, 0.5).toFixed(1)} | ` +
      `${p95.toFixed(1)} | ${pct(cpu, 0.5).toFixed(1)} | ${pct(cpu, 0.95).toFixed(1)} | ` +
      `${(p95 / BUDGET_MS).toFixed(2)} | ${(bytes / 1024).toFixed(0)} KiB |`,
  );
}
log(`\n${RUNS} requests a page after ${WARMUP} warm-up requests; wall-clock ms in process (app.request, HTML read),`);
log(
  `and this process's CPU ms per request (process.cpuUsage: the cost without the wait for a core on a loaded machine)\n`,
);
log("| page | path | first request | p50 | p95 | CPU p50 | CPU p95 | p95 / 100 ms | HTML |");
log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) log(r);
log(`\nslowest p95: ${worst.toFixed(1)} ms (${(worst / BUDGET_MS).toFixed(2)} of the budget)`);
l.store.close();

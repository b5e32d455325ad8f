// bench:crash: a serving process is SIGKILLed CRASH_KILLS times (default 100) under 16 writers and restarted each time,
// on SQLite and on PostgreSQL (CRASH_ENGINES=sqlite,pg by default); then every acknowledged write must be present and
// every call whole: integrity_check on SQLite, row-level invariants on both (bench/crash/check.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { seeded, send } from "../../test/reliability/harness.js";
import { benchPg } from "../pg-server.js";
import { type Acks, type Stored, storedPg, storedSqlite } from "./check.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** `agent-ledger serve` on `db` at a free port; waits up to 5 minutes for it (the shared machine can be slow). */
function serve(
  db: string,
  env: Record<string, string>,
): Promise<{ url: string; stop(signal: NodeJS.Signals): Promise<void> }> {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", AGENT_LEDGER_DB: db, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let exited = false;
  const exit = new Promise<void>((done) =>
    proc.once("exit", () => {
      exited = true;
      done();
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 300 s:\n${out}`)), 300_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[1]!,
        stop: (signal) => {
          if (!exited) proc.kill(signal);
          return exit;
        },
      });
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
  });
}

const KILLS = Number(process.env.CRASH_KILLS ?? 100);
const WRITERS = 16;
const TOKEN = "bench-crash-admin-token-0123456789";
const TOOLS: Record<string, { decl: unknown; args: Record<string, unknown> }> = {
  crash_two: {
    decl: { params: { q: { unit: "m**3/s" }, a: { unit: "km**2" } }, returns: { unit: "mm/day" } },
    args: { q: "1250 cfs", a: 29000 },
  },
  crash_five: {
    decl: {
      params: { q: { unit: "m**3/s" }, a: { unit: "km**2" }, h: { unit: "m" }, site: {}, note: {} },
      returns: { unit: "ft" },
    },
    args: { q: { value: 35.4, unit: "m^3/s" }, a: "29000 km**2", h: "12.4 ft", site: "07374000", note: "crash" },
  },
};
const NAMES = Object.keys(TOOLS);

/** One client: sessions of up to 10 calls, most followed by their result, until the connection fails. */
async function writer(url: string, acks: Acks, rand: () => number): Promise<void> {
  try {
    for (;;) {
      const s = await send(url, "POST", "/v1/sessions", { token: TOKEN, body: { context: "crash soak" } });
      if (s.status !== 201) throw new Error(`session answered ${s.status}: ${s.text}`);
      acks.requests += 1;
      const sid = (s.body as { id: string }).id;
      acks.sessions.add(sid);
      for (let i = 0; i < 10; i += 1) {
        const tool = NAMES[Math.floor(rand() * NAMES.length)]!;
        const c = await send(url, "POST", `/v1/sessions/${sid}/calls`, {
          token: TOKEN,
          body: { tool, args: TOOLS[tool]!.args },
        });
        if (c.status !== 200) throw new Error(`call answered ${c.status}: ${c.text}`);
        acks.requests += 1;
        const callId = (c.body as { call_id: string }).call_id;
        acks.calls.set(callId, tool);
        if (rand() < 0.7) {
          const r = await send(url, "POST", `/v1/sessions/${sid}/calls/${callId}/result`, {
            token: TOKEN,
            body: { result: 12.5 },
          });
          if (r.status !== 200) throw new Error(`result answered ${r.status}: ${r.text}`);
          acks.requests += 1;
          acks.results.add(callId);
        }
      }
    }
  } catch (e) {
    if (e instanceof Error && /answered/.test(e.message)) throw e; // an HTTP failure is real; a reset is the kill
  }
}

/** Kills a server on `db` KILLS times under WRITERS clients, restarting it each time; answers what was acknowledged. */
async function soak(db: string, engine: string): Promise<{ acks: Acks; healthy: boolean; seconds: number }> {
  const rand = seeded(100);
  const acks: Acks = { sessions: new Set(), calls: new Map(), results: new Set(), requests: 0 };
  const t0 = Date.now();
  for (let kill = 0; kill < KILLS; kill += 1) {
    const server = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    if (kill === 0)
      for (const [name, t] of Object.entries(TOOLS))
        if ((await send(server.url, "PUT", `/v1/tools/${name}`, { token: TOKEN, body: t.decl })).status !== 201)
          throw new Error(`could not declare ${name}`);
    const before = acks.calls.size;
    const writers = Array.from({ length: WRITERS }, () => writer(server.url, acks, rand));
    const deadline = Date.now() + 20_000;
    while (acks.calls.size < before + 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 150)));
    await server.stop("SIGKILL");
    await Promise.all(writers);
    if ((kill + 1) % 10 === 0) console.log(`${engine}: ${kill + 1} kills, ${acks.calls.size} calls acknowledged`);
  }
  const last = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
  const healthy = (await send(last.url, "GET", "/healthz")).status === 200;
  await last.stop("SIGTERM");
  return { acks, healthy, seconds: (Date.now() - t0) / 1000 };
}

/** Prints one engine's table and JSON line; answers whether every check held. */
function report(engine: string, run: Awaited<ReturnType<typeof soak>>, stored: Stored): boolean {
  const { acks } = run;
  const byId = new Map(stored.calls.map((c) => [c.id, c]));
  const missing = {
    sessions: [...acks.sessions].filter((id) => !stored.sessions.has(id)).length,
    calls: [...acks.calls.keys()].filter((id) => !byId.has(id)).length,
    results: [...acks.results].filter((id) => byId.get(id)?.result_raw == null).length,
  };
  const broken = stored.calls.filter((c) => {
    const x = stored.crossings.get(c.id) ?? { param: 0, ret: 0 };
    return x.param !== Object.keys(TOOLS[c.tool]!.args).length || x.ret !== (c.result_raw === null ? 0 : 1);
  }).length;
  console.log(`\n${engine}\n\n| figure | value |\n|---|---|`);
  console.log(
    `| SIGKILLs under ${WRITERS} writers, each followed by a restart | ${KILLS} (${run.seconds.toFixed(0)} s) |`,
  );
  console.log(
    `| acknowledged requests | ${acks.requests} (${acks.sessions.size} sessions, ${acks.calls.size} calls, ${acks.results.size} results) |`,
  );
  console.log(`| acknowledged writes missing | ${missing.sessions + missing.calls + missing.results} |`);
  console.log(
    `| calls in the database / not whole | ${stored.calls.length} / ${broken} (${stored.calls.length - acks.calls.size} committed but unanswered at a kill) |`,
  );
  console.log(`| sessions whose counter or sequence is off | ${stored.gaps} |`);
  console.log(`| crossings without their call | ${stored.orphans} |`);
  console.log(`| ${stored.integrityName} / restart healthy | ${stored.integrity} / ${run.healthy} |`);
  const ok =
    missing.sessions + missing.calls + missing.results + broken + stored.gaps + stored.orphans === 0 &&
    stored.integrity === "ok" &&
    run.healthy;
  console.log(
    JSON.stringify({
      bench: "crash",
      engine,
      kills: KILLS,
      writers: WRITERS,
      acknowledged: acks.requests,
      calls: stored.calls.length,
      missing,
      broken,
      gaps: stored.gaps,
      orphans: stored.orphans,
      integrity: stored.integrity,
      ok,
    }),
  );
  return ok;
}

const ENGINES = (process.env.CRASH_ENGINES ?? "sqlite,pg").split(",").map((e) => e.trim());
let allOk = true;
for (const engine of ENGINES) {
  if (engine === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "bench-crash-"));
    const db = join(dir, "ledger.db");
    const run = await soak(db, engine);
    allOk = report(engine, run, storedSqlite(db)) && allOk;
    rmSync(dir, { recursive: true, force: true });
  } else if (engine === "pg") {
    const server = await benchPg();
    console.log(`pg: ${server.describe}; the killed process is agent-ledger serve, PostgreSQL keeps running`);
    try {
      const url = await server.newDatabase("bench_crash");
      const run = await soak(url, engine);
      allOk = report(engine, run, await storedPg(url)) && allOk;
    } finally {
      await server.stop();
    }
  } else throw new Error(`CRASH_ENGINES names '${engine}'; use sqlite, pg or both (sqlite,pg)`);
}
if (!allOk) process.exitCode = 1;

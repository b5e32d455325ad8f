// bench:load — 50 concurrent clients on loopback against the real server on a file database, for a bounded time:
// a mix of session creation, guarded calls with results, audits and evaluations, beside the one-row-insert
// baseline (bench/http/baseline-server.ts) measured in the same run. Afterwards every acknowledged write is looked
// up in the database. Exits 1 if any request failed or any acknowledged row is missing. The PostgreSQL leg, in the
// same run, repeats the guarded-calls phase on one `serve` over PostgreSQL and then on two sharing the database
// (half the connections each), and looks every acknowledged write up there too.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import pg from "pg";
import { benchPg, isBenchPostgres, postmasterOf } from "../pg-server.js";
import { measuredRow, type RowCpu } from "../proc-cpu.js";

const SECONDS = Number(process.env.LOAD_SECONDS ?? 10);
const CONNECTIONS = 50;
const TOKEN = "bench-load-admin-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "bench-load-"));
const dbFile = join(dir, "ledger.db");

type Acks = {
  sessions: Set<string>;
  calls: Set<string>;
  results: Set<string>;
  audits: Set<string>;
  evaluations: Set<string>;
};
const acks: Acks = {
  sessions: new Set(),
  calls: new Set(),
  results: new Set(),
  audits: new Set(),
  evaluations: new Set(),
};
const failures: string[] = [];
const byKind = new Map<string, number>();

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve({ child, output: () => out });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${args[0]} exited with ${code}:\n${out}`)));
  });
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

const TABLE_HEAD =
  "| requests | req/s | p50 ms | p99 ms | non-2xx | errors | timeouts | CPU us/req: server | PostgreSQL | autocannon |";
const TABLE_RULE = "|---|---|---|---|---|---|---|---|---|---|---|";
/** One phase's row: autocannon's figures and the CPU each side spent per request. */
function tableRow([name, r, cpu]: [string, autocannon.Result, RowCpu]): string {
  const figures = [r.requests.total, r.requests.average.toFixed(0), r.latency.p50, r.latency.p99, r.non2xx, r.errors];
  return `| ${name} | ${[...figures, r.timeouts, cpu.server, cpu.postgres, cpu.autocannon].join(" | ")} |`;
}

const headers = { "content-type": "application/json", authorization: `Bearer ${TOKEN}` };
type Ctx = { session?: string; call?: string };
type Setup = NonNullable<autocannon.Request["setupRequest"]>;
/** autocannon restarts a connection's sequence when setupRequest answers undefined (a step before it failed); its types leave that out. */
const setup = (fn: (req: autocannon.Request, ctx: Ctx) => autocannon.Request | undefined): Setup =>
  fn as unknown as Setup;

/** Counts an answer of one kind; a non-2xx answer is a failure, with its body kept for the report. */
function seen(kind: string, status: number, body: string): unknown {
  byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  if (status < 200 || status > 299) {
    if (failures.length < 20) failures.push(`${kind}: ${status} ${body.slice(0, 200)}`);
    return undefined;
  }
  return JSON.parse(body) as unknown;
}

const session: autocannon.Request = {
  method: "POST",
  path: "/v1/sessions",
  headers,
  body: JSON.stringify({ context: "What is the runoff depth at site 07374000?" }),
  onResponse: (status, body, ctx: Ctx) => {
    const s = seen("session", status, body) as { id: string } | undefined;
    if (s) acks.sessions.add((ctx.session = s.id));
  },
};

/** A guarded call of `tool` in the connection's session, then its result. */
function callWithResult(tool: string, args: unknown, result: unknown): autocannon.Request[] {
  return [
    {
      method: "POST",
      headers,
      setupRequest: setup((req, ctx) =>
        ctx.session
          ? { ...req, path: `/v1/sessions/${ctx.session}/calls`, body: JSON.stringify({ tool, args }) }
          : undefined,
      ),
      onResponse: (status, body, ctx: Ctx) => {
        const c = seen("call", status, body) as { call_id: string } | undefined;
        if (c) acks.calls.add((ctx.call = c.call_id));
      },
    },
    {
      method: "POST",
      headers,
      setupRequest: setup((req, ctx) =>
        ctx.call
          ? { ...req, path: `/v1/sessions/${ctx.session}/calls/${ctx.call}/result`, body: JSON.stringify({ result }) }
          : undefined,
      ),
      onResponse: (status, body, ctx: Ctx) => {
        if (seen("result", status, body) && ctx.call) acks.results.add(ctx.call);
      },
    },
  ];
}

const readThenCompute = [
  ...callWithResult("read_discharge", { site: "07374000" }, 1250),
  ...callWithResult("runoff_depth", { discharge: { value: 1250, unit: "cfs" }, area: "29000 km**2" }, 12.5),
];

const audit: autocannon.Request = {
  method: "POST",
  headers,
  setupRequest: setup((req, ctx) =>
    ctx.session
      ? {
          ...req,
          path: `/v1/sessions/${ctx.session}/audit`,
          body: JSON.stringify({ answer: "Runoff depth is 12.5 mm/day from 1250 cfs over 29000 km2." }),
        }
      : undefined,
  ),
  onResponse: (status, body) => {
    const a = seen("audit", status, body) as { id: string } | undefined;
    if (a) acks.audits.add(a.id);
  },
};

let task = 0;
const evaluation: autocannon.Request = {
  method: "POST",
  path: "/v1/evaluations",
  headers,
  // Ten tasks, so stability compares each evaluation with a growing history of its task, as it would in use.
  setupRequest: (req) => ({
    ...req,
    body: JSON.stringify({
      task: { id: `load-${(task += 1) % 10}`, objective: "runoff depth at 07374000" },
      result: {
        output: "Runoff depth is 12.5 mm/day.",
        claims: [
          {
            id: "J1",
            kind: "judgment",
            text: "Runoff depth is 12.5 mm/day",
            key: "runoff_depth",
            value: 12.5,
            rationale: "1250 cfs over 29000 km2",
          },
        ],
      },
    }),
  }),
  onResponse: (status, body) => {
    const e = seen("evaluation", status, body) as { id: string } | undefined;
    if (e) acks.evaluations.add(e.id);
  },
};

const baselinePort = await freePort();
const ourPort = await freePort();
const ours = await start(
  ["src/cli/main.ts", "serve"],
  { PORT: String(ourPort), AGENT_LEDGER_DB: dbFile, AGENT_LEDGER_ADMIN_TOKEN: TOKEN },
  /listening on/,
);
const base = await start(
  ["bench/http/baseline-server.ts"],
  { PORT: String(baselinePort), BASELINE_DB: join(dir, "baseline.db") },
  /baseline ready/,
);
const url = `http://127.0.0.1:${ourPort}`;
let exitCode = 0;
try {
  const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const hasAudit = Boolean(doc.paths["/v1/sessions/{id}/audit"]?.post);
  const hasEvaluations = Boolean(doc.paths["/v1/evaluations"]?.post);
  for (const [name, decl] of Object.entries({
    read_discharge: { params: { site: {} }, returns: { unit: "cfs" } },
    runoff_depth: { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
  })) {
    const r = await fetch(`${url}/v1/tools/${name}`, { method: "PUT", headers, body: JSON.stringify(decl) });
    if (!r.ok) throw new Error(`PUT /v1/tools/${name} answered ${r.status}`);
  }

  const mix = [
    session,
    ...readThenCompute,
    ...readThenCompute,
    ...(hasAudit ? [audit] : []),
    ...(hasEvaluations ? [evaluation] : []),
  ];
  const phases: [string, autocannon.Options][] = [
    [
      "baseline: parse JSON + insert one row",
      {
        url: `http://127.0.0.1:${baselinePort}/readings`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ site: "07374000", value: 1250 }),
      },
    ],
    [
      `mix: 1 session, 4 guarded calls + 4 results${hasAudit ? ", 1 audit" : ""}${hasEvaluations ? ", 1 evaluation" : ""} per cycle`,
      { url, requests: mix },
    ],
    [
      "guarded calls with results only (a new session every 50 calls)",
      { url, requests: [session, ...Array.from({ length: 25 }, () => readThenCompute).flat()] },
    ],
  ];
  // Each heavier write alone, so the mix's cost can be read per kind.
  if (hasAudit)
    phases.push([
      "audits only (a new session with 2 calls every 20 audits)",
      { url, requests: [session, ...readThenCompute, ...Array.from({ length: 20 }, () => audit)] },
    ]);
  if (hasEvaluations) phases.push(["evaluations only", { url, requests: [evaluation] }]);
  const results: [string, autocannon.Result, RowCpu][] = [];
  for (const [name, opts] of phases) {
    const server = opts.url === url ? ours.child : base.child;
    const load = () => run({ ...opts, connections: CONNECTIONS, duration: SECONDS });
    results.push([name, ...(await measuredRow([server.pid], () => false, load))]);
  }

  console.log(`${CONNECTIONS} connections, ${SECONDS} s per phase, node ${process.version}\n`);
  console.log(`| phase ${TABLE_HEAD}`);
  console.log(TABLE_RULE);
  for (const row of results) console.log(tableRow(row));
  const baseRate = results[0]![1].requests.average;
  for (const [name, r] of results.slice(1))
    console.log(`\n${name}: ${(r.requests.average / baseRate).toFixed(2)} × baseline throughput`);
  console.log(`\nanswers by kind: ${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ")}`);

  // Stop the server cleanly (its WAL is checkpointed), then count what was acknowledged.
  ours.child.kill("SIGTERM");
  await new Promise((r) => ours.child.once("exit", r));
  const db = new Database(dbFile, { readonly: true });
  const ids = (sql: string) => new Set(db.prepare(sql).pluck().all() as string[]);
  const stored: Record<keyof Acks, Set<string>> = {
    sessions: ids("SELECT id FROM sessions"),
    calls: ids("SELECT id FROM calls"),
    results: ids("SELECT id FROM calls WHERE result_raw IS NOT NULL"),
    audits: ids("SELECT id FROM audits"),
    evaluations: hasEvaluations ? ids("SELECT id FROM runs") : new Set(),
  };
  const integrity = db.pragma("integrity_check", { simple: true });
  db.close();
  const missing = (Object.keys(acks) as (keyof Acks)[]).map(
    (k) => [k, [...acks[k]].filter((id) => !stored[k].has(id)).length] as const,
  );
  const checked = (Object.keys(acks) as (keyof Acks)[]).reduce((n, k) => n + acks[k].size, 0);
  console.log(
    `\nacknowledged writes looked up after the run: ${(Object.keys(acks) as (keyof Acks)[]).map((k) => `${acks[k].size} ${k}`).join(", ")} (${checked} rows); missing: ${missing.map(([k, n]) => `${k} ${n}`).join(", ")}; integrity_check: ${integrity}`,
  );

  // PostgreSQL leg: the same guarded calls on one instance, then on two instances of one database.
  for (const k of Object.keys(acks) as (keyof Acks)[]) acks[k].clear();
  const pgServer = await benchPg();
  const pgUrl = await pgServer.newDatabase("bench_load");
  const pgPorts = [await freePort(), await freePort()];
  const pgServe = (port: number) =>
    start(
      ["src/cli/main.ts", "serve"],
      { PORT: String(port), AGENT_LEDGER_DB: pgUrl, AGENT_LEDGER_ADMIN_TOKEN: TOKEN },
      /listening on/,
    );
  const instances = [await pgServe(pgPorts[0]!)];
  const pgUrls = pgPorts.map((p) => `http://127.0.0.1:${p}`);
  const callsOnly = [session, ...Array.from({ length: 25 }, () => readThenCompute).flat()];
  const pgResults: [string, autocannon.Result, RowCpu][] = [];
  const postmaster = postmasterOf(pgServer.dataDir);
  const isPg = (pid: string, cmd: string, stat: string) =>
    isBenchPostgres(pgServer.dataDir, postmaster, pid, cmd, stat);
  try {
    for (const [name, decl] of Object.entries({
      read_discharge: { params: { site: {} }, returns: { unit: "cfs" } },
      runoff_depth: { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
    })) {
      const r = await fetch(`${pgUrls[0]}/v1/tools/${name}`, { method: "PUT", headers, body: JSON.stringify(decl) });
      if (!r.ok) throw new Error(`PUT /v1/tools/${name} on PostgreSQL answered ${r.status}`);
    }
    pgResults.push([
      "PostgreSQL, 1 instance: guarded calls with results (a new session every 50 calls)",
      ...(await measuredRow([instances[0]!.child.pid], isPg, () =>
        run({ url: pgUrls[0]!, requests: callsOnly, connections: CONNECTIONS, duration: SECONDS }),
      )),
    ]);
    instances.push(await pgServe(pgPorts[1]!));
    // The two instances' loads run at once and count as one row: their requests summed, the worse latencies.
    const bothAtOnce = async (): Promise<autocannon.Result> => {
      const both = await Promise.all(
        pgUrls.map((u) => run({ url: u, requests: callsOnly, connections: CONNECTIONS / 2, duration: SECONDS })),
      );
      const [x, y] = [both[0]!, both[1]!];
      return {
        ...x,
        requests: {
          ...x.requests,
          total: x.requests.total + y.requests.total,
          average: x.requests.average + y.requests.average,
        },
        latency: {
          ...x.latency,
          p50: Math.max(x.latency.p50, y.latency.p50),
          p99: Math.max(x.latency.p99, y.latency.p99),
        },
        non2xx: x.non2xx + y.non2xx,
        errors: x.errors + y.errors,
        timeouts: x.timeouts + y.timeouts,
        resets: x.resets + y.resets,
      };
    };
    pgResults.push([
      "PostgreSQL, 2 instances on one database (25 connections each)",
      ...(await measuredRow(
        instances.map((i) => i.child.pid),
        isPg,
        bothAtOnce,
      )),
    ]);
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    const pgIds = async (sql: string) => new Set((await client.query(sql)).rows.map((r: { id: string }) => r.id));
    const pgStored = {
      sessions: await pgIds("SELECT id FROM sessions"),
      calls: await pgIds("SELECT id FROM calls"),
      results: await pgIds("SELECT id FROM calls WHERE result_raw IS NOT NULL"),
    };
    await client.end();
    const pgMissing = (["sessions", "calls", "results"] as const).map(
      (k) => [k, [...acks[k]].filter((id) => !pgStored[k].has(id)).length] as const,
    );
    console.log(`\n| PostgreSQL leg ${TABLE_HEAD}`);
    console.log(TABLE_RULE);
    for (const row of pgResults) console.log(tableRow(row));
    const liteCalls = results.find(([n]) => n.startsWith("guarded calls with results only"))![1].requests.average;
    console.log(
      `\nPostgreSQL (${pgServer.describe}) 1 instance / SQLite, guarded calls with results: ${(pgResults[0]![1].requests.average / liteCalls).toFixed(2)} (target >= 0.5)`,
    );
    console.log(
      `PostgreSQL 2 instances / 1 instance: ${(pgResults[1]![1].requests.average / pgResults[0]![1].requests.average).toFixed(2)} (target >= 1.5)`,
    );
    console.log(
      `acknowledged on PostgreSQL: ${acks.sessions.size} sessions, ${acks.calls.size} calls, ${acks.results.size} results; missing: ${pgMissing.map(([k, n]) => `${k} ${n}`).join(", ")}`,
    );
    if (pgResults.some(([, r]) => r.non2xx + r.errors + r.timeouts + r.resets > 0) || pgMissing.some(([, n]) => n > 0))
      exitCode = 1;
  } finally {
    for (const i of instances) i.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    await pgServer.stop();
  }

  const failed = results.reduce((n, [, r]) => n + r.non2xx + r.errors + r.timeouts + r.resets, 0);
  if (failures.length) console.log(`\nfirst failures:\n${failures.join("\n")}`);
  if (/ failed\b/.test(ours.output())) console.log(`\nserver log:\n${ours.output().slice(0, 2000)}`);
  if (failed > 0 || failures.length > 0 || missing.some(([, n]) => n > 0) || integrity !== "ok") exitCode = 1;
  console.log(exitCode === 0 ? "\nresult: no request failed, no acknowledged write missing" : "\nresult: FAILED");
} finally {
  ours.child.kill("SIGTERM");
  base.child.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;

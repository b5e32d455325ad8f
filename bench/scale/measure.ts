// The operations bench:scale measures on a built ledger, each timed one request (or call) at a time.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startServer } from "../../src/cli/serve.js";
import { defaultConfig } from "../../src/config.js";
import type { LedgerDb } from "../../src/store/sqlite/db.js";
import { libraryCallUs } from "../guard/library.js";
import { type Built, keyedResult } from "./build.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";

/** Milliseconds of each probe of one operation. */
export type Samples = number[];

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The p-th percentile (0..100) of samples, nearest rank. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

async function timed(n: number, fn: (i: number) => Promise<void>): Promise<Samples> {
  for (let i = 0; i < Math.min(3, n); i += 1) await fn(-1 - i); // warm-up
  const out: Samples = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

/** Measures every operation on `store` (whose file is `file`); answers the samples by operation name. */
export async function measure(
  store: LedgerDb,
  file: string,
  built: Built,
  scale = 1,
): Promise<Record<string, Samples>> {
  const server = await startServer(defaultConfig({ port: 0, host: "127.0.0.1" }), sqliteStore(store));
  const headers = { authorization: `Bearer ${built.token}`, "content-type": "application/json" };
  const send = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return text.startsWith("{") ? JSON.parse(text) : text;
  };
  const n = (k: number) => Math.max(5, Math.round(k * scale));
  const out: Record<string, Samples> = {};
  try {
    // In process: 32 library sessions at once, per guarded call (checked, committed, body run, result committed).
    const rounds: Samples = [];
    await libraryCallUs(store, 32, 20);
    for (let r = 0; r < n(7); r += 1) rounds.push((await libraryCallUs(store, 32, 40)).wall / 1000);
    out.guard_call_in_process = rounds;

    const { id: sid } = (await send("POST", "/v1/sessions", { context: "Runoff from 1250 cfs over 29,000 km2?" })) as {
      id: string;
    };
    const calc = built.probe.tool;
    out.guard_call_http = await timed(n(300), async () => {
      await send("POST", `/v1/sessions/${sid}/calls`, { tool: calc, args: { discharge: "1250 cfs", area: 29000 } });
    });
    out.audit = await timed(n(40), async () => {
      await send("POST", `/v1/sessions/${sid}/audit`, {
        answer: "Runoff is 3.7 mm/day from 1250 cfs over 29,000 km2.",
      });
    });
    out.evaluation_50_keys = await timed(n(15), async (i) => {
      await send("POST", "/v1/evaluations", { task: { id: built.bigTask }, result: keyedResult(50, `probe ${i}`) });
    });
    const p = built.probe;
    const lists: Record<string, string> = {
      sessions_by_label: `/v1/sessions?label=${encodeURIComponent(p.label)}`,
      sessions_by_tool: `/v1/sessions?tool=${encodeURIComponent(p.tool)}`,
      sessions_by_code: `/v1/sessions?code=${p.code}`,
      sessions_by_time: `/v1/sessions?since=${encodeURIComponent(p.since)}&until=${encodeURIComponent(p.until)}`,
      crossings_by_magnitude: `/v1/crossings?value=${p.value}&unit=${encodeURIComponent(p.unit)}`,
      claims: "/v1/claims",
      evaluations: "/v1/evaluations",
      evaluations_by_task: `/v1/evaluations?task=${built.bigTask}`,
    };
    const doc = (await send("GET", "/openapi.json")) as { paths: Record<string, unknown> };
    if (doc.paths["/v1/revisions"]) lists.revisions = "/v1/revisions";
    for (const [name, path] of Object.entries(lists))
      out[name] = await timed(n(40), async () => void (await send("GET", path)));
    // The dashboard's pages (issue 13), as a browser asks for them: a cookie session from the login form.
    const login = await fetch(`${server.url}/ui/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
      body: new URLSearchParams({ token: built.token }).toString(),
      redirect: "manual",
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    if (login.status !== 303 || cookie === "") throw new Error(`dashboard login answered ${login.status}`);
    const pages: Record<string, string> = {
      ui_overview: "/ui",
      ui_sessions_by_label: `/ui/sessions?label=${encodeURIComponent(p.label)}`,
      ui_session: `/ui/sessions/${built.sampleSession}`,
      ui_crossings: "/ui/crossings",
      ui_crossings_by_code: `/ui/crossings?code=${p.code}`,
      ui_crossings_by_tool: `/ui/crossings?tool=${encodeURIComponent(p.tool)}`,
      ui_evaluations: "/ui/evaluations",
      ui_claims: "/ui/claims",
      ui_revisions: "/ui/revisions",
    };
    for (const [name, path] of Object.entries(pages))
      out[name] = await timed(n(40), async () => {
        const res = await fetch(`${server.url}${path}`, { headers: { cookie } });
        const html = await res.text();
        if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${html.slice(0, 300)}`);
      });
    out.replay = await timed(
      n(10),
      async () => void (await send("POST", "/v1/replay", { session_id: built.sampleSession })),
    );
  } finally {
    await server.close();
  }
  // backup: the real CLI in a child process (its node start-up included), an online copy of the whole file.
  const copy = `${file}.backup`;
  out.backup = await timed(1, async () => {
    rmSync(copy, { force: true });
    const r = spawnSync(process.execPath, ["bin/agent-ledger.js", "backup", copy, "--db", file], { cwd: ROOT });
    if (r.status !== 0) throw new Error(`backup failed: ${r.stderr.toString()}`);
  });
  if (existsSync(copy)) rmSync(copy);
  return out;
}

/** Bytes of the database file per stored crossing, after a checkpoint folds the WAL into it. */
export function bytesPerCrossing(store: LedgerDb, file: string, crossings: number): number {
  store.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  return statSync(file).size / crossings;
}

// Every statement the list, search, replay and audit routes and the dashboard's pages prepare is answered through an index: none scans a table
// that grows with history, and none sorts all its rows. The statements are captured as the real app prepares them.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/api/app.js";
import { defaultConfig } from "../../../src/config.js";
import { openDb } from "../../../src/store/sqlite/db.js";
import { seedDatabase } from "../../../src/store/sqlite/seed.js";
import { ensureAdminToken } from "../../../src/store/sqlite/teams.js";
import { stageResult } from "../../helpers/gated.js";
import { sqliteStore } from "../../../src/store/sqlite/store.js";

const GROWING = [
  "sessions",
  "violation_counts",
  "revisions",
  "evaluation_sources",
  "session_labels",
  "calls",
  "crossings",
  "audits",
  "audit_items",
  "runs",
  "run_claims",
  "run_key_values",
  "claims",
  "claim_events",
];
const SCANS_GROWING = new RegExp(`^SCAN (${GROWING.join("|")})\\b`);
const TOKEN = "route-plans-admin-token-0123456789";

/** Sorts that are bounded by something other than the history's length, each with why. */
const BOUNDED_SORTS: { match: RegExp; why: string }[] = [
  {
    match: /\bsession_id = \?/,
    why: "the rows of one session (its calls, crossings or audits; bench:guard covers a long session)",
  },
  { match: /\bFROM run_key_values\b/, why: "the distinct values of one task's keys (the stability summary)" },
  { match: /\bFROM violation_counts\b/, why: "one row per violation code of one team" },
  {
    match: /\bsession_id IN \(SELECT value FROM json_each\(\?\)\)/,
    why: "the flagged crossings of one page of sessions (the sessions page's code chips)",
  },
  {
    match: /INDEXED BY crossings_team_dim_si_idx/,
    why: "the crossings of one magnitude within the tolerance, newest first",
  },
];

/** The app over a fresh database whose handle records the SQL of every statement prepared after `record()`. */
function recordingApp() {
  const store = openDb(":memory:");
  seedDatabase(store);
  ensureAdminToken(store.db, TOKEN);
  const seen = new Set<string>();
  let recording = false;
  const prepare = store.sqlite.prepare.bind(store.sqlite);
  store.sqlite.prepare = ((sql: string) => {
    if (recording) seen.add(sql);
    return prepare(sql);
  }) as typeof store.sqlite.prepare;
  recording = true; // the app's constructors prepare their statements too
  const app = createApp({ store: sqliteStore(store), config: defaultConfig() });
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : text;
  };
  /** The plan with every parameter bound to null (named ones by name; positional ones counted by trying). */
  const plan = (sql: string): string[] => {
    const st = store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const named = [...sql.matchAll(/@(\w+)/g)].map((m) => m[1]!);
    if (named.length > 0) {
      const rows = st.all(Object.fromEntries(named.map((n) => [n, null]))) as { detail: string }[];
      return rows.map((r) => r.detail);
    }
    for (let n = 0; n < 64; n += 1) {
      try {
        return (st.all(...Array.from({ length: n }, () => null)) as { detail: string }[]).map((r) => r.detail);
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
      }
    }
    throw new Error(`cannot bind the parameters of ${sql}`);
  };
  return { store, send, seen, plan, app };
}

/** Two tools and a session that reads 1250 cfs and then carries it over, refused. */
async function seedSession(send: ReturnType<typeof recordingApp>["send"]): Promise<{ id: string }> {
  await send("PUT", "/v1/tools/read_q", { params: { station: {} }, returns: { unit: "cfs" } });
  await send("PUT", "/v1/tools/runoff", { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } } });
  const s = (await send("POST", "/v1/sessions", { labels: { run: "a" }, context: "Runoff?" })) as { id: string };
  const c = (await send("POST", `/v1/sessions/${s.id}/calls`, { tool: "read_q", args: { station: "A" } })) as {
    call_id: string;
  };
  await send("POST", `/v1/sessions/${s.id}/calls/${c.call_id}/result`, { result: 1250 });
  await send("POST", `/v1/sessions/${s.id}/calls`, { tool: "runoff", args: { discharge: 1250, area: 29000 } });
  return s;
}

describe("the plans of the routes' queries", () => {
  it("use an index for every list, search, replay and audit statement, with no full scan or full sort", async () => {
    const { send, seen, plan } = recordingApp();
    const s = await seedSession(send);
    await send("POST", "/v1/evaluations", { task: { id: "crest" }, result: stageResult("17.1 ft") });
    await send("POST", "/v1/claims", { id: "CLM-1", text: "The gauge gains 2.08x", status: "live" });
    const reads = [
      "/v1/sessions",
      "/v1/sessions?label=run:a",
      "/v1/sessions?label=run:a&label=model:m",
      "/v1/sessions?tool=runoff",
      "/v1/sessions?code=unconverted_carry_over",
      "/v1/sessions?label=run:a&tool=runoff&code=unconverted_carry_over&since=2026-01-01&until=2027-01-01",
      "/v1/sessions?since=2026-01-01&until=2027-01-01",
      "/v1/crossings?value=1250&unit=cfs",
      "/v1/crossings?value=1250&unit=cfs&tool=read_q&since=2026-01-01",
      "/v1/claims",
      "/v1/evaluations",
      "/v1/evaluations?task=crest",
      "/v1/evaluations?status=released",
      `/v1/sessions/${s.id}/calls`,
      `/v1/sessions/${s.id}/report`,
      `/v1/sessions/${s.id}/manifest`,
    ];
    for (const path of reads) await send("GET", path);
    // A second page of each filtered list, so the cursor conditions are planned too.
    for (const path of reads.slice(1, 7)) await send("GET", `${path}${path.includes("?") ? "&" : "?"}limit=1`);
    await send("POST", "/v1/replay", { session_id: s.id });
    await send("POST", `/v1/sessions/${s.id}/audit`, { answer: "Runoff is 3.7 mm/day from 1250 cfs." });

    const selects = [...seen].filter((sql) => /^\s*(SELECT|WITH)\b/i.test(sql));
    expect(selects.length).toBeGreaterThan(20);
    expect(unindexed(selects, plan)).toEqual([]);
  });

  it("use an index for every statement of the dashboard's pages, each filter of the crossings list its own", async () => {
    const { store, send, seen, plan, app } = recordingApp();
    const s = await seedSession(send);
    await send("POST", `/v1/sessions/${s.id}/audit`, { answer: "Runoff is 3.7 mm/day from 1250 cfs." });
    const e = (await send("POST", "/v1/evaluations", { task: { id: "crest" }, result: stageResult("17.1 ft") })) as {
      id: string;
    };
    await send("POST", "/v1/claims", { id: "CLM-1", text: "The gauge gains 2.08x", status: "live", key: "Gain" });
    const login = await app.request("/ui/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    seen.clear();
    const pages = [
      "/ui",
      "/ui?days=90",
      "/ui/sessions",
      "/ui/sessions?label=run:a&tool=runoff&code=unconverted_carry_over",
      `/ui/sessions/${s.id}`,
      "/ui/crossings",
      "/ui/crossings?code=unconverted_carry_over",
      "/ui/crossings?tool=runoff",
      "/ui/crossings?code=unconverted_carry_over&tool=runoff",
      "/ui/crossings?before=3",
      "/ui/evaluations",
      "/ui/evaluations?task=crest&status=released",
      `/ui/evaluations/${e.id}`,
      "/ui/claims",
      "/ui/claims/CLM-1",
      "/ui/revisions",
    ];
    for (const path of pages) {
      const res = await app.request(path, { headers: { cookie } });
      if (res.status !== 200)
        throw new Error(`GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    }
    const selects = [...seen].filter((sql) => /^\s*(SELECT|WITH)\b/i.test(sql));
    expect(selects.filter((sql) => /^SELECT \* FROM crossings\b.*ORDER BY id DESC LIMIT/s.test(sql))).toHaveLength(4);
    expect(unindexed(selects, plan)).toEqual([]);
    store.close();
  });
});

/** The statements whose plan scans a table that grows with history, or sorts its rows, with the offending steps. */
function unindexed(selects: string[], plan: (sql: string) => string[]) {
  return selects.flatMap((sql) => {
    const p = plan(sql);
    const bounded = BOUNDED_SORTS.some((b) => b.match.test(sql));
    const problems = p.filter((d) => SCANS_GROWING.test(d) || (d === "USE TEMP B-TREE FOR ORDER BY" && !bounded));
    return problems.length > 0 ? [{ sql: sql.replace(/\s+/g, " ").slice(0, 300), problems }] : [];
  });
}

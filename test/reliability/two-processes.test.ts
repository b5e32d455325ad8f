// Two server processes on one SQLite file under concurrent load: no SQLITE_BUSY and no 5xx reaches a client,
// and the writes of both interleave correctly (one call sequence per session, whichever process took the call).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { seeded, send, serve, type Reply, type Served } from "./harness.js";

const TOKEN = "two-process-admin-token-0123456789";
const CLIENTS_PER_SERVER = 20;
// A fixed amount of work, not a time window: on a loaded machine a window of seconds finished too few calls to count.
const SESSIONS_PER_CLIENT = 2;
const CALLS_PER_SESSION = 8;
const DECL = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };

type Tally = {
  requests: number;
  bad: Reply[];
  calls: Map<string, string>;
  results: Set<string>;
  audits: Set<string>;
  sessions: Set<string>;
};

/** One client: opens a session on one process, then alternates calls, results and audits across both processes. */
async function client(urls: [string, string], first: 0 | 1, tally: Tally, rand: () => number): Promise<void> {
  const check = (r: Reply, ok: number): boolean => {
    tally.requests += 1;
    if (r.status !== ok) tally.bad.push(r);
    return r.status === ok;
  };
  for (let n = 0; n < SESSIONS_PER_CLIENT; n += 1) {
    const s = await send(urls[first], "POST", "/v1/sessions", { token: TOKEN, body: { context: "two processes" } });
    if (!check(s, 201)) continue;
    const sid = (s.body as { id: string }).id;
    tally.sessions.add(sid);
    for (let i = 0; i < CALLS_PER_SESSION; i += 1) {
      const url = urls[rand() < 0.5 ? 0 : 1];
      const c = await send(url, "POST", `/v1/sessions/${sid}/calls`, {
        token: TOKEN,
        body: { tool: "two_proc", args: { discharge: "1250 cfs", area: 29000 } },
      });
      if (!check(c, 200)) continue;
      const callId = (c.body as { call_id: string }).call_id;
      tally.calls.set(callId, sid);
      const r = await send(urls[rand() < 0.5 ? 0 : 1], "POST", `/v1/sessions/${sid}/calls/${callId}/result`, {
        token: TOKEN,
        body: { result: 12.5 },
      });
      if (check(r, 200)) tally.results.add(callId);
    }
    const a = await send(urls[rand() < 0.5 ? 0 : 1], "POST", `/v1/sessions/${sid}/audit`, {
      token: TOKEN,
      body: { answer: "Runoff is 12.5 mm/day from 1250 cfs." },
    });
    if (check(a, 200)) tally.audits.add((a.body as { id: string }).id);
  }
}

describe("two server processes on one database", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-two-"));
  const running: Served[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop("SIGKILL")));
    rmSync(dir, { recursive: true, force: true });
  });

  it("both start at once on a new file: migrations and seeding do not collide", async () => {
    const db = join(dir, "fresh.db");
    const both = await Promise.all([
      serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN }),
      serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN }),
    ]);
    running.push(...both);
    for (const s of both) expect((await send(s.url, "GET", "/v1/tools", { token: TOKEN })).status).toBe(200);
    const sqlite = new Database(db, { readonly: true });
    try {
      expect(sqlite.prepare("SELECT count(*) FROM teams WHERE name = 'default'").pluck().get()).toBe(1);
      expect(
        sqlite.prepare("SELECT count(*) FROM tokens WHERE is_admin = 1 AND revoked_at IS NULL").pluck().get(),
      ).toBe(1);
    } finally {
      sqlite.close();
    }
    await Promise.all(both.map((s) => s.stop()));
  }, 60_000);

  it(`answers ${2 * CLIENTS_PER_SERVER} concurrent clients with no SQLITE_BUSY and no 5xx, and loses nothing`, async () => {
    const db = join(dir, "shared.db");
    const a = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(a);
    const b = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(b);
    expect((await send(a.url, "PUT", "/v1/tools/two_proc", { token: TOKEN, body: DECL })).status).toBe(201);

    const tally: Tally = {
      requests: 0,
      bad: [],
      calls: new Map(),
      results: new Set(),
      audits: new Set(),
      sessions: new Set(),
    };
    const rand = seeded(2);
    await Promise.all(
      Array.from({ length: 2 * CLIENTS_PER_SERVER }, (_, i) => client([a.url, b.url], (i % 2) as 0 | 1, tally, rand)),
    );
    await Promise.all([a.stop(), b.stop()]);

    expect(tally.bad.map((r) => `${r.status} ${r.text.slice(0, 200)}`)).toEqual([]);
    expect(a.output() + b.output()).not.toMatch(/SQLITE_BUSY|database is locked/);
    expect(tally.calls.size).toBe(2 * CLIENTS_PER_SERVER * SESSIONS_PER_CLIENT * CALLS_PER_SESSION);

    const sqlite = new Database(db, { readonly: true });
    try {
      expect(sqlite.pragma("integrity_check", { simple: true })).toBe("ok");
      const calls = new Map(
        (
          sqlite.prepare("SELECT id, session_id, seq, result_raw FROM calls WHERE tool = 'two_proc'").all() as {
            id: string;
            session_id: string;
            seq: number;
            result_raw: string | null;
          }[]
        ).map((c) => [c.id, c]),
      );
      expect([...tally.calls.keys()].filter((id) => !calls.has(id))).toEqual([]);
      expect([...tally.results].filter((id) => calls.get(id)?.result_raw == null)).toEqual([]);
      const audits = new Set(sqlite.prepare("SELECT id FROM audits").pluck().all() as string[]);
      expect([...tally.audits].filter((id) => !audits.has(id))).toEqual([]);
      // Calls taken by either process share one sequence per session: 1..n, no duplicates, no gaps.
      const gaps = sqlite
        .prepare(`SELECT s.id FROM sessions s JOIN calls c ON c.session_id = s.id WHERE s.context = 'two processes'
        GROUP BY s.id HAVING count(*) <> max(c.seq) OR count(DISTINCT c.seq) <> count(*) OR s.call_count <> count(*)`)
        .all();
      expect(gaps).toEqual([]);
      console.info(
        `two processes: ${tally.requests} requests from ${2 * CLIENTS_PER_SERVER} clients, 0 failed; ` +
          `${tally.sessions.size} sessions, ${tally.calls.size} calls, ${tally.results.size} results, ${tally.audits.size} audits all present`,
      );
    } finally {
      sqlite.close();
    }
  }, 300_000);
});

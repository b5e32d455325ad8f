// Crash safety: the server is SIGKILLed while clients write; after a restart every acknowledged write is there,
// the file passes integrity_check, and each call is stored whole (all its crossings) or not at all.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { seeded, send, serve, type Served } from "./harness.js";

const TOKEN = "crash-test-admin-token-0123456789";
const KILLS = 4;
const WRITERS = 16;

/** Two declared tools with different numbers of parameters, so a half-stored call would show in the counts. */
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
    args: { q: { value: 35.4, unit: "m^3/s" }, a: "29000 km**2", h: "12.4 ft", site: "07374000", note: "crash test" },
  },
};
const TOOL_NAMES = Object.keys(TOOLS);

type Acks = {
  sessions: Set<string>;
  calls: Map<string, string>;
  results: Set<string>;
  requests: number;
  failures: number;
};

/** One client: sessions of up to 10 calls, most calls followed by their result, until the server dies. */
async function writer(url: string, acks: Acks, rand: () => number): Promise<void> {
  try {
    for (;;) {
      const s = await send(url, "POST", "/v1/sessions", { token: TOKEN, body: { context: "crash test" } });
      acks.requests += 1;
      if (s.status !== 201) throw new Error(`session answered ${s.status}: ${s.text}`);
      const sid = (s.body as { id: string }).id;
      acks.sessions.add(sid);
      for (let i = 0; i < 10; i += 1) {
        const tool = TOOL_NAMES[Math.floor(rand() * TOOL_NAMES.length)]!;
        const c = await send(url, "POST", `/v1/sessions/${sid}/calls`, {
          token: TOKEN,
          body: { tool, args: TOOLS[tool]!.args },
        });
        acks.requests += 1;
        if (c.status !== 200) throw new Error(`call answered ${c.status}: ${c.text}`);
        const callId = (c.body as { call_id: string }).call_id;
        acks.calls.set(callId, tool);
        if (rand() < 0.7) {
          const r = await send(url, "POST", `/v1/sessions/${sid}/calls/${callId}/result`, {
            token: TOKEN,
            body: { result: 12.5 },
          });
          acks.requests += 1;
          if (r.status !== 200) throw new Error(`result answered ${r.status}: ${r.text}`);
          acks.results.add(callId);
        }
      }
    }
  } catch (e) {
    // A refused or reset connection is the kill; any HTTP answer other than success is a real failure.
    if (e instanceof Error && /answered/.test(e.message)) throw e;
    acks.failures += 1;
  }
}

describe("crash safety under SIGKILL", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-crash-"));
  const db = join(dir, "ledger.db");
  const running: Served[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop("SIGKILL")));
    rmSync(dir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged write and stores each call whole across ${KILLS} SIGKILLs mid-write`, async () => {
    const rand = seeded(8);
    const acks: Acks = { sessions: new Set(), calls: new Map(), results: new Set(), requests: 0, failures: 0 };
    for (let kill = 0; kill < KILLS; kill += 1) {
      const server = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
      running.push(server);
      if (kill === 0) {
        for (const [name, t] of Object.entries(TOOLS)) {
          expect((await send(server.url, "PUT", `/v1/tools/${name}`, { token: TOKEN, body: t.decl })).status).toBe(201);
        }
      }
      const before = acks.calls.size;
      const writers = Array.from({ length: WRITERS }, () => writer(server.url, acks, rand));
      // Kill at a seeded moment once writes are flowing, so the kill lands inside group commits.
      const deadline = Date.now() + 10_000;
      while (acks.calls.size < before + 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 300)));
      await server.stop("SIGKILL");
      await Promise.all(writers);
      expect(acks.calls.size).toBeGreaterThan(before + 200);
    }

    // The restart itself must recover the WAL and answer.
    const server = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(server);
    expect((await send(server.url, "GET", "/healthz")).status).toBe(200);
    const anyCall = [...acks.calls.keys()][0]!;
    expect((await send(server.url, "GET", "/v1/sessions?limit=1", { token: TOKEN })).status).toBe(200);
    await server.stop("SIGTERM");

    const sqlite = new Database(db, { fileMustExist: true });
    try {
      expect(sqlite.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(sqlite.pragma("foreign_key_check")).toEqual([]);

      const calls = sqlite
        .prepare("SELECT id, session_id, seq, tool, args_raw, result_raw FROM calls WHERE tool LIKE 'crash_%'")
        .all() as {
        id: string;
        session_id: string;
        seq: number;
        tool: string;
        args_raw: string;
        result_raw: string | null;
      }[];
      const byId = new Map(calls.map((c) => [c.id, c]));
      const crossings = new Map<string, { param: number; ret: number }>();
      for (const r of sqlite
        .prepare(
          "SELECT call_id, direction, count(*) AS n FROM crossings WHERE tool LIKE 'crash_%' GROUP BY call_id, direction",
        )
        .all() as {
        call_id: string;
        direction: "param" | "return";
        n: number;
      }[]) {
        const x = crossings.get(r.call_id) ?? { param: 0, ret: 0 };
        if (r.direction === "param") x.param = r.n;
        else x.ret = r.n;
        crossings.set(r.call_id, x);
      }

      // Every acknowledged session, call and result is present.
      const sessions = new Set(sqlite.prepare("SELECT id FROM sessions").pluck().all() as string[]);
      expect([...acks.sessions].filter((id) => !sessions.has(id))).toEqual([]);
      expect([...acks.calls.keys()].filter((id) => !byId.has(id))).toEqual([]);
      expect([...acks.results].filter((id) => byId.get(id)?.result_raw === null || !byId.has(id))).toEqual([]);
      expect(byId.get(anyCall)!.tool).toBe(acks.calls.get(anyCall));

      // No call is half-stored: as many parameter crossings as declared arguments, and a return crossing iff a result.
      const halfStored = calls.filter((c) => {
        const declared = Object.keys(TOOLS[c.tool]!.args).length;
        const x = crossings.get(c.id) ?? { param: 0, ret: 0 };
        return (
          x.param !== declared ||
          Object.keys(JSON.parse(c.args_raw) as object).length !== declared ||
          x.ret !== (c.result_raw === null ? 0 : 1)
        );
      });
      expect(halfStored).toEqual([]);
      const orphans = [...crossings.keys()].filter((id) => !byId.has(id));
      expect(orphans).toEqual([]);

      // Each session's counter matches its calls, numbered 1..n without gaps.
      const counters = sqlite
        .prepare(`SELECT s.id, s.call_count, count(c.id) AS n, coalesce(max(c.seq), 0) AS top
        FROM sessions s LEFT JOIN calls c ON c.session_id = s.id WHERE s.context = 'crash test' GROUP BY s.id`)
        .all() as {
        id: string;
        call_count: number;
        n: number;
        top: number;
      }[];
      expect(counters.filter((s) => s.call_count !== s.n || s.top !== s.n)).toEqual([]);

      const crossingRows = [...crossings.values()].reduce((n, x) => n + x.param + x.ret, 0);
      console.info(
        `crash: ${KILLS} SIGKILLs, ${acks.requests} acknowledged requests (${acks.sessions.size} sessions, ${acks.calls.size} calls, ` +
          `${acks.results.size} results) all present; ${calls.length} calls and ${crossingRows} crossings checked whole; ` +
          `${calls.length - acks.calls.size} calls committed but unacknowledged at a kill`,
      );
    } finally {
      sqlite.close();
    }
  }, 120_000);
});

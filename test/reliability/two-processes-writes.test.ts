// Two `serve` processes on one SQLite file under 2,000 mixed writes (claims, demotions, sessions, calls,
// evaluations): every write runs in an IMMEDIATE transaction with a busy timeout, so each process waits for the
// other's lock instead of answering 500 SQLITE_BUSY (34 of 237 claims and 34 demotions did), and every
// acknowledged write is in the file afterwards.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { seeded, send, serve, type Reply, type Served } from "./harness.js";

const TOKEN = "two-process-writes-token-0123456789";
const CLIENTS = 8;
const WRITES = 2000;

type Acked = {
  claims: Set<string>;
  demoted: Set<string>;
  sessions: Set<string>;
  calls: Set<string>;
  runs: Set<string>;
};

describe("two serve processes on one file under mixed writes", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-writes-"));
  const running: Served[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop("SIGKILL")));
    rmSync(dir, { recursive: true, force: true });
  });

  it(`answers ${WRITES} mixed writes with no 5xx, and every acknowledged write is stored`, async () => {
    const db = join(dir, "shared.db");
    const a = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(a);
    const b = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN });
    running.push(b);
    const urls = [a.url, b.url];
    const rand = seeded(26);
    const acked: Acked = {
      claims: new Set(),
      demoted: new Set(),
      sessions: new Set(),
      calls: new Set(),
      runs: new Set(),
    };
    const bad: Reply[] = [];
    let sent = 0;
    const ok = (r: Reply, status: number): boolean => {
      if (r.status !== status) bad.push(r);
      return r.status === status;
    };
    const pick = () => urls[rand() < 0.5 ? 0 : 1] as string;

    async function client(n: number): Promise<void> {
      let session: string | null = null;
      const mine: string[] = [];
      while (sent < WRITES) {
        sent += 1;
        const i = sent;
        const roll = rand();
        if (roll < 0.35) {
          const id = `CLM-${n}-${i}`;
          const r = await send(pick(), "POST", "/v1/claims", {
            token: TOKEN,
            body: { id, text: `Claim ${i}.`, key: `key ${i % 50}`, value: `${i} m`, status: "live" },
          });
          if (ok(r, 201)) {
            acked.claims.add(id);
            mine.push(id);
          }
        } else if (roll < 0.55 && mine.length > 0) {
          const id = mine.shift() as string;
          const r = await send(pick(), "POST", `/v1/claims/${id}/demote`, {
            token: TOKEN,
            body: { reason: "superseded in the test", demoted_by: "two-processes" },
          });
          if (ok(r, 200)) acked.demoted.add(id);
        } else if (roll < 0.65 || session === null) {
          const r = await send(pick(), "POST", "/v1/sessions", { token: TOKEN, body: { context: "writes" } });
          if (ok(r, 201)) {
            session = (r.body as { id: string }).id;
            acked.sessions.add(session);
          }
        } else if (roll < 0.9) {
          const r = await send(pick(), "POST", `/v1/sessions/${session}/calls`, {
            token: TOKEN,
            body: { tool: "undeclared", args: { i } },
          });
          if (ok(r, 200)) acked.calls.add((r.body as { call_id: string }).call_id);
        } else {
          const r = await send(pick(), "POST", "/v1/evaluations", {
            token: TOKEN,
            body: { task: { id: `task-${i % 7}` }, result: { output: `Answer ${i}.`, claims: [] } },
          });
          if (ok(r, 200)) acked.runs.add((r.body as { id: string }).id);
        }
      }
    }

    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    await Promise.all([a.stop(), b.stop()]);

    expect(bad.map((r) => `${r.status} ${r.text.slice(0, 200)}`)).toEqual([]);
    expect(a.output() + b.output()).not.toMatch(/SQLITE_BUSY|database is locked/);
    const sqlite = new Database(db, { readonly: true });
    try {
      const ids = (sql: string) => new Set(sqlite.prepare(sql).pluck().all() as string[]);
      const missing = (want: Set<string>, have: Set<string>) => [...want].filter((id) => !have.has(id));
      expect(missing(acked.claims, ids("SELECT id FROM claims"))).toEqual([]);
      expect(missing(acked.demoted, ids("SELECT claim_id FROM claim_events WHERE status = 'demoted'"))).toEqual([]);
      expect(missing(acked.sessions, ids("SELECT id FROM sessions"))).toEqual([]);
      expect(missing(acked.calls, ids("SELECT id FROM calls"))).toEqual([]);
      expect(missing(acked.runs, ids("SELECT id FROM runs"))).toEqual([]);
      const total = acked.claims.size + acked.demoted.size + acked.sessions.size + acked.calls.size + acked.runs.size;
      expect(total).toBe(WRITES);
      console.info(
        `two processes, mixed writes: ${total} acknowledged (${acked.claims.size} claims, ${acked.demoted.size} demotions, ` +
          `${acked.sessions.size} sessions, ${acked.calls.size} calls, ${acked.runs.size} evaluations), all present`,
      );
    } finally {
      sqlite.close();
    }
  }, 300_000);
});

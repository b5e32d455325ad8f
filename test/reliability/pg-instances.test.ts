// Two `serve` processes on one PostgreSQL database under 40 concurrent clients: no failed request, every acknowledged
// write present, call numbers 1..n per session whichever instance took each call, a carry-over caught when the earlier
// call went to the other instance, and an evaluation on one instance seeing a demotion written through the other.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createPgDatabase } from "../helpers/pg.js";
import { stageResult } from "../helpers/gated.js";
import { send, serve, type Reply, type Served } from "./harness.js";

const TOKEN = "pg-instances-admin-token-0123456789";
const CLIENTS = 40;
const SESSIONS = 8;
const ROUNDS = 6;

let a: Served;
let b: Served;

beforeAll(async () => {
  // Both start on a new, empty database at once: one migrates under the advisory lock, the other waits for it.
  const url = await createPgDatabase({ migrated: false });
  const env = { AGENT_LEDGER_ADMIN_TOKEN: TOKEN };
  [a, b] = await Promise.all([serve(url, env), serve(url, env)]);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const ok = (r: Reply, status = 200): Reply => {
  if (r.status !== status) throw new Error(`expected ${status}, received ${r.status}: ${r.text}`);
  return r;
};

describe("two instances on one PostgreSQL database", () => {
  test("40 clients: nothing fails, nothing is lost, calls are numbered 1..n, carry-over is caught across instances", async () => {
    const urls = [a.url, b.url] as const;
    ok(
      await send(a.url, "PUT", "/v1/tools/read_discharge", {
        token: TOKEN,
        body: { params: { site: {} }, returns: { unit: "cfs" } },
      }),
      201,
    );
    ok(
      await send(b.url, "PUT", "/v1/tools/runoff", {
        token: TOKEN,
        body: { params: { discharge: { unit: "m**3/s" } }, returns: { unit: "mm/day" } },
      }),
      201,
    );
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i += 1)
      sessions.push(
        (
          ok(await send(urls[i % 2], "POST", "/v1/sessions", { token: TOKEN, body: { context: `s${i}` } }), 201)
            .body as { id: string }
        ).id,
      );

    const failed: Reply[] = [];
    const acked = new Map<string, string[]>(sessions.map((s) => [s, []]));
    let carryOvers = 0;
    let caught = 0;
    const client = async (n: number) => {
      const sid = sessions[n % SESSIONS]!;
      for (let round = 0; round < ROUNDS; round += 1) {
        // The reading goes to one instance, its result to the same, the bare re-use of its number to the other.
        const here = urls[(n + round) % 2]!;
        const there = urls[(n + round + 1) % 2]!;
        const site = `${n}${round}`;
        const read = await send(here, "POST", `/v1/sessions/${sid}/calls`, {
          token: TOKEN,
          body: { tool: "read_discharge", args: { site } },
        });
        if (read.status !== 200) {
          failed.push(read);
          continue;
        }
        const call = read.body as { call_id: string };
        acked.get(sid)!.push(call.call_id);
        const magnitude = 1000 + n * 10 + round;
        const res = await send(here, "POST", `/v1/sessions/${sid}/calls/${call.call_id}/result`, {
          token: TOKEN,
          body: { result: magnitude },
        });
        if (res.status !== 200) failed.push(res);
        const reuse = await send(there, "POST", `/v1/sessions/${sid}/calls`, {
          token: TOKEN,
          body: { tool: "runoff", args: { discharge: magnitude } },
        });
        if (reuse.status !== 200) {
          failed.push(reuse);
          continue;
        }
        const answer = reuse.body as { call_id: string; would_block: boolean; violations: { code: string }[] };
        acked.get(sid)!.push(answer.call_id);
        carryOvers += 1;
        if (answer.would_block && answer.violations.some((v) => v.code === "unconverted_carry_over")) caught += 1;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));

    expect(failed.map((r) => `${r.status} ${r.text}`)).toEqual([]);
    expect(carryOvers).toBe(CLIENTS * ROUNDS);
    expect(caught).toBe(carryOvers);
    for (const sid of sessions) {
      const seen: { call_id: string; seq: number }[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor === null ? "?limit=500" : `?limit=500&cursor=${encodeURIComponent(cursor)}`;
        const page = ok(await send(urls[1], "GET", `/v1/sessions/${sid}/calls${q}`, { token: TOKEN })).body as {
          items: { call_id: string; seq: number }[];
          next_cursor: string | null;
        };
        seen.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor !== null);
      const mine = acked.get(sid)!;
      expect(seen.map((c) => c.seq)).toEqual(Array.from({ length: mine.length }, (_, i) => i + 1));
      expect(new Set(seen.map((c) => c.call_id))).toEqual(new Set(mine));
      const session = ok(await send(urls[0], "GET", `/v1/sessions/${sid}`, { token: TOKEN })).body as {
        calls: number;
        would_block: number;
      };
      expect(session).toMatchObject({ calls: mine.length, would_block: mine.length / 2 });
    }
  }, 300_000);

  test("an evaluation on one instance sees a demotion written through the other", async () => {
    const task = { id: "crest-report" };
    // Instance A reads (and caches) the team's demoted claims: none yet, so the report is released.
    const first = ok(
      await send(a.url, "POST", "/v1/evaluations", { token: TOKEN, body: { task, result: stageResult("17.1 ft") } }),
    );
    expect(first.body).toMatchObject({ status: "released" });
    ok(
      await send(b.url, "POST", "/v1/claims", {
        token: TOKEN,
        body: {
          id: "CLM-9",
          text: "The crest stage at Baton Rouge was 17.1 ft",
          key: "crest stage",
          value: "17.1 ft",
          status: "live",
        },
      }),
      201,
    );
    ok(
      await send(b.url, "POST", "/v1/claims/CLM-9/demote", {
        token: TOKEN,
        body: { reason: "the gage was re-levelled", demoted_by: "hydrology review" },
      }),
    );
    const second = ok(
      await send(a.url, "POST", "/v1/evaluations", {
        token: TOKEN,
        body: { task: { id: "crest-report-june" }, result: stageResult("17.1 ft") },
      }),
    ).body as { status: string; blocked_by: string[]; gates: { contradiction: { findings: { message: string }[] } } };
    expect(second.status).toBe("blocked");
    expect(second.blocked_by).toContain("contradiction");
    expect(second.gates.contradiction.findings.map((f) => f.message).join("\n")).toContain("demoted claim CLM-9");
  }, 120_000);
});

// claim_status and revised readings, through the SDK's Streamable HTTP client against the service's /mcp: a ledger claim
// whose released figure rests on a reading revised since answers "revised" with the old and the current value.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../../src/clock.js";
import { createTestApp, type TestApp } from "../../helpers/db.js";

const SOURCE = "usgs:07374000:00060";
const MARCH_14 = "2026-03-14T10:15:00-05:00";
const MARCH_15 = "2026-03-15T10:15:00-05:00";

let now = Date.parse("2026-03-16T09:00:00.000Z");
const clock: Clock = { now: () => new Date(now) };
let t: TestApp;
let http: ServerType;
let url: string;
let otherToken: string;
const clients: Client[] = [];
const ids: { march: number; reread: number; evaluation: string; live: string } = {
  march: 0,
  reread: 0,
  evaluation: "",
  live: "",
};
let revisionId = "";

type Status = {
  answer: string;
  message: string;
  claims: { id: string; status: string; rests_on_revised_reading: boolean }[];
  revised_readings: Record<string, unknown>[];
};

async function agent(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "hydrologist", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  // Listed first, so that the client SDK checks every answer (revised readings' nulls too) against the output schema.
  await client.listTools();
  return client;
}

const status = async (c: Client, args: Record<string, unknown>) => {
  const r = (await c.callTool({ name: "claim_status", arguments: args })) as CallToolResult;
  expect(r.isError).toBeFalsy();
  return r.structuredContent as Status;
};

/** The team's tool, a session that reads `value` cfs of quality `quality` observed at `at`, and its crossing id. */
async function read(value: number, quality: string, at: string, token?: string): Promise<number> {
  const as = token ? { token } : {};
  const s = (await t.call("POST", "/v1/sessions", { body: { context: "Baton Rouge" }, ...as })).body as { id: string };
  const c = (
    await t.call("POST", `/v1/sessions/${s.id}/calls`, {
      body: { tool: "read_discharge", args: { site: "07374000" } },
      ...as,
    })
  ).body as { call_id: string };
  const result = { discharge: { value, unit: "cfs", quality, source: SOURCE, observed_at: at } };
  const r = await t.call("POST", `/v1/sessions/${s.id}/calls/${c.call_id}/result`, { body: { result }, ...as });
  expect(r.status).toBe(200);
  const calls = (await t.call("GET", `/v1/sessions/${s.id}/calls`, as)).body as {
    items: { crossings: { id: number; direction: string }[] }[];
  };
  return calls.items[0]!.crossings.find((x) => x.direction === "return")!.id;
}

/** A released report whose fact F1 states `value` under `key`, citing crossing `crossing`. */
async function release(task: string, key: string, value: string, crossing: number, token?: string): Promise<string> {
  const r = await t.call("POST", "/v1/evaluations", {
    body: {
      task: { id: task },
      result: {
        output: "The Mississippi at Baton Rouge carried the March flood.",
        claims: [
          {
            id: "F1",
            kind: "fact",
            text: `Discharge at Baton Rouge, ${key}.`,
            key,
            value,
            source: `ledger:crossings/${crossing}`,
            confidence: 0.9,
            verified: true,
          },
        ],
      },
    },
    ...(token ? { token } : {}),
  });
  const e = r.body as { id: string; status: string };
  expect(e.status).toBe("released");
  return e.id;
}

const claim = (id: string, text: string, key: string, value: string, token?: string) =>
  t.call("POST", "/v1/claims", { body: { id, text, key, value, status: "live" }, ...(token ? { token } : {}) });

beforeAll(async () => {
  t = createTestApp({ clock });
  otherToken = t.teamToken("other-team");
  http = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const tool = { params: { site: {} }, returns: { discharge: { unit: "ft^3/s" } } };
  for (const token of [undefined, otherToken])
    await t.call("PUT", "/v1/tools/read_discharge", { body: tool, ...(token ? { token } : {}) });
  // 14 March: read provisional, released, then revised by an approved re-read in June.
  ids.march = await read(1250, "P", MARCH_14);
  ids.evaluation = await release("march-flood", "peak discharge 14 March", "1250 cfs", ids.march);
  await claim(
    "peak-0314",
    "Peak discharge at Baton Rouge on 14 March was 1250 cfs",
    "Peak discharge 14 March",
    "1250 cfs",
  );
  // 15 March: read approved, released, re-read in June with the very same value and quality (no revision).
  const day15 = await read(1100, "A", MARCH_15);
  ids.live = await release("march-flood-15", "peak discharge 15 March", "1100 cfs", day15);
  await claim(
    "peak-0315",
    "Peak discharge at Baton Rouge on 15 March was 1100 cfs",
    "Peak discharge 15 March",
    "1100 cfs",
  );
  // The other team holds the same figure on its own reading, released and never revised.
  const theirs = await read(1250, "P", MARCH_14, otherToken);
  await release("march-flood", "peak discharge 14 March", "1250 cfs", theirs, otherToken);
  await claim(
    "peak-0314",
    "Peak discharge at Baton Rouge on 14 March was 1250 cfs",
    "Peak discharge 14 March",
    "1250 cfs",
    otherToken,
  );
  now = Date.parse("2026-06-02T12:00:00.000Z");
  ids.reread = await read(1310, "A", MARCH_14);
  await read(1100, "A", MARCH_15);
  const revisions = (await t.call("GET", "/v1/revisions")).body as { items: { id: string }[] };
  expect(revisions.items).toHaveLength(1);
  revisionId = revisions.items[0]!.id;
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    (http as Server).closeAllConnections();
  });
});

describe("claim_status and revised readings", () => {
  it("answers revised for a ledger claim whose released figure rests on a reading revised since, with exact values", async () => {
    const r = await status(await agent(t.adminToken), { claim_id: "peak-0314" });
    expect(r.answer).toBe("revised");
    expect(r.revised_readings).toEqual([
      {
        crossing_id: ids.march,
        source: SOURCE,
        observed_at: MARCH_14,
        before: { value: 1250, unit: "ft^3/s", quality: "provisional" },
        after: { crossing_id: ids.reread, value: 1310, unit: "ft^3/s", quality: "approved" },
        cite_instead: `ledger:crossings/${ids.reread}`,
        revision_id: revisionId,
        kind: "detected",
        detected_at: "2026-06-02T12:00:00.000Z",
        reason:
          `read_discharge read ${SOURCE} observed ${MARCH_14} again and returned 1310 ft^3/s (approved), ` +
          `where crossing ${ids.march} holds 1250 ft^3/s (provisional)`,
        ledger_claims: ["peak-0314"],
        resting_on: [
          {
            evaluation_id: ids.evaluation,
            task: "march-flood",
            claim_id: "F1",
            claim_text: "Discharge at Baton Rouge, peak discharge 14 March.",
            run: 1,
          },
        ],
      },
    ]);
    expect(r.message).toBe(
      'Claim peak-0314 ("Peak discharge at Baton Rouge on 14 March was 1250 cfs") rests on a revised reading: ' +
        `crossing ${ids.march} (${SOURCE} observed ${MARCH_14}) read 1250 ft^3/s (provisional) when released ` +
        `F1 of evaluation ${ids.evaluation} (task march-flood) cited it; revision ${revisionId} ` +
        "(2026-06-02T12:00:00.000Z) puts it at 1310 ft^3/s (approved). " +
        `State 1310 ft^3/s (approved) and cite ledger:crossings/${ids.reread} instead.`,
    );
    expect(r.claims.map((c) => [c.id, c.status, c.rests_on_revised_reading])).toEqual([["peak-0314", "live", true]]);
  });

  it("finds the same revised reading from a figure in the question's text", async () => {
    const r = await status(await agent(t.adminToken), { text: "was 1250 cfs" });
    expect(r.answer).toBe("revised");
    expect(r.revised_readings.map((x) => [x.crossing_id, x.revision_id, x.ledger_claims])).toEqual([
      [ids.march, revisionId, ["peak-0314"]],
    ]);
    // A text that only a released claim holds (no ledger claim) still leads to it.
    const released = await status(await agent(t.adminToken), {
      text: "discharge at baton rouge, peak discharge 14 march",
    });
    expect([released.answer, released.claims]).toEqual(["revised", []]);
    expect(released.message).toMatch(
      /^"discharge at baton rouge, peak discharge 14 march" rests on a revised reading: /,
    );
  });

  it("keeps a claim live when its reading was only re-read with the same value and quality", async () => {
    const r = await status(await agent(t.adminToken), { claim_id: "peak-0315" });
    expect(r.answer).toBe("live");
    expect(r.revised_readings).toEqual([]);
    expect(r.message).toBe(
      'Claim peak-0315 ("Peak discharge at Baton Rouge on 15 March was 1100 cfs") is live in the ledger: nothing has ' +
        "demoted or superseded it, and no reading it rests on was revised.",
    );
  });

  it("never shows another team's revision: the same claim there, on its own reading, is live", async () => {
    const r = await status(await agent(otherToken), { claim_id: "peak-0314" });
    expect(r.answer).toBe("live");
    expect(r.revised_readings).toEqual([]);
    const byText = await status(await agent(otherToken), { text: "discharge at baton rouge, peak discharge 14 march" });
    expect([byText.answer, byText.revised_readings]).toEqual(["not_in_ledger", []]);
  });
});

// The service's /mcp holds its tools to the same bounds as the REST routes: claims per evaluation, JSON depth and
// well-formed text, each refused as a tool error naming its code, with nothing stored.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../helpers/db.js";

let t: TestApp;
let http: ServerType;
let client: Client;

beforeAll(async () => {
  t = createTestApp();
  http = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  client = new Client({ name: "limits", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${t.adminToken}` } },
    }),
  );
});

afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    (http as Server).closeAllConnections();
  });
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const runs = () => t.db.sqlite.prepare("SELECT count(*) FROM runs").pluck().get() as number;

const facts = (n: number) => ({
  task: { id: "mcp-facts" },
  result: {
    output: "Lengths.",
    claims: Array.from({ length: n }, (_, i) => ({
      id: `F${i}`,
      kind: "fact",
      text: `L${i}.`,
      key: "k",
      value: `${i} m`,
    })),
  },
});

describe("the service's /mcp under the limits", () => {
  it("evaluate_result evaluates 1,000 claims and refuses 1,001 with too_many_claims, recording nothing", async () => {
    const before = runs();
    const at = await call("evaluate_result", facts(1000));
    expect(at.isError).toBeFalsy();
    expect(runs()).toBe(before + 1);
    const past = await call("evaluate_result", facts(1001));
    expect([past.isError, text(past)]).toEqual([
      true,
      "[too_many_claims] the evaluation has 1001 claims, over the limit of 1000 per evaluation: split the result, or raise AGENT_LEDGER_MAX_CLAIMS",
    ]);
    expect(runs()).toBe(before + 1);
  });

  it("refuses arguments nested deeper than 64 levels with too_deep, and a lone surrogate with invalid_text", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    const tooDeep = await call("evaluate_result", { task: { id: "deep" }, result: { output: "x", claims: [], deep } });
    expect([tooDeep.isError, text(tooDeep)]).toEqual([
      true,
      "[too_deep] the tool's arguments hold objects and arrays nested 202 levels deep, over the limit of 64: send flatter JSON, or raise AGENT_LEDGER_MAX_DEPTH",
    ]);
    const lone = await call("audit_answer", { session_id: "x", answer: "ab\ud800cd" });
    expect([lone.isError, text(lone)]).toEqual([
      true,
      "[invalid_text] the text at answer is not valid Unicode: it holds a lone surrogate (such as an escaped \\ud800 without its pair); send the characters themselves, or a complete surrogate pair",
    ]);
  });
});

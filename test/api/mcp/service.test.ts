// The service's own MCP endpoint: a real HTTP server around the app, the SDK's Streamable HTTP client as the agent,
// bearer tokens of two teams.
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createApp } from "../../../src/api/app.js";
import { systemClock } from "../../../src/clock.js";
import { ledgerMcpServer } from "../../../src/api/mcp/tools.js";
import { noTelemetry } from "../../../src/telemetry/telemetry.js";
import { defaultConfig } from "../../../src/config.js";
import { createTestApp, type TestApp } from "../../helpers/db.js";
import { LEDGER_TOOL_NAMES } from "../../helpers/ledger-tools.js";

let t: TestApp;
let http: ServerType;
let url: string;
let otherToken: string;
let sessionId: string;
const clients: Client[] = [];

async function agent(token: string | null, name = "ledger-agent"): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token === null ? {} : { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  // Listed first, so that the client SDK checks every structured answer against the advertised output schema (Ajv).
  await client.listTools();
  return client;
}

const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const example = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../examples/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;

beforeAll(async () => {
  t = createTestApp();
  otherToken = t.teamToken("other-team");
  http = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  // Team default's history: a session whose read_discharge returned 1250 cfs, and a demoted claim.
  await t.call("PUT", "/v1/tools/read_discharge", { body: { params: { station: {} }, returns: { unit: "cfs" } } });
  sessionId = (
    (await t.call("POST", "/v1/sessions", { body: { context: "Peak at Baton Rouge?", labels: { project: "levee" } } }))
      .body as { id: string }
  ).id;
  const c = await t.call("POST", `/v1/sessions/${sessionId}/calls`, {
    body: { tool: "read_discharge", args: { station: "07374000" } },
  });
  await t.call("POST", `/v1/sessions/${sessionId}/calls/${(c.body as { call_id: string }).call_id}/result`, {
    body: { result: 1250 },
  });
  await t.call("POST", "/v1/claims", {
    body: { id: "peak-2026-03", text: "Peak discharge at Baton Rouge was 1.2 million cfs", status: "live" },
  });
  await t.call("POST", "/v1/claims/peak-2026-03/demote", {
    body: {
      reason: "gauge rating revised; the peak was 1.02 million cfs",
      demoted_by: "hydrology-review",
      watch: "1\\.2 million cfs",
    },
  });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    (http as Server).closeAllConnections();
  });
});

describe("the service's /mcp", () => {
  it("answers 401 without a bearer token, with the envelope, and the SDK client cannot connect", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: { code: "unauthenticated", message: "missing bearer token: send Authorization: Bearer <token>" },
    });
    const err = await agent(null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
  });

  it("lists the seven ledger tools, each with a description and an input and output schema", async () => {
    const { tools } = await (await agent(t.adminToken)).listTools();
    expect(tools.map((x) => x.name)).toEqual([
      "convert",
      "compute",
      "audit_answer",
      "evaluate_result",
      "find_sessions",
      "find_crossings",
      "claim_status",
    ]);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe("object");
      // An argument the tool does not take is refused, so the schema says so to the model.
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema?.type).toBe("object");
    }
  });

  it("answers a call that reaches the tools without a team as a refusal, never for some team", async () => {
    // The HTTP route always hands the team on; a transport that carries no authInfo must not fall back to any team.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = ledgerMcpServer({
      store: t.store,
      config: defaultConfig(),
      clock: systemClock,
      logger: { error: () => undefined },
      packFetch: () => Promise.reject(new Error("no pack is read here")),
      telemetry: noTelemetry,
    });
    await server.connect(serverSide);
    const c = new Client({ name: "no-team", version: "1.0.0" });
    await c.connect(clientSide);
    clients.push(c);
    const r = await call(c, "find_sessions", {});
    expect([r.isError, text(r)]).toEqual([true, "[unauthorized] this request carries no team"]);
    await server.close();
  });

  it("refuses an argument a tool does not take, naming it, instead of answering as if it were not sent", async () => {
    const c = await agent(t.adminToken);
    // "label" for "labels": ignored, it would have listed every session of the team as if they matched.
    const r = await call(c, "find_sessions", { label: "project:levee" });
    expect([r.isError, text(r)]).toEqual([
      true,
      'Input validation error: Invalid arguments for tool find_sessions: unknown field "label" ' +
        '(did you mean "labels"?); accepted: labels, tool, code, since, until, limit',
    ]);
  });

  it("convert: 1250 cfs in m^3/s, and a length refused as a tool error with the repair text", async () => {
    const c = await agent(t.adminToken);
    const r = await call(c, "convert", { quantity: "1250 cfs", to_unit: "m^3/s" });
    expect(r.structuredContent).toEqual({ quantity: { value: 35.39605824, unit: "m^3/s" } });
    const refused = await call(c, "convert", { quantity: { value: 12.4, unit: "ft" }, to_unit: "m^3/s" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^\[dimensionality_error\] .*12\.4 ft.*m\^3\/s/);
  });

  it("compute: 5 ft + 1 m, and a comparison", async () => {
    const c = await agent(t.adminToken);
    const sum = (await call(c, "compute", { op: "add", a: "5 ft", b: { value: 1, unit: "m" } })).structuredContent as {
      quantity: { value: number; unit: string };
    };
    expect(sum.quantity.unit).toBe("ft");
    expect(sum.quantity.value).toBeCloseTo(8.280839895, 8);
    expect((await call(c, "compute", { op: "gt", a: "1 m", b: "3 ft" })).structuredContent).toEqual({ result: true });
  });

  it("audit_answer: 1250 cfs is sourced from read_discharge, 99 cfs is not", async () => {
    const r = await call(await agent(t.adminToken), "audit_answer", {
      session_id: sessionId,
      answer: "The discharge was 1250 cfs, up from 99 cfs.",
    });
    const out = r.structuredContent as { ok: boolean; numbers: { text: string; status: string }[] };
    expect(out.ok).toBe(false);
    expect(out.numbers.map((n) => [n.text, n.status])).toEqual([
      ["1250 cfs", "sourced"],
      ["99 cfs", "unsourced"],
    ]);
  });

  it("evaluate_result: the June report is blocked by the March demotion, and released when it supersedes it", async () => {
    const c = await agent(t.adminToken);
    const blocked = (await call(c, "evaluate_result", example("june-report.json"))).structuredContent as {
      status: string;
      blocked_by: string[];
    };
    expect([blocked.status, blocked.blocked_by]).toEqual(["blocked", ["contradiction"]]);
    const released = (await call(c, "evaluate_result", example("june-report-supersedes.json"))).structuredContent as {
      status: string;
    };
    expect(released.status).toBe("released");
    const neither = await call(c, "evaluate_result", { task: { id: "x" } });
    expect([neither.isError, text(neither)]).toEqual([true, "[invalid_request] send exactly one of result and runs"]);
  });

  it("find_sessions and find_crossings: the levee session, and where 35.39605824 m^3/s came from", async () => {
    const c = await agent(t.adminToken);
    const sessions = (await call(c, "find_sessions", { labels: ["project:levee"] })).structuredContent as {
      sessions: { id: string }[];
      more: boolean;
    };
    expect([sessions.sessions.map((s) => s.id), sessions.more]).toEqual([[sessionId], false]);
    const crossings = (await call(c, "find_crossings", { value: 35.39605824, unit: "m^3/s", tool: "read_discharge" }))
      .structuredContent as {
      crossings: { session_id: string; tool: string; direction: string; value: number; unit: string }[];
    };
    // Newest first: this test's session, then the seeded example session's read_discharge.
    expect(crossings.crossings.map((x) => [x.session_id, x.tool, x.direction, x.value, x.unit])[0]).toEqual([
      sessionId,
      "read_discharge",
      "return",
      1250,
      "cfs",
    ]);
    expect(crossings.crossings.every((x) => x.tool === "read_discharge" && x.value === 1250)).toBe(true);
  });

  it("claim_status: a figure caught by a demoted claim's watch, a live claim, and one the ledger does not hold", async () => {
    const c = await agent(t.adminToken);
    const demoted = (await call(c, "claim_status", { text: "the peak was 1.2 million cfs" })).structuredContent as {
      answer: string;
      message: string;
      claims: { id: string; matched_by: string }[];
    };
    expect(demoted.answer).toBe("demoted");
    expect(demoted.message).toBe(
      '"the peak was 1.2 million cfs" matches the watch pattern of claim peak-2026-03 ("Peak discharge at Baton Rouge was ' +
        '1.2 million cfs"), demoted by hydrology-review: gauge rating revised; the peak was 1.02 million cfs. Do not repeat ' +
        "it; a result that corrects it must name peak-2026-03 in supersedes.",
    );
    expect(demoted.claims.map((x) => [x.id, x.matched_by])).toEqual([["peak-2026-03", "watch"]]);
    const unknown = (await call(c, "claim_status", { claim_id: "no-such-claim" })).structuredContent as {
      answer: string;
    };
    expect(unknown.answer).toBe("not_in_ledger");
    const empty = await call(c, "claim_status", {});
    expect([empty.isError, text(empty)]).toEqual([
      true,
      "[invalid_request] give claim_id, or text: the figure or claim to look up",
    ]);
  });
});

describe("team scoping on /mcp", () => {
  it("never shows another team's sessions, crossings or claims, and answers its session id as unknown", async () => {
    const c = await agent(otherToken, "other-agent");
    expect((await call(c, "find_sessions", {})).structuredContent).toEqual({ sessions: [], more: false });
    expect((await call(c, "find_crossings", { value: 1250, unit: "cfs" })).structuredContent).toEqual({
      crossings: [],
      more: false,
    });
    const audit = await call(c, "audit_answer", { session_id: sessionId, answer: "1250 cfs" });
    const missing = await call(c, "audit_answer", { session_id: "01NOSUCHSESSION", answer: "1250 cfs" });
    expect([audit.isError, text(audit)]).toEqual([true, `[not_found] no session '${sessionId}'`]);
    expect(text(missing)).toBe("[not_found] no session '01NOSUCHSESSION'");
    expect(
      (
        (await call(c, "claim_status", { text: "1.2 million cfs", claim_id: "peak-2026-03" })).structuredContent as {
          answer: string;
        }
      ).answer,
    ).toBe("not_in_ledger");
  });

  it("answers 40 requests sent at once, two teams interleaved, each for its own token's team only", async () => {
    const post = (token: string, id: number) =>
      fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "find_sessions", arguments: { labels: ["project:levee"] } },
        }),
      }).then(
        async (r) => (await r.json()) as { id: number; result: { structuredContent: { sessions: { id: string }[] } } },
      );
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => post(i % 2 === 0 ? t.adminToken : otherToken, i)),
    );
    for (const [i, a] of answers.entries()) {
      expect(a.id).toBe(i);
      expect(a.result.structuredContent.sessions.map((s) => s.id)).toEqual(i % 2 === 0 ? [sessionId] : []);
    }
  });

  it("keeps no sessions: initialize answers no Mcp-Session-Id, and GET and DELETE are 405", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.adminToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(((await res.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
      "agent-ledger",
    );
    for (const method of ["GET", "DELETE"]) {
      const refused = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${t.adminToken}`, accept: "text/event-stream" },
      });
      expect(refused.status).toBe(405);
      expect(refused.headers.get("allow")).toBe("POST");
      expect(await refused.json()).toEqual({
        jsonrpc: "2.0",
        error: {
          code: -32000,
          message: `${method} is not served on /mcp: this endpoint keeps no sessions, so there is no stream to open or end; POST each JSON-RPC message`,
        },
        id: null,
      });
    }
  });

  it("answers a call on another instance than the one that saw initialize, for the team of the token that call carries", async () => {
    // A second service over the same database, as a second `serve` behind a load balancer: it never saw this client.
    const second = createApp({ store: t.store, config: defaultConfig() });
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: second.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
    });
    try {
      const secondUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${t.adminToken}` } },
      });
      const client = new Client({ name: "balanced", version: "1.0.0" });
      await client.connect(transport);
      clients.push(client);
      expect(transport.sessionId).toBeUndefined();
      const findSessions = (token: string) =>
        fetch(secondUrl, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": transport.protocolVersion ?? "2025-06-18",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: { name: "find_sessions", arguments: { labels: ["project:levee"] } },
          }),
        });
      const mine = await findSessions(t.adminToken);
      expect(mine.status).toBe(200);
      const found = ((await mine.json()) as { result: { structuredContent: { sessions: { id: string }[] } } }).result;
      expect(found.structuredContent.sessions.map((s) => s.id)).toEqual([sessionId]);
      // The same request with the other team's token reads that team's rows only.
      const theirs = await findSessions(otherToken);
      expect(((await theirs.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
        sessions: [],
        more: false,
      });
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as Server).closeAllConnections();
      });
    }
  });
});

describe("the service's /mcp for an MCP 2026-07-28 client", () => {
  it("negotiates 2026-07-28 with its bearer token: server/discover, tools/list, a tools/call", async () => {
    const transport = new V2Transport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${t.adminToken}` } },
    });
    const client = new V2Client(
      { name: "modern-agent", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getDiscoverResult()?.supportedVersions).toContain("2026-07-28");
      const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(tools).toEqual([...LEDGER_TOOL_NAMES]);
      const r = await client.callTool({ name: "convert", arguments: { quantity: "1250 cfs", to_unit: "m^3/s" } });
      expect(r.structuredContent).toEqual({ quantity: { value: 35.39605824, unit: "m^3/s" } });
    } finally {
      await client.close();
    }
  });

  it("refuses a request whose Mcp-Method header names another method than its body (400, -32020)", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.adminToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
        "mcp-name": "convert",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: {
          name: "convert",
          arguments: { quantity: "1250 cfs", to_unit: "m^3/s" },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });
});

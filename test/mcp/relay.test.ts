// The proxy's message-level relay, seen on the wire: raw JSON-RPC over HTTP to the --listen front (so the ids, the
// errors and the notifications are exactly the ones sent), in front of a low-level SDK Server upstream written here
// that answers over SSE or JSON, delays calls on request, sends a notification before an answer and throws JSON-RPC
// errors.
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  type JSONRPCMessage,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { type ListeningProxy, listenProxy } from "../../src/mcp/listen.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";

const ANNOTATIONS = '[tools.to_mm]\nreturns = "mm"\n[tools.to_mm.params]\ndepth = "m"\n';

type Upstream = { url: string; close(): Promise<void>; cancelled: Promise<string> };

/** The test upstream: echo (after delay_ms), fail (a JSON-RPC error with data), chatty (a log line, then the answer), to_mm. */
async function startUpstream(json: boolean, options: { initializeDelayMs?: number } = {}): Promise<Upstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let onCancel: (text: string) => void = () => undefined;
  const cancelled = new Promise<string>((resolve) => (onCancel = resolve));
  const mcp = () => {
    const server = new Server(
      { name: "relay-upstream", version: "1.0.0" },
      { capabilities: { tools: {}, logging: {} }, instructions: "Call echo to hear yourself." },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: ["echo", "fail", "chatty", "to_mm"].map((name) => ({ name, inputSchema: { type: "object" as const } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const args = (req.params.arguments ?? {}) as Record<string, unknown>;
      switch (req.params.name) {
        case "echo":
          // A cancelled call stops waiting at once (and says which one it was).
          await new Promise<void>((r) => {
            const timer = setTimeout(r, Number(args.delay_ms ?? 0));
            extra.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              onCancel(String(args.text));
              r();
            });
          });
          return { content: [{ type: "text", text: String(args.text) }] };
        case "fail":
          throw new McpError(-32050, "the gauge 07374000 is offline", { gauge: "07374000", retry_after_s: 30 });
        case "chatty":
          await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "working" } });
          return { content: [{ type: "text", text: "done talking" }] };
        case "to_mm":
          return { content: [{ type: "text", text: String(Number(args.depth) * 1000) }] };
        default:
          throw new McpError(-32602, `no tool named ${req.params.name}`);
      }
    });
    return server;
  };
  const http: HttpServer = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (options.initializeDelayMs) await new Promise((r) => setTimeout(r, options.initializeDelayMs));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    await mcp().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    cancelled,
    close: () =>
      new Promise<void>((done) => {
        http.close(() => done());
        http.closeAllConnections();
      }),
  };
}

type Rpc = { jsonrpc: "2.0"; id?: number | string; method: string; params?: Record<string, unknown> };

/** One agent speaking raw JSON-RPC to the front: its own MCP session, every request and answer as sent. */
class RawAgent {
  private session = "";
  constructor(private readonly url: string) {}

  async post(message: Rpc | string): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    };
    if (this.session) headers["mcp-session-id"] = this.session;
    // A string is sent as it is: a value too deep for this process's JSON.stringify is written out by hand.
    const body = typeof message === "string" ? message : JSON.stringify(message);
    const res = await fetch(this.url, { method: "POST", headers, body });
    const sid = res.headers.get("mcp-session-id");
    if (sid) this.session = sid;
    const text = await res.text();
    if (!res.headers.get("content-type")?.startsWith("text/event-stream"))
      return { status: res.status, body: text ? JSON.parse(text) : null };
    // An SSE answer (the upstream's own, asked directly): the data of its event holding a response.
    const events = text
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    return { status: res.status, body: events.find((e) => "id" in e && !("method" in e)) ?? null };
  }

  async initialize(protocolVersion = LATEST_PROTOCOL_VERSION): Promise<unknown> {
    const init = await this.post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-agent", version: "1.0.0" } },
    });
    await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    return init.body;
  }

  call(id: number | string, name: string, args: Record<string, unknown>) {
    return this.post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  }
}

/** The guarding proxy over `upstream`, listening on a free port, and how to stop all three. */
async function relayed(upstream: Upstream, timeoutMs?: number) {
  const proxy = new GuardedProxy({
    upstream: { url: upstream.url },
    annotations: parseAnnotations(ANNOTATIONS, "toml"),
    ledger: await LocalLedger.open(":memory:"),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  await proxy.start();
  const front = await listenProxy(proxy, { host: "127.0.0.1", port: 0 });
  const stop = async () => {
    await front.close();
    await proxy.close();
    await upstream.close();
  };
  return { upstream, proxy, front, stop };
}

for (const answers of ["SSE", "JSON"] as const) {
  describe(`the message-level relay, upstream answering over ${answers}`, () => {
    let upstream: Upstream;
    let proxy: GuardedProxy;
    let front: ListeningProxy;
    let stop: () => Promise<void>;

    beforeAll(async () => {
      ({ upstream, proxy, front, stop } = await relayed(await startUpstream(answers === "JSON")));
    });

    afterAll(() => stop?.());

    it("passes initialize through: the upstream's version, capabilities, identity and instructions, as it answered them", async () => {
      const agent = new RawAgent(front.url);
      expect(await agent.initialize("2025-03-26")).toEqual({
        jsonrpc: "2.0",
        id: 0,
        result: {
          protocolVersion: "2025-03-26",
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: "relay-upstream", version: "1.0.0" },
          instructions: "Call echo to hear yourself.",
        },
      });
    });

    it("answers an unsupported protocol version with the latest one it speaks", async () => {
      const agent = new RawAgent(front.url);
      const init = (await agent.initialize("1999-01-01")) as { result: { protocolVersion: string } };
      expect(init.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    });

    it("never crosses the answers of two clients that use the same request id at the same time", async () => {
      const [a, b] = [new RawAgent(front.url), new RawAgent(front.url)];
      await Promise.all([a.initialize(), b.initialize()]);
      // a's call is slower, so b's answer comes back from the upstream first; both use id 7.
      const [ra, rb, ra2] = await Promise.all([
        a.call(7, "echo", { text: "from a", delay_ms: 60 }),
        b.call(7, "echo", { text: "from b", delay_ms: 5 }),
        a.call("seven", "echo", { text: "from a again", delay_ms: 20 }),
      ]);
      expect(ra.body).toEqual({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "from a" }] } });
      expect(rb.body).toEqual({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "from b" }] } });
      expect(ra2.body).toEqual({
        jsonrpc: "2.0",
        id: "seven",
        result: { content: [{ type: "text", text: "from a again" }] },
      });
    });

    it("passes an upstream JSON-RPC error to the client as the same error: code, message and data", async () => {
      const [agent, direct] = [new RawAgent(front.url), new RawAgent(upstream.url)];
      await Promise.all([agent.initialize(), direct.initialize()]);
      const wire = (await direct.call(3, "fail", {})).body;
      // The SDK's Server puts "MCP error <code>: " in front of the message on the wire; the relay hands it on as sent.
      expect(wire).toEqual({
        jsonrpc: "2.0",
        id: 3,
        error: {
          code: -32050,
          message: "MCP error -32050: the gauge 07374000 is offline",
          data: { gauge: "07374000", retry_after_s: 30 },
        },
      });
      expect((await agent.call(3, "fail", {})).body).toEqual(wire);
    });

    it("answers with the upstream's result when the upstream sends a notification before it", async () => {
      const agent = new RawAgent(front.url);
      await agent.initialize();
      expect((await agent.call(4, "chatty", {})).body).toEqual({
        jsonrpc: "2.0",
        id: 4,
        result: { content: [{ type: "text", text: "done talking" }] },
      });
    });

    it("guards an annotated call on the same relay: the result labelled under the client's own id", async () => {
      const agent = new RawAgent(front.url);
      await agent.initialize();
      const r = (await agent.call(11, "to_mm", { depth: "2 m" })).body as { id: number; result: unknown };
      expect(r.id).toBe(11);
      expect(r.result).toEqual({
        content: [{ type: "text", text: '{"value":2000,"unit":"mm"}' }],
        structuredContent: { value: 2000, unit: "mm" },
      });
    });

    it("sends no answer to a request the client cancelled, and answers the next ones", async () => {
      const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
      const seen: JSONRPCMessage[] = [];
      const waiting = new Map<number, (m: JSONRPCMessage) => void>();
      agentSide.onmessage = (m) => {
        seen.push(m);
        waiting.get((m as { id: number }).id)?.(m);
      };
      await proxy.connect(proxySide);
      await agentSide.start();
      const answer = (id: number) => new Promise<JSONRPCMessage>((resolve) => waiting.set(id, resolve));
      const send = (m: Rpc) => agentSide.send(m as JSONRPCMessage);
      const init = answer(0);
      await send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "c", version: "1" } },
      });
      await init;
      await send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "1", delay_ms: 50 } },
      });
      await send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "changed my mind" },
      });
      // Sent after, answered after: by the time id 3 is answered, id 1's answer would have gone out.
      const third = answer(3);
      await send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "3", delay_ms: 500 } },
      });
      expect(await third).toEqual({ jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "3" }] } });
      expect(seen.map((m) => (m as { id: number }).id)).toEqual([0, 3]);
      await agentSide.close();
    });

    it("answers ping with an empty result", async () => {
      const agent = new RawAgent(front.url);
      await agent.initialize();
      expect((await agent.post({ jsonrpc: "2.0", id: 5, method: "ping" })).body).toEqual({
        jsonrpc: "2.0",
        id: 5,
        result: {},
      });
    });

    it("answers a method it does not serve with JSON-RPC 'Method not found' (-32601)", async () => {
      const agent = new RawAgent(front.url);
      await agent.initialize();
      expect((await agent.post({ jsonrpc: "2.0", id: 6, method: "resources/list", params: {} })).body).toEqual({
        jsonrpc: "2.0",
        id: 6,
        error: { code: -32601, message: "Method not found" },
      });
    });

    it("accepts a client notification without an answer (HTTP 202) and keeps serving the session", async () => {
      const agent = new RawAgent(front.url);
      await agent.initialize();
      const note = await agent.post({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: 1, progress: 1 },
      });
      expect(note).toEqual({ status: 202, body: null });
      expect((await agent.call(8, "echo", { text: "still here" })).body).toEqual({
        jsonrpc: "2.0",
        id: 8,
        result: { content: [{ type: "text", text: "still here" }] },
      });
    });

    it("answers a tools/call without a tool name, or with arguments that are not an object, with 'Invalid params' (-32602)", async () => {
      const agent = new RawAgent(front.url);
      await agent.initialize();
      const invalid = (id: number) => ({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32602,
          message: "Invalid tools/call request: params.name must be a string and params.arguments an object",
        },
      });
      expect((await agent.post({ jsonrpc: "2.0", id: 9, method: "tools/call", params: {} })).body).toEqual(invalid(9));
      const listed = { name: "echo", arguments: ["not", "an", "object"] };
      expect((await agent.post({ jsonrpc: "2.0", id: 10, method: "tools/call", params: listed })).body).toEqual(
        invalid(10),
      );
    });

    it("refuses arguments nested 5,000 levels deep with a clear too_deep tool error, not a stack overflow", async () => {
      const agent = new RawAgent(front.url);
      await agent.initialize();
      const deep = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
      const r = await agent.post(
        `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"to_mm","arguments":{"depth":${deep}}}}`,
      );
      expect(r.body).toEqual({
        jsonrpc: "2.0",
        id: 11,
        result: {
          isError: true,
          content: [
            {
              type: "text",
              text:
                "[too_deep] the arguments of to_mm hold objects and arrays nested 5001 levels deep, over the limit of 64: " +
                "send flatter arguments (AGENT_LEDGER_MAX_DEPTH sets the limit)",
            },
          ],
        },
      });
    });
  });
}

describe("a relayed call the upstream does not answer in time", () => {
  let upstream: Upstream;
  let front: ListeningProxy;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    // Long enough for connecting and listing on a loaded machine; the slow call waits a minute.
    ({ upstream, front, stop } = await relayed(await startUpstream(false), 2000));
  });

  afterAll(() => stop?.());

  it("is a tool error after the timeout, the upstream is told it is cancelled, and the next call is served", async () => {
    const agent = new RawAgent(front.url);
    await agent.initialize();
    expect((await agent.call(1, "echo", { text: "too slow", delay_ms: 60_000 })).body).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [
          {
            type: "text",
            text: "the upstream server did not answer echo in time; the call may or may not have completed",
          },
        ],
        isError: true,
      },
    });
    expect(await upstream.cancelled).toBe("too slow");
    expect((await agent.call(2, "echo", { text: "in time" })).body).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "in time" }] },
    });
  });
});

describe("an agent that sends on before the upstream has answered its initialize", () => {
  it("has what it sends meanwhile held, then sent in order under the upstream's session id", async () => {
    // The front answers over SSE, so the agent has its session id from the headers at once; the upstream answers
    // initialize 300 ms later, and only that answer carries the upstream's own session id.
    const { front, stop } = await relayed(await startUpstream(false, { initializeDelayMs: 300 }));
    try {
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const post = (body: unknown, extra: Record<string, string> = {}) =>
        fetch(front.url, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
      const init = await post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hasty", version: "1" } },
      });
      const session = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-06-18" };
      expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202);
      const called = await post(
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "held" } } },
        session,
      );
      const answerOf = async (res: Response) =>
        [...(await res.text()).matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
      const [initAnswer, callAnswer] = await Promise.all([answerOf(init), answerOf(called)]);
      expect((initAnswer[0]?.result as { serverInfo?: unknown })?.serverInfo).toEqual({
        name: "relay-upstream",
        version: "1.0.0",
      });
      expect(callAnswer).toEqual([{ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "held" }] } }]);
    } finally {
      await stop();
    }
  });
});

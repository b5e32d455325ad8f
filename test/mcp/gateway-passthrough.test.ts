// A gateway of two spawned stdio upstreams behind one --listen front passes through what its upstreams and agents
// send besides tools: sampling, elicitation and roots requests to the agent whose call is in flight, logging
// (setLevel to every upstream, messages namespaced by upstream), completion of namespaced prompts and resource
// templates, resource subscriptions and their updates; and an upstream's tools/list_changed re-lists and re-pins it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import { GatewayProxy } from "../../src/mcp/gateway-proxy.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { type ListeningProxy, listenProxy } from "../../src/mcp/listen.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RICH = join(ROOT, "test/mcp/rich-upstream.ts");
const BIN = join(ROOT, "bin/agent-ledger.js");

let dir = "";
let ledger: LocalLedger;
let gateway: GatewayProxy;
let front: ListeningProxy;

type Heard = { method: string; params: Record<string, unknown> };

/** An agent over Streamable HTTP that answers sampling, elicitation and roots as `who`, and keeps what it hears. */
async function agent(
  who: string,
  transport: StreamableHTTPClientTransport | StdioClientTransport = new StreamableHTTPClientTransport(
    new URL(front.url),
  ),
): Promise<{
  client: Client;
  transport: StreamableHTTPClientTransport | StdioClientTransport;
  heard: Heard[];
  next(method: string): Promise<Heard>;
}> {
  const heard: Heard[] = [];
  const waiters: { method: string; resolve(h: Heard): void }[] = [];
  const client = new Client(
    { name: `agent-${who}`, version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (r, extra) => {
    const asked = (r.params.messages[0]!.content as { text: string }).text;
    // A question asked "briefly" is never answered: the agent waits until the request is cancelled.
    if (asked.endsWith("briefly")) {
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
      heard.push({ method: "sampling cancelled", params: { asked } });
      throw new Error("cancelled");
    }
    return { role: "assistant", model: "test-model", content: { type: "text", text: `${who} answers '${asked}'` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { station: who } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file:///work/${who}` }] }));
  const hear = (method: string) => (n: { params?: unknown }) => {
    const h = { method, params: (n.params ?? {}) as Record<string, unknown> };
    heard.push(h);
    for (const w of waiters.filter((x) => x.method === method)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(h);
    }
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, hear("notifications/tools/list_changed"));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, hear("notifications/resources/updated"));
  client.setNotificationHandler(LoggingMessageNotificationSchema, hear("notifications/message"));
  await client.connect(transport);
  const next = (method: string) =>
    new Promise<Heard>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${who} heard no ${method}`)), 10_000);
      waiters.push({
        method,
        resolve: (h) => {
          clearTimeout(timer);
          resolve(h);
        },
      });
    });
  return { client, transport, heard, next };
}

const textOf = (r: unknown) => ((r as CallToolResult).content as { text: string }[])[0]?.text ?? "";
const call = async (client: Client, name: string) => textOf(await client.callTool({ name, arguments: {} }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-gateway-passthrough-"));
  const command = (name: string) => `command = ["${process.execPath}", "--import", "tsx", "${RICH}", "${name}"]`;
  const text = `[upstreams.a]\n${command("a")}\npin = "warn"\n\n[upstreams.b]\n${command("b")}\npin = "block"\n`;
  ledger = await LocalLedger.open(join(dir, "ledger.db"));
  gateway = new GatewayProxy({ config: parseGatewayConfig(text, join(dir, "gateway.toml")), ledger });
  await gateway.start();
  front = await listenProxy(gateway, { host: "127.0.0.1", port: 0 });
}, 60_000);

afterAll(async () => {
  await front?.close();
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("server-to-client requests through a gateway of two upstreams", () => {
  it("relays sampling, elicitation and roots to the agent whose call is in flight, and its answers back", async () => {
    const one = await agent("one");
    const two = await agent("two");
    try {
      expect(await call(one.client, "a__ask_model")).toBe("model said: one answers 'a asks'");
      expect(await call(two.client, "b__ask_model")).toBe("model said: two answers 'b asks'");
      expect(await call(two.client, "a__ask_user")).toBe('user accept: {"station":"two"}');
      expect(await call(one.client, "b__list_roots")).toBe("file:///work/one");
      // The upstream gives up on its sampling request: the agent is told (notifications/cancelled), its handler stops.
      expect(await call(two.client, "a__ask_model_briefly")).toBe(
        "model did not answer: MCP error -32001: Request timed out",
      );
      await expect
        .poll(() => two.heard.filter((h) => h.method === "sampling cancelled").map((h) => h.params))
        .toEqual([{ asked: "a asks briefly" }]);
    } finally {
      await one.client.close();
      await two.client.close();
    }
  }, 30_000);
});

describe("logging, completion and subscriptions through a gateway of two upstreams", () => {
  it("sends logging/setLevel to every upstream and each log message to the agent, its logger namespaced", async () => {
    const one = await agent("one");
    try {
      expect(await one.client.setLoggingLevel("debug")).toEqual({});
      expect(await call(one.client, "a__level")).toBe("debug");
      expect(await call(one.client, "b__level")).toBe("debug");
      const message = one.next("notifications/message");
      expect(await call(one.client, "b__log")).toBe("logged");
      expect((await message).params).toEqual({ level: "warning", logger: "b__gauges", data: "b logged" });
    } finally {
      await one.client.close();
    }
  }, 30_000);

  it("completes a namespaced prompt and a resource template at the upstream that serves them", async () => {
    const one = await agent("one");
    try {
      expect(one.client.getServerCapabilities()).toMatchObject({ completions: {}, logging: {} });
      const prompt = await one.client.complete({
        ref: { type: "ref/prompt", name: "b__summary" },
        argument: { name: "station", value: "07" },
      });
      expect(prompt.completion.values).toEqual(["b prompt summary station=07"]);
      const template = await one.client.complete({
        ref: { type: "ref/resource", uri: "a://gauge/{id}" },
        argument: { name: "id", value: "g" },
      });
      expect(template.completion.values).toEqual(["a resource a://gauge/{id} id=g"]);
      await expect(
        one.client.complete({ ref: { type: "ref/prompt", name: "c__summary" }, argument: { name: "x", value: "" } }),
      ).rejects.toThrow("no upstream serves a prompt named 'c__summary'; list prompts");
    } finally {
      await one.client.close();
    }
  }, 30_000);

  it("subscribes at the upstream that lists the resource and tells only the subscribed agent of its updates", async () => {
    const one = await agent("one");
    const two = await agent("two");
    try {
      expect(one.client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
      expect(await one.client.subscribeResource({ uri: "b://status" })).toEqual({});
      const updated = one.next("notifications/resources/updated");
      expect(await call(two.client, "b__touch")).toBe("touched b://status");
      expect((await updated).params).toEqual({ uri: "b://status" });
      expect(await call(two.client, "a__touch")).toBe("touched ");
      expect(two.heard.filter((h) => h.method === "notifications/resources/updated")).toEqual([]);
      // The last agent subscribed leaving (its session ended with DELETE) unsubscribes upstream.
      await (one.transport as StreamableHTTPClientTransport).terminateSession();
      await one.client.close();
      await expect.poll(() => call(two.client, "b__touch")).toBe("touched ");
    } finally {
      await one.client.close();
      await two.client.close();
    }
  }, 30_000);
});

describe("an upstream that changes a tool at runtime (notifications/tools/list_changed)", () => {
  it("is listed and pinned again: the drift is stored, warn keeps serving, block hides, and agents are told", async () => {
    const one = await agent("one");
    try {
      const before = (await one.client.listTools()).tools.map((t) => t.name);
      expect(before).toContain("a__gauge");
      expect(before).toContain("b__gauge");

      const changedA = one.next("notifications/tools/list_changed");
      expect(await call(one.client, "a__change_gauge")).toBe("changed");
      await changedA;
      const teamId = ledger.teamId;
      const driftsOf = async (name: string) =>
        (await ledger.store.upstreams.list(teamId)).find((u) => u.name === name)!.drifts;
      const driftA = await driftsOf("a");
      expect(driftA.map((d) => [d.tool, d.kind, d.before?.description, d.after?.description])).toEqual([
        ["gauge", "changed", "Gauge reading of a.", "Gauge reading of a, in cubic feet per second."],
      ]);
      // pin = "warn": still served, with its new description.
      const tools = (await one.client.listTools()).tools;
      expect(tools.find((t) => t.name === "a__gauge")!.description).toBe(
        "Gauge reading of a, in cubic feet per second.",
      );
      expect(await call(one.client, "a__gauge")).toBe("a 1250");

      const changedB = one.next("notifications/tools/list_changed");
      expect(await call(one.client, "b__change_gauge")).toBe("changed");
      await changedB;
      expect((await driftsOf("b")).map((d) => [d.tool, d.kind])).toEqual([["gauge", "changed"]]);
      // pin = "block": hidden, and a call is refused until approved.
      expect((await one.client.listTools()).tools.map((t) => t.name)).not.toContain("b__gauge");
      expect(await call(one.client, "b__gauge")).toMatch(/^\[tool_blocked\] /);
    } finally {
      await one.client.close();
    }
  }, 30_000);
});

describe("agent-ledger mcp --config on stdin/stdout", () => {
  it("relays an upstream's sampling request to its agent and tells it of a changed tool list", async () => {
    const file = join(dir, "stdio.toml");
    const command = (name: string) => `command = ["${process.execPath}", "--import", "tsx", "${RICH}", "${name}"]`;
    writeFileSync(file, `[upstreams.c]\n${command("c")}\n\n[upstreams.d]\n${command("d")}\n`);
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--config", file, "--db", join(dir, "stdio.db")],
      cwd: ROOT,
      stderr: "ignore",
    });
    const one = await agent("one", stdio);
    try {
      expect(await call(one.client, "d__ask_model")).toBe("model said: one answers 'd asks'");
      const changed = one.next("notifications/tools/list_changed");
      expect(await call(one.client, "c__change_gauge")).toBe("changed");
      await changed;
      const gauge = (await one.client.listTools()).tools.find((t) => t.name === "c__gauge")!;
      expect(gauge.description).toBe("Gauge reading of c, in cubic feet per second.");
    } finally {
      await one.client.close();
    }
  }, 90_000);
});

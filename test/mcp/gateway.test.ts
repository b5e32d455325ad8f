// `agent-ledger mcp --listen --upstream-url` in front of an SDK v2 upstream that serves both revisions: 2026-07-28
// agents over raw HTTP (each request on its own) keep one ledger session by their `_meta` session key or their trace,
// 2025-11-25 agents by their Mcp-Session-Id, and a guarded tool that asks for elicitation and sampling is relayed
// round by round and recorded once.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { listenProxy } from "../../src/mcp/listen.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { type HttpUpstream, startHttpUpstream } from "./http-upstream.js";
import { type RawAnswer, rawRequest, standardHeaders } from "./modern-request.js";
import { type ModernUpstream, startModernUpstream } from "./modern-upstream.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const REVISION = "2026-07-28";

const ANNOTATIONS = `
[tools.read_discharge]
returns = { unit = "cfs" }

[tools.read_discharge_checked]
returns = { unit = "cfs" }

[tools.runoff_depth]
returns = { unit = "mm/day" }

[tools.runoff_depth.params]
discharge = "m**3/s"
area = "km**2"
`;

let dir: string;
let db: string;
let upstream: ModernUpstream;
let proxy: ChildProcess;
let url: string;
const stderr: string[] = [];

type Answer = RawAnswer;

/** One 2026-07-28 request over raw HTTP, as the revision asks: headers naming it, the envelope in `_meta`. */
async function modern(
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  return raw(method, params, { ...standardHeaders(REVISION, method, params), ...headers }, REVISION, meta);
}

/** One request with exactly the standard headers given, its envelope naming `revision`. */
const raw = (
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
  revision = REVISION,
  meta: Record<string, unknown> = {},
): Promise<Answer> => rawRequest(url, method, params, headers, revision, meta);

const toolCall = (name: string, args: Record<string, unknown>, meta: Record<string, unknown>) =>
  modern("tools/call", { name, arguments: args }, meta);

const textOf = (r: Record<string, unknown> | undefined) => ((r?.content ?? []) as { text: string }[])[0]?.text ?? "";

/** The ledger's sessions, by label value of `key`. */
function sessions(): { labels: Record<string, string>; call_count: number; blocked_count: number }[] {
  const store = openDb(db);
  try {
    const rows = store.sqlite.prepare("SELECT labels, call_count, blocked_count FROM sessions ORDER BY id").all() as {
      labels: string;
      call_count: number;
      blocked_count: number;
    }[];
    return rows.map((r) => ({ ...r, labels: JSON.parse(r.labels) as Record<string, string> }));
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-gateway-"));
  db = join(dir, "ledger.db");
  const annotations = join(dir, "water.toml");
  writeFileSync(annotations, ANNOTATIONS);
  upstream = await startModernUpstream();
  proxy = spawn(
    process.execPath,
    [BIN, "mcp", "--annotations", annotations, "--db", db, "--upstream-url", upstream.url, "--listen", "127.0.0.1:0"],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
  url = await new Promise<string>((resolve, reject) => {
    proxy.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk.toString("utf8"));
      const m = /over Streamable HTTP at (http:\/\/\S+)/.exec(stderr.join(""));
      if (m) resolve(m[1]!);
    });
    proxy.once("exit", (code) => reject(new Error(`the proxy exited (${code}): ${stderr.join("")}`)));
  });
}, 60_000);

afterAll(async () => {
  proxy?.kill("SIGKILL");
  await upstream?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const CARRY_OVER = /^\[unconverted_carry_over\] for `discharge` received the bare number 1250/;

describe("a 2026-07-28 agent through --listen", () => {
  it("answers server/discover with the upstream's capabilities, and tools/list with units", async () => {
    const discover = await modern("server/discover", {});
    expect(discover.status).toBe(200);
    expect(discover.body.result?.supportedVersions).toContain(REVISION);
    expect(discover.body.result?.capabilities).toHaveProperty("tools");
    const list = await modern("tools/list", {});
    const tools = list.body.result?.tools as {
      name: string;
      inputSchema: { properties: Record<string, Record<string, unknown>> };
    }[];
    expect(tools.find((t) => t.name === "runoff_depth")!.inputSchema.properties.discharge!["x-unit"]).toBe("m^3/s");
  });

  it("refuses a bare 1250 after read_discharge across two requests of one _meta session key, and not another agent's", async () => {
    const a = { "dev.agent-ledger/session": "run-a" };
    const read = await toolCall("read_discharge", { station: "07374000" }, a);
    expect(read.body.result?.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    const refused = await toolCall("runoff_depth", { discharge: 1250, area: 29000 }, a);
    expect(refused.body.result?.isError).toBe(true);
    expect(textOf(refused.body.result)).toMatch(CARRY_OVER);
    const other = await toolCall(
      "runoff_depth",
      { discharge: 1250, area: 29000 },
      { "dev.agent-ledger/session": "run-b" },
    );
    expect(other.body.result?.isError).toBeUndefined();
    expect(other.body.result?.structuredContent).toMatchObject({ unit: "mm/day" });
    const keyed = sessions().filter((s) => s.labels["mcp.session_key"] === "meta");
    expect(keyed.map((s) => [s.call_count, s.blocked_count])).toEqual([
      [2, 1],
      [1, 0],
    ]);
  });

  it("keys the session on the trace id of _meta.traceparent when there is no session key", async () => {
    const t1 = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
    const t1b = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01" };
    const t2 = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01" };
    expect((await toolCall("read_discharge", { station: "07374000" }, t1)).body.result?.isError).toBeUndefined();
    const refused = await toolCall("runoff_depth", { discharge: 1250, area: 29000 }, t1b);
    expect(textOf(refused.body.result)).toMatch(CARRY_OVER);
    const other = await toolCall("runoff_depth", { discharge: 1250, area: 29000 }, t2);
    expect(other.body.result?.isError).toBeUndefined();
    expect(sessions().filter((s) => s.labels["mcp.session_key"] === "trace")).toHaveLength(2);
  });

  it("makes a request with no key its own session, and says so once per client in the log", async () => {
    const before = sessions().length;
    await toolCall("read_discharge", { station: "07374000" }, {});
    const bare = await toolCall("runoff_depth", { discharge: 1250, area: 29000 }, {});
    expect(bare.body.result?.isError).toBeUndefined();
    const after = sessions();
    expect(after.length).toBe(before + 2);
    expect(after.at(-1)!.labels["mcp.session_key"]).toBe("none");
    expect(stderr.join("").match(/raw-agent sent a tools\/call with no session key/g)).toHaveLength(1);
  });

  it("refuses a request whose Mcp-Method header does not match its body, before the upstream sees it", async () => {
    const calls = upstream.calls.length;
    const r = await modern(
      "tools/call",
      { name: "read_discharge", arguments: { station: "1" } },
      {},
      { "mcp-method": "tools/list" },
    );
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe(-32020);
    expect(upstream.calls.length).toBe(calls);
  });

  // The standard request headers of SEP-2243, as the SDK's own handler checks them: each case is refused with its
  // code before the upstream sees it, and nothing is recorded.
  const CALL = { name: "read_discharge", arguments: { station: "1" } };
  const WITHOUT = (...names: string[]) => ({
    "mcp-protocol-version": REVISION,
    "mcp-method": "tools/call",
    "mcp-name": "read_discharge",
    ...Object.fromEntries(names.map((n) => [n, "\u0000drop"])),
  });
  it.each([
    [
      "an Mcp-Name header naming another tool",
      { ...WITHOUT(), "mcp-name": "runoff_depth" },
      /Mcp-Name header names "runoff_depth"/,
    ],
    ["no Mcp-Name header", WITHOUT("mcp-name"), /required Mcp-Name header is absent/],
    ["no Mcp-Method header", WITHOUT("mcp-method"), /required Mcp-Method header is absent/],
    [
      "no MCP-Protocol-Version header",
      WITHOUT("mcp-protocol-version"),
      /required MCP-Protocol-Version header is absent/,
    ],
    ["an Mcp-Name header that is not valid Base64", { ...WITHOUT(), "mcp-name": "=?base64?!!?=" }, /invalid Base64/],
  ])("refuses a tools/call with %s (400, -32020), before the upstream sees it", async (_what, headers, message) => {
    const calls = upstream.calls.length;
    const recorded = sessions().reduce((n, s) => n + s.call_count, 0);
    const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== "\u0000drop"));
    const r = await raw("tools/call", CALL, sent);
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe(-32020);
    expect(r.body.error?.message).toMatch(message);
    expect(upstream.calls.length).toBe(calls);
    expect(sessions().reduce((n, s) => n + s.call_count, 0)).toBe(recorded);
  });

  it("serves a tools/call whose Mcp-Name header is the tool's name in Base64 (=?base64?...?=)", async () => {
    const encoded = `=?base64?${Buffer.from("read_discharge").toString("base64")}?=`;
    const r = await raw(
      "tools/call",
      { name: "read_discharge", arguments: { station: "07374000" } },
      {
        ...WITHOUT(),
        "mcp-name": encoded,
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.result?.structuredContent).toEqual({ value: 1250, unit: "cfs" });
  });

  it("passes a tool whose argument is mirrored into an Mcp-Param header (x-mcp-header): the upstream gets the header", async () => {
    const r = await modern(
      "tools/call",
      { name: "read_region", arguments: { region: "us-west" } },
      {},
      {
        "mcp-param-region": "us-west",
      },
    );
    expect(r.status).toBe(200);
    expect(textOf(r.body.result)).toBe("gauges of us-west");
    expect(upstream.calls.at(-1)).toBe("read_region us-west");
    // A value that is not plain ASCII goes in its Base64 form, both ways.
    const far = `=?base64?${Buffer.from("Île-de-France").toString("base64")}?=`;
    const encoded = await modern(
      "tools/call",
      { name: "read_region", arguments: { region: "Île-de-France" } },
      {},
      {
        "mcp-param-region": far,
      },
    );
    expect(textOf(encoded.body.result)).toBe("gauges of Île-de-France");
  });

  it.each([
    ["no Mcp-Param-Region header", {}, /the Mcp-Param-Region header is absent/],
    ["an Mcp-Param-Region header naming another region", { "mcp-param-region": "us-east" }, /decodes to "us-east"/],
  ])(
    "refuses a call of an x-mcp-header tool with %s (400, -32020), before the upstream sees it",
    async (_w, h, msg) => {
      const calls = upstream.calls.length;
      const r = await modern("tools/call", { name: "read_region", arguments: { region: "us-west" } }, {}, h);
      expect([r.status, r.body.error?.code]).toEqual([400, -32020]);
      expect(r.body.error?.message).toMatch(msg);
      expect(upstream.calls.length).toBe(calls);
    },
  );

  it("learns a tool the upstream added at runtime from the agent's relayed tools/list, and then checks and adds its Mcp-Param header", async () => {
    upstream.grow();
    const list = await modern("tools/list", {});
    const basin = ((list.body.result?.tools ?? []) as { name: string; inputSchema: Record<string, unknown> }[]).find(
      (t) => t.name === "read_basin",
    );
    expect(basin?.inputSchema).toMatchObject({ properties: { basin: { "x-mcp-header": "Basin" } } });
    // The header reached the upstream, made by the proxy from the listing it relayed (the upstream refuses without it).
    const ok = await modern(
      "tools/call",
      { name: "read_basin", arguments: { basin: "Ohio" } },
      {},
      { "mcp-param-basin": "Ohio" },
    );
    expect([ok.status, textOf(ok.body.result)]).toEqual([200, "gauges of basin Ohio"]);
    expect(upstream.calls.at(-1)).toBe("read_basin Ohio");
    // And the proxy's front refuses a call whose header disagrees, before the upstream sees it.
    const calls = upstream.calls.length;
    const wrong = await modern(
      "tools/call",
      { name: "read_basin", arguments: { basin: "Ohio" } },
      {},
      { "mcp-param-basin": "Platte" },
    );
    expect([wrong.status, wrong.body.error?.code, wrong.body.error?.message]).toEqual([
      400,
      -32020,
      'Bad Request: the request headers and body disagree: the Mcp-Param-Basin header decodes to "Platte" but the body carries basin="Ohio"',
    ]);
    expect(upstream.calls.length).toBe(calls);
  });

  it("answers a request for a revision it does not serve with -32022 and the revision it does", async () => {
    const r = await raw(
      "tools/list",
      {},
      { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
      "2099-01-01",
    );
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe(-32022);
    expect((r.body.error as { data?: unknown }).data).toEqual({ supported: [REVISION], requested: "2099-01-01" });
  });

  it("relays elicitation and sampling rounds of a guarded tool and records the call once", async () => {
    const key = { "dev.agent-ledger/session": "run-checked" };
    const first = await toolCall("read_discharge_checked", { station: "07374000" }, key);
    expect(first.body.result?.resultType).toBe("input_required");
    expect(first.body.result?.inputRequests).toHaveProperty("confirm");
    expect(String(first.body.result?.requestState)).toMatch(/^agent-ledger\.1\./);
    const confirm = { action: "accept", content: { ok: true } };
    const second = await modern(
      "tools/call",
      {
        name: "read_discharge_checked",
        arguments: { station: "07374000" },
        inputResponses: { confirm },
        requestState: first.body.result?.requestState,
      },
      key,
    );
    expect(second.body.result?.resultType).toBe("input_required");
    expect(second.body.result?.inputRequests).toHaveProperty("model");
    const model = { role: "assistant", content: { type: "text", text: "yes" }, model: "test" };
    const done = await modern(
      "tools/call",
      {
        name: "read_discharge_checked",
        arguments: { station: "07374000" },
        inputResponses: { model },
        requestState: second.body.result?.requestState,
      },
      key,
    );
    expect(done.body.result?.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    // The third meta-keyed session (after run-a and run-b) holds the one call of its three rounds.
    const keyed = sessions().filter((s) => s.labels["mcp.session_key"] === "meta");
    expect(keyed.map((s) => s.call_count)).toEqual([2, 1, 1]);
    expect(upstream.calls.filter((c) => c.startsWith("read_discharge_checked"))).toEqual([
      "read_discharge_checked 07374000 asks confirm",
      "read_discharge_checked 07374000 asks model",
      "read_discharge_checked 07374000 answers",
    ]);
  });
});

describe("a 2025-11-25 agent through the same front", () => {
  it("works as before: units, carry-over refused within its session, elicitation and sampling relayed, one call recorded", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client(
      { name: "legacy-agent", version: "1.0.0" },
      { capabilities: { elicitation: {}, sampling: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked.push("elicitation");
      return { action: "accept", content: { ok: true } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push("sampling");
      return { role: "assistant", content: { type: "text", text: "yes" }, model: "test" };
    });
    await client.connect(transport);
    try {
      const read = (await client.callTool({
        name: "read_discharge",
        arguments: { station: "07374000" },
      })) as CallToolResult;
      expect(read.structuredContent).toEqual({ value: 1250, unit: "cfs" });
      const refused = (await client.callTool({
        name: "runoff_depth",
        arguments: { discharge: 1250, area: 29000 },
      })) as CallToolResult;
      expect((refused.content[0] as { text: string }).text).toMatch(CARRY_OVER);
      const checked = (await client.callTool({
        name: "read_discharge_checked",
        arguments: { station: "07374000" },
      })) as CallToolResult;
      expect(checked.structuredContent).toEqual({ value: 1250, unit: "cfs" });
      expect(asked).toEqual(["elicitation", "sampling"]);
      const mine = sessions().filter((s) => s.labels.client === "legacy-agent");
      expect(mine.map((s) => [s.labels["mcp.session_key"], s.call_count, s.blocked_count])).toEqual([
        ["mcp-session-id", 3, 1],
      ]);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});

describe("the stdio front in front of the same upstream", () => {
  const stdioArgs = () => [
    BIN,
    "mcp",
    "--annotations",
    join(dir, "water.toml"),
    "--db",
    db,
    "--upstream-url",
    upstream.url,
  ];

  it("serves a 2025-11-25 client the upstream's resources and prompts, as the upstream answers them", async () => {
    const client = new Client({ name: "stdio-agent", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: stdioArgs(), cwd: ROOT, stderr: "ignore" }),
    );
    try {
      expect(client.getServerCapabilities()).toHaveProperty("resources");
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["water://gauges/07374000"]);
      const read = await client.readResource({ uri: "water://gauges/07374000" });
      expect((read.contents[0] as { text: string }).text).toBe("Mississippi River at Baton Rouge");
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["ask_discharge"]);
      const prompt = await client.getPrompt({ name: "ask_discharge" });
      expect((prompt.messages[0]!.content as { text: string }).text).toBe("What is the discharge at 07374000?");
    } finally {
      await client.close();
    }
  });

  it("serves a 2026-07-28 client: server/discover, then calls keyed by its _meta session key", async () => {
    const client = new V2Client(
      { name: "stdio-modern", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: REVISION } } },
    );
    await client.connect(
      new V2StdioTransport({ command: process.execPath, args: stdioArgs(), cwd: ROOT, stderr: "ignore" }),
    );
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const run = { "dev.agent-ledger/session": "stdio-run" };
      const read = await client.callTool({ name: "read_discharge", arguments: { station: "07374000" }, _meta: run });
      expect(read.structuredContent).toEqual({ value: 1250, unit: "cfs" });
      const refused = await client.callTool({
        name: "runoff_depth",
        arguments: { discharge: 1250, area: 29000 },
        _meta: run,
      });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
    const mine = sessions().filter((s) => s.labels.client === "stdio-modern");
    expect(mine.map((s) => [s.labels["mcp.session_key"], s.call_count, s.blocked_count])).toEqual([["meta", 2, 1]]);
  });

  it("answers a request naming a later stateless revision with -32022 and the one it serves, then serves 2026-07-28", async () => {
    const proxy = spawn(process.execPath, stdioArgs(), { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    const said: string[] = [];
    proxy.stderr!.on("data", (chunk: Buffer) => said.push(chunk.toString("utf8")));
    // A proxy that exits fails the test with what it said, rather than leaving it to time out.
    const exited = new Promise<never>((_, reject) =>
      proxy.once("exit", (code) => reject(new Error(`the stdio proxy exited (${code}): ${said.join("")}`))),
    );
    exited.catch(() => undefined);
    try {
      const envelope = (revision: string) => ({
        "io.modelcontextprotocol/protocolVersion": revision,
        "io.modelcontextprotocol/clientInfo": { name: "raw-stdio", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      });
      const lines: Record<string, unknown>[] = [];
      let buffered = "";
      const two = new Promise<void>((resolve) =>
        proxy.stdout!.on("data", (chunk: Buffer) => {
          buffered += chunk.toString("utf8");
          for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
            lines.push(JSON.parse(buffered.slice(0, i)));
            buffered = buffered.slice(i + 1);
          }
          if (lines.length >= 2) resolve();
        }),
      );
      const send = (id: number, method: string, revision: string) =>
        proxy.stdin!.write(
          `${JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: envelope(revision) } })}\n`,
        );
      send(1, "server/discover", "2099-01-01");
      send(2, "server/discover", REVISION);
      await Promise.race([two, exited]);
      expect(lines.find((l) => l.id === 1)).toEqual({
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32022,
          message: "Unsupported protocol version: 2099-01-01",
          data: { supported: [REVISION], requested: "2099-01-01" },
        },
      });
      expect(
        (lines.find((l) => l.id === 2)?.result as { supportedVersions?: unknown } | undefined)?.supportedVersions,
      ).toEqual([REVISION]);
    } finally {
      proxy.kill("SIGKILL");
    }
  });
});

describe("a relayed 2025-11-25 session whose upstream restarts", () => {
  it("ends the agent's session (404 on its next request), and a new session is served by the restarted upstream", async () => {
    const first = await startHttpUpstream();
    const proxy = new GuardedProxy({
      upstream: { url: first.url },
      annotations: loadAnnotations(join(ROOT, "demo/water.toml")),
      ledger: await LocalLedger.open(join(dir, "restart.db")),
    });
    await proxy.start();
    const front = await listenProxy(proxy, { host: "127.0.0.1", port: 0 });
    let second: HttpUpstream | undefined;
    try {
      const transport = new StreamableHTTPClientTransport(new URL(front.url));
      const client = new Client({ name: "restart-agent", version: "1.0.0" });
      await client.connect(transport);
      const read = (await client.callTool({
        name: "read_discharge",
        arguments: { station: "07374000" },
      })) as CallToolResult;
      expect(read.structuredContent).toEqual({ value: 1250, unit: "cfs" });
      await first.stop();
      second = await startHttpUpstream({ port: first.port });
      // The restarted upstream answers 404 to the old session: this call fails, and the agent's session ends with it.
      await client.callTool({ name: "station_name", arguments: { station: "07374000" } }).then(
        (r) => expect(r.isError).toBe(true),
        (e: unknown) => expect(e).toBeInstanceOf(Error),
      );
      await new Promise((r) => setTimeout(r, 50));
      const stale = await fetch(front.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": transport.sessionId!,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} }),
      });
      expect(stale.status).toBe(404);
      await client.close();
      const again = new Client({ name: "restart-agent", version: "1.0.0" });
      await again.connect(new StreamableHTTPClientTransport(new URL(front.url)));
      const reread = (await again.callTool({
        name: "read_discharge",
        arguments: { station: "07374000" },
      })) as CallToolResult;
      expect(reread.structuredContent).toEqual({ value: 1250, unit: "cfs" });
      await again.close();
    } finally {
      await front.close();
      await proxy.close();
      await second?.stop();
    }
  });
});

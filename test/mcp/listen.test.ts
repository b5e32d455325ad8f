// `agent-ledger mcp --upstream-url URL --listen HOST:PORT` as a real process: an HTTP upstream written with the SDK in
// this test, two SDK clients over Streamable HTTP at once, a local database file.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main as cliMain } from "../../src/cli/main.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { VERSION } from "../../src/version.js";
import { type HttpUpstream, startHttpUpstream } from "./http-upstream.js";
import { rawRequest, standardHeaders } from "./modern-request.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const WATER = join(ROOT, "demo/water.toml");

let dir: string;
let db: string;
let upstream: HttpUpstream;
let child: ChildProcess;
let url: string;
const stderr: string[] = [];

async function main(args: string[]): Promise<{ code: number; err: string }> {
  let err = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await cliMain(["node", "agent-ledger", "mcp", ...args]), err };
  } finally {
    spy.mockRestore();
  }
}

async function connect(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-listen-"));
  db = join(dir, "ledger.db");
  upstream = await startHttpUpstream();
  child = spawn(
    process.execPath,
    [BIN, "mcp", "--annotations", WATER, "--db", db, "--upstream-url", upstream.url, "--listen", "127.0.0.1:0"],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
  url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk.toString("utf8"));
      const m = /over Streamable HTTP at (http:\/\/\S+)/.exec(stderr.join(""));
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the proxy exited (${code}): ${stderr.join("")}`)));
  });
});

afterAll(async () => {
  child?.kill("SIGKILL");
  await upstream?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("agent-ledger mcp --listen", () => {
  it("serves two clients at once, each MCP session its own ledger session: carry-over never crosses between them", async () => {
    const [a, b] = await Promise.all([connect("agent-a"), connect("agent-b")]);
    try {
      const [readA, listB] = await Promise.all([
        call(a.client, "read_discharge", { station: "07374000" }),
        b.client.listTools(),
      ]);
      expect(readA.structuredContent).toEqual({ value: 1250, unit: "cfs" });
      expect(
        (
          listB.tools.find((t) => t.name === "runoff_depth")!.inputSchema.properties!.discharge as Record<
            string,
            unknown
          >
        )["x-unit"],
      ).toBe("m^3/s");
      const [refusedA, passedB] = await Promise.all([
        call(a.client, "runoff_depth", { discharge: 1250, area: 29000 }),
        call(b.client, "runoff_depth", { discharge: 1250, area: 29000 }),
      ]);
      expect(refusedA.isError).toBe(true);
      expect((refusedA.content[0] as { text: string }).text).toMatch(
        /^\[unconverted_carry_over\] for `discharge` received the bare number 1250, .* but read_discharge\.return returned 1250 cfs/,
      );
      // Client b never read a discharge, so its bare 1250 is read in the declared m^3/s and passes.
      expect(passedB.isError).toBeUndefined();
      expect((passedB.structuredContent as { unit: string }).unit).toBe("mm/day");
      expect(a.transport.sessionId).not.toBe(b.transport.sessionId);

      const store = openDb(db);
      try {
        const rows = store.sqlite
          .prepare("SELECT labels, call_count, blocked_count FROM sessions ORDER BY id")
          .all() as {
          labels: string;
          call_count: number;
          blocked_count: number;
        }[];
        const byClient = Object.fromEntries(rows.map((r) => [JSON.parse(r.labels).client, r]));
        expect(Object.keys(byClient).sort()).toEqual(["agent-a", "agent-b"]);
        expect(JSON.parse(byClient["agent-a"]!.labels)).toEqual({
          source: "mcp-proxy",
          upstream: upstream.url,
          client: "agent-a",
          mcp_session: a.transport.sessionId,
          "mcp.session_key": "mcp-session-id",
        });
        expect([byClient["agent-a"]!.call_count, byClient["agent-a"]!.blocked_count]).toEqual([2, 1]);
        expect([byClient["agent-b"]!.call_count, byClient["agent-b"]!.blocked_count]).toEqual([1, 0]);
      } finally {
        store.close();
      }
    } finally {
      await a.transport.terminateSession();
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  it("answers 404 for a session that was terminated, and 403 for a request from a web page's origin", async () => {
    const { client, transport } = await connect("agent-c");
    const sid = transport.sessionId!;
    await transport.terminateSession();
    await client.close();
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const gone = await fetch(url, { method: "POST", headers: { ...headers, "mcp-session-id": sid }, body: ping });
    expect(gone.status).toBe(404);
    const foreign = await fetch(url, {
      method: "POST",
      headers: { ...headers, origin: "http://evil.example" },
      body: ping,
    });
    expect(foreign.status).toBe(403);
    // A page of this machine (any loopback name) may; this one is then told to initialize first.
    for (const origin of ["http://localhost:5173", "http://[::1]:5173", "http://127.0.0.2"]) {
      const local = await fetch(url, { method: "POST", headers: { ...headers, origin }, body: ping });
      expect([origin, local.status]).toEqual([origin, 400]);
    }
    expect(await foreign.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "requests from the web origin http://evil.example are not accepted" },
      id: null,
    });
  });
});

describe("agent-ledger mcp --listen, a 2026-07-28 request when the upstream serves only 2025-11-25", () => {
  /** One 2026-07-28 tools/call naming `revision` in its envelope, with exactly the standard headers given. */
  const modernCall = async (headers: Record<string, string>, revision = "2026-07-28") => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "read_discharge",
          arguments: { station: "07374000" },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientInfo": { name: "raw-agent", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const text = await res.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    return { status: res.status, body: JSON.parse(data) as { result?: unknown; error?: Record<string, unknown> } };
  };
  const standard = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "read_discharge" };

  it("answers it itself, guarded, when its headers agree with its body", async () => {
    const r = await modernCall(standard);
    expect(r.status).toBe(200);
    expect((r.body.result as { structuredContent?: unknown }).structuredContent).toEqual({ value: 1250, unit: "cfs" });
  });

  it("shapes the results it answers as 2026-07-28 asks: resultType, the cache fields of a list, the server in _meta", async () => {
    const ask = (method: string, params: Record<string, unknown>) =>
      rawRequest(url, method, params, standardHeaders("2026-07-28", method, params), "2026-07-28");
    const server = { "io.modelcontextprotocol/serverInfo": { name: "agent-ledger", version: VERSION } };
    for (const method of ["tools/list", "server/discover"]) {
      const r = await ask(method, {});
      expect([method, r.status]).toEqual([method, 200]);
      expect(r.body.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private", _meta: server });
    }
    // A call's result is not cacheable: no cache fields.
    const call = await ask("tools/call", { name: "read_discharge", arguments: { station: "07374000" } });
    expect(call.body.result).toMatchObject({ resultType: "complete", _meta: server });
    expect(Object.keys(call.body.result ?? {})).not.toContain("ttlMs");
  });

  it("refuses an Mcp-Name header naming another tool, and a missing one, with 400 and -32020", async () => {
    const other = await modernCall({ ...standard, "mcp-name": "runoff_depth" });
    expect([other.status, other.body.error?.code]).toEqual([400, -32020]);
    expect(other.body.error?.message).toBe(
      'Bad Request: the request headers and body disagree: the body carries params.name="read_discharge" but the ' +
        'Mcp-Name header names "runoff_depth"',
    );
    const { "mcp-name": _, ...unnamed } = standard;
    const missing = await modernCall(unnamed);
    expect([missing.status, missing.body.error?.code]).toEqual([400, -32020]);
  });

  it("refuses a revision it does not serve with 400 and -32022, naming the one it does", async () => {
    const r = await modernCall({ ...standard, "mcp-protocol-version": "2099-01-01" }, "2099-01-01");
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: -32022,
      message: "Unsupported protocol version: 2099-01-01",
      data: { supported: ["2026-07-28"], requested: "2099-01-01" },
    });
  });
});

describe("agent-ledger mcp --listen, request bodies", () => {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const LIMIT = 4 * 1024 * 1024;
  const overLimit = () => ({
    jsonrpc: "2.0",
    error: { code: -32000, message: `the request body is over the limit of ${LIMIT} bytes` },
    id: null,
  });

  it("answers 413 to a body over 4 MiB, whether it states its length or arrives in chunks", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(LIMIT) } });
    const stated = await fetch(url, { method: "POST", headers, body: big });
    expect(stated.status).toBe(413);
    expect(await stated.json()).toEqual(overLimit());
    // A stream body goes out chunked, without a Content-Length: the front counts as it reads.
    const bytes = new TextEncoder().encode(big);
    const chunked = await fetch(url, {
      method: "POST",
      headers,
      duplex: "half",
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < bytes.length; i += 65536) c.enqueue(bytes.subarray(i, i + 65536));
          c.close();
        },
      }),
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual(overLimit());
  });

  it("answers 415 to a POST whose Content-Type is not JSON, of either revision, and accepts a charset", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw-agent", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const modern = {
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope } }),
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    };
    const legacy = {
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "a", version: "1" } },
      }),
      headers: {},
    };
    for (const [type, want] of [
      ["text/plain", 415],
      ["application/x-www-form-urlencoded", 415],
      ["application/json; charset=utf-8", 200],
    ] as const)
      for (const r of [modern, legacy]) {
        const res = await fetch(url, {
          method: "POST",
          headers: { ...headers, "content-type": type, ...r.headers },
          body: r.body,
        });
        expect([type, res.status]).toEqual([type, want]);
        if (want === 415)
          expect(await res.json()).toEqual({
            jsonrpc: "2.0",
            error: { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" },
            id: null,
          });
        else await res.body?.cancel();
      }
  });

  it("answers 400 with a JSON-RPC parse error to a body that is not JSON, stated or chunked", async () => {
    const parseError = {
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error: the request body is not JSON" },
      id: null,
    };
    const stated = await fetch(url, { method: "POST", headers, body: "{not json" });
    expect(stated.status).toBe(400);
    expect(await stated.json()).toEqual(parseError);
    const chunked = await fetch(url, {
      method: "POST",
      headers,
      duplex: "half",
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode("{not "));
          c.enqueue(new TextEncoder().encode("json"));
          c.close();
        },
      }),
    } as RequestInit);
    expect(chunked.status).toBe(400);
    expect(await chunked.json()).toEqual(parseError);
  });

  it("serves an initialize and a call sent with chunked bodies like any other", async () => {
    const chunkedPost = (body: unknown, extra: Record<string, string> = {}) =>
      fetch(url, {
        method: "POST",
        headers: { ...headers, ...extra },
        duplex: "half",
        body: new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(JSON.stringify(body)));
            c.close();
          },
        }),
      } as RequestInit);
    const init = await chunkedPost({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "chunked", version: "1" } },
    });
    expect(init.status).toBe(200);
    const sid = init.headers.get("mcp-session-id")!;
    const session = { "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" };
    expect((await chunkedPost({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202);
    const called = await chunkedPost(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "read_discharge", arguments: { station: "07374000" } },
      },
      session,
    );
    expect(called.status).toBe(200);
    // A relayed session answers on an SSE stream, where what the upstream sends during the call goes too.
    // So the answer is the message with the call's id, wherever on the stream it comes.
    const text = await called.text();
    const messages = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { id?: number });
    const answer = (messages.length ? messages : [JSON.parse(text)]).find((m) => m.id === 2) as
      | { result?: CallToolResult }
      | undefined;
    expect(answer?.result?.structuredContent, `the stream: ${text}`).toEqual({ value: 1250, unit: "cfs" });
    await fetch(url, { method: "DELETE", headers: session });
  });
});

describe("agent-ledger mcp --listen beyond loopback, with a bearer token", () => {
  const TOKEN = "front-token-5f0c2a9e7d31b4c8";
  let open: ChildProcess;
  let openUrl: string;
  const openErr: string[] = [];
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "no-token", version: "1" } },
  });
  const refusal = (message: string) => ({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

  beforeAll(async () => {
    open = spawn(
      process.execPath,
      [
        BIN,
        "mcp",
        "--annotations",
        WATER,
        "--db",
        join(dir, "open.db"),
        "--upstream-url",
        upstream.url,
        "--listen",
        "0.0.0.0:0",
        "--listen-token",
        TOKEN,
      ],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    const port = await new Promise<string>((resolve, reject) => {
      open.stderr!.on("data", (chunk: Buffer) => {
        openErr.push(chunk.toString("utf8"));
        const m = /over Streamable HTTP at http:\/\/0\.0\.0\.0:(\d+)\/mcp, to clients sending the bearer token/.exec(
          openErr.join(""),
        );
        if (m) resolve(m[1]!);
      });
      open.once("exit", (code) => reject(new Error(`the proxy exited (${code}): ${openErr.join("")}`)));
    });
    // It listens on every interface; this machine reaches it over loopback like any other.
    openUrl = `http://127.0.0.1:${port}/mcp`;
  });

  afterAll(() => {
    open?.kill("SIGKILL");
  });

  it("answers 401 with a Bearer challenge to a request without the token, or with another one", async () => {
    const bare = await fetch(openUrl, { method: "POST", headers, body: initialize });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe('Bearer realm="agent-ledger mcp"');
    expect(await bare.json()).toEqual(
      refusal(
        'this proxy needs "Authorization: Bearer <token>" with the token it was started with (AGENT_LEDGER_LISTEN_TOKEN or --listen-token)',
      ),
    );
    const wrong = await fetch(openUrl, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${TOKEN}x` },
      body: initialize,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="agent-ledger mcp", error="invalid_token"');
    expect(await wrong.json()).toEqual(refusal("the bearer token is not the one this proxy was started with"));
    // Basic credentials carrying the token are not a bearer token either.
    const basic = await fetch(openUrl, {
      method: "POST",
      headers: { ...headers, authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` },
      body: initialize,
    });
    expect(basic.status).toBe(401);
  });

  it("serves an SDK client that sends the token: units advertised, a call labelled, its session ended with DELETE", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(openUrl), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    const client = new Client({ name: "with-token", version: "1.0.0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const discharge = tools.find((t) => t.name === "runoff_depth")?.inputSchema.properties?.discharge;
    expect(discharge).toMatchObject({ "x-unit": "m^3/s" });
    const read = await call(client, "read_discharge", { station: "07374000" });
    expect(read.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    const sid = transport.sessionId!;
    // Ending a session needs the token as well: without it the session stays open.
    const unauthorised = await fetch(openUrl, { method: "DELETE", headers: { "mcp-session-id": sid } });
    expect(unauthorised.status).toBe(401);
    expect((await call(client, "read_discharge", { station: "07374000" })).isError).toBeFalsy();
    await transport.terminateSession();
    await client.close();
    const ended = await fetch(openUrl, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${TOKEN}`, "mcp-session-id": sid },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    });
    expect(ended.status).toBe(404);
  });

  it("never writes the token to its log or to the ledger", () => {
    expect(openErr.join("")).not.toContain(TOKEN);
    const ledger = openDb(join(dir, "open.db"));
    try {
      const rows = ledger.sqlite
        .prepare(
          "SELECT labels FROM sessions UNION ALL SELECT args_raw FROM calls UNION ALL SELECT value FROM session_labels",
        )
        .pluck()
        .all() as string[];
      expect(rows.length).toBeGreaterThan(0);
      for (const text of rows) expect(text).not.toContain(TOKEN);
    } finally {
      ledger.close();
    }
  });
});

describe("agent-ledger mcp --upstream-url, refusing to start", () => {
  it("says when the upstream is unreachable, answers an HTTP error, or the flags are wrong", async () => {
    const closed = await startHttpUpstream();
    await closed.stop();
    const other = join(dir, "other.db");
    expect(await main(["--annotations", WATER, "--db", other, "--upstream-url", closed.url])).toEqual({
      code: 1,
      err: `agent-ledger: cannot reach the upstream server at ${closed.url} (connect ECONNREFUSED 127.0.0.1:${closed.port})\n`,
    });
    const locked = await startHttpUpstream({ requireHeader: ["Authorization", "Bearer right"] });
    try {
      const args = ["--annotations", WATER, "--db", other, "--upstream-url", locked.url];
      expect(await main([...args, "--upstream-header", "Authorization: Bearer wrong"])).toEqual({
        code: 1,
        err: `agent-ledger: the upstream server at ${locked.url} answered HTTP 401 (missing or wrong credentials)\n`,
      });
    } finally {
      await locked.stop();
    }
    expect(await main(["--annotations", WATER, "--upstream-url", "ftp://example.org/mcp"])).toEqual({
      code: 2,
      err: "agent-ledger: --upstream-url must be an http(s) URL such as http://127.0.0.1:3000/mcp, received 'ftp://example.org/mcp'\n",
    });
    expect(
      await main(["--annotations", WATER, "--upstream-url", "http://127.0.0.1:1/mcp", "--upstream-header", "NoColon"]),
    ).toEqual({
      code: 2,
      err: `agent-ledger: --upstream-header takes "Name: value", such as "Authorization: Bearer abc", received 'NoColon'\n`,
    });
    expect(
      await main(["--annotations", WATER, "--upstream-url", "http://127.0.0.1:1/mcp", "--", "node", "s.js"]),
    ).toEqual({
      code: 2,
      err: "agent-ledger: give either --upstream-url or a command after --, not both (received 'node')\n",
    });
    expect(await main(["--annotations", WATER, "--listen", "8788", "--", "node", "s.js"])).toEqual({
      code: 2,
      err: "agent-ledger: --listen takes HOST:PORT, such as 127.0.0.1:8788 or [::1]:8788, received '8788'\n",
    });
  });

  it("refuses to listen beyond loopback without a token, before it reaches the upstream or opens a port", async () => {
    // The upstream cannot be reached: a check made after connecting would fail on that instead.
    const args = ["--annotations", WATER, "--db", join(dir, "never.db"), "--upstream-url", "http://127.0.0.1:1/mcp"];
    const open = (address: string) =>
      `agent-ledger: --listen ${address} would serve the guarded tools, and the upstream's credentials with them, to ` +
      "anyone who can reach this machine: set AGENT_LEDGER_LISTEN_TOKEN (or --listen-token) to a secret of 16 or more " +
      'characters, which every client then sends as "Authorization: Bearer <token>", or listen on 127.0.0.1\n';
    expect(await main([...args, "--listen", "0.0.0.0:8788"])).toEqual({ code: 2, err: open("0.0.0.0:8788") });
    expect(await main([...args, "--listen", "[::]:8788"])).toEqual({ code: 2, err: open("[::]:8788") });
    expect(await main([...args, "--listen", "192.168.1.20:8788"])).toEqual({ code: 2, err: open("192.168.1.20:8788") });
    expect(await main([...args, "--listen", "0.0.0.0:8788", "--listen-token", "short"])).toEqual({
      code: 2,
      err: "agent-ledger: --listen-token must be at least 16 characters (received a value that is not shown)\n",
    });
    expect(await main([...args, "--listen-token", "front-token-5f0c2a9e7d31b4c8"])).toEqual({
      code: 2,
      err: "agent-ledger: --listen-token goes with --listen: it is the token clients of the HTTP front must send\n",
    });
    vi.stubEnv("AGENT_LEDGER_LISTEN_TOKEN", "tooshort");
    try {
      expect(await main([...args, "--listen", "0.0.0.0:8788"])).toEqual({
        code: 2,
        err: "agent-ledger: AGENT_LEDGER_LISTEN_TOKEN must be at least 16 characters (received a value that is not shown)\n",
      });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(existsSync(join(dir, "never.db"))).toBe(false);
  });
});

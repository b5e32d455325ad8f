// `agent-ledger mcp --listen -- COMMAND`: a command upstream runs once per agent (a child per 2025-11-25 session, a
// pooled child leased per 2026-07-28 request), so what the child sends during a call (progress, log messages, its
// requests for elicitation and sampling, input_required rounds) reaches the agent that made the call and no other.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/sqlite/db.js";
import { type RawMessage, rawRequest, standardHeaders } from "./modern-request.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const REVISION = "2026-07-28";
const ANNOTATIONS = `
[tools.read_discharge]
returns = { unit = "cfs" }

[tools.read_discharge_checked]
returns = { unit = "cfs" }
`;

let dir: string;
let db: string;
let proxy: ChildProcess;
let url: string;
const stderr: string[] = [];

type Message = RawMessage;

/** One 2026-07-28 request over raw HTTP: every message of its answer stream, and the answer itself. */
async function modern(
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<{ messages: Message[]; result: Record<string, unknown> | undefined }> {
  const r = await rawRequest(url, method, params, standardHeaders(REVISION, method, params), REVISION, meta);
  return { messages: r.messages, result: r.body.result };
}

/** A 2025-11-25 agent connected through the front, answering elicitation and sampling, collecting log messages. */
async function legacyAgent(name: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } });
  const asked: string[] = [];
  const logged: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked.push("elicitation");
    return { action: "accept", content: { ok: true } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked.push("sampling");
    return { role: "assistant", content: { type: "text", text: "yes" }, model: "test" };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logged.push(String(n.params.data));
  });
  await client.connect(transport);
  return {
    client,
    asked,
    logged,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** The ledger's sessions with their labels and call counts. */
function sessions(): { labels: Record<string, string>; call_count: number }[] {
  const store = openDb(db);
  try {
    const rows = store.sqlite.prepare("SELECT labels, call_count FROM sessions ORDER BY id").all() as {
      labels: string;
      call_count: number;
    }[];
    return rows.map((r) => ({ ...r, labels: JSON.parse(r.labels) as Record<string, string> }));
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-children-"));
  db = join(dir, "ledger.db");
  const annotations = join(dir, "water.toml");
  writeFileSync(annotations, ANNOTATIONS);
  proxy = spawn(
    process.execPath,
    [
      BIN,
      "mcp",
      "--annotations",
      annotations,
      "--db",
      db,
      "--listen",
      "127.0.0.1:0",
      "--",
      process.execPath,
      "--import",
      "tsx",
      join(ROOT, "test/mcp/stdio-upstream.ts"),
    ],
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

afterAll(() => {
  proxy?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("a 2025-11-25 agent through --listen in front of a stdio upstream", () => {
  it("receives the progress and log messages of its call, and answers elicitation and sampling of a guarded tool", async () => {
    const agent = await legacyAgent("legacy-stdio-agent");
    try {
      const progress: string[] = [];
      const counted = (await agent.client.callTool(
        { name: "count_stations", arguments: { basin: "ohio" } },
        undefined,
        {
          onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`),
        },
      )) as CallToolResult;
      expect(counted.content).toEqual([{ type: "text", text: "ohio: 3 stations" }]);
      expect(progress).toEqual(["1/2 ohio 1/2", "2/2 ohio 2/2"]);
      expect(agent.logged).toEqual(["counting ohio"]);
      const checked = (await agent.client.callTool({
        name: "read_discharge_checked",
        arguments: { station: "07374000" },
      })) as CallToolResult;
      expect(checked.structuredContent).toEqual({ value: 1250, unit: "cfs" });
      expect(agent.asked).toEqual(["elicitation", "sampling"]);
      const mine = sessions().filter((s) => s.labels.client === "legacy-stdio-agent");
      expect(mine.map((s) => [s.labels["mcp.session_key"], s.call_count])).toEqual([["mcp-session-id", 1]]);
    } finally {
      await agent.close();
    }
  }, 30_000);

  it("keeps two agents' log messages apart when they call at the same time", async () => {
    const [a, b] = await Promise.all([legacyAgent("agent-a"), legacyAgent("agent-b")]);
    try {
      await Promise.all([
        a.client.callTool({ name: "count_stations", arguments: { basin: "missouri" } }),
        b.client.callTool({ name: "count_stations", arguments: { basin: "arkansas" } }),
        a.client.callTool({ name: "count_stations", arguments: { basin: "tennessee" } }),
      ]);
      expect(a.logged.sort()).toEqual(["counting missouri", "counting tennessee"]);
      expect(b.logged).toEqual(["counting arkansas"]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 30_000);
});

describe("a 2026-07-28 agent through --listen in front of a stdio upstream", () => {
  it("receives the progress and log messages of its request in the request's own stream, and no other's", async () => {
    const [ohio, red] = await Promise.all([
      modern("tools/call", { name: "count_stations", arguments: { basin: "ohio" } }, { progressToken: "p-ohio" }),
      modern("tools/call", { name: "count_stations", arguments: { basin: "red" } }, { progressToken: "p-red" }),
    ]);
    const notes = (r: { messages: Message[] }) =>
      r.messages
        .filter((m) => m.method !== undefined)
        .map((m) => `${m.method} ${String(m.params?.message ?? m.params?.data)}`);
    expect(ohio.result?.content).toEqual([{ type: "text", text: "ohio: 3 stations" }]);
    expect(notes(ohio)).toEqual([
      "notifications/message counting ohio",
      "notifications/progress ohio 1/2",
      "notifications/progress ohio 2/2",
    ]);
    expect(notes(red)).toEqual([
      "notifications/message counting red",
      "notifications/progress red 1/2",
      "notifications/progress red 2/2",
    ]);
  }, 30_000);

  it("relays the elicitation and sampling rounds of a guarded tool back to the child that asked, recorded once", async () => {
    const key = { "dev.agent-ledger/session": "stdio-rounds" };
    const call = (extra: Record<string, unknown>) =>
      modern("tools/call", { name: "read_discharge_checked", arguments: { station: "07374000" }, ...extra }, key);
    const first = await call({});
    expect(first.result?.resultType).toBe("input_required");
    expect(Object.keys(first.result?.inputRequests as object)).toEqual(["confirm"]);
    // Inside the proxy's signed state, the child's own state carries the child that asked.
    const inner = JSON.parse(
      Buffer.from(String(first.result?.requestState).split(".")[2]!, "base64url").toString("utf8"),
    ) as { upstream: string };
    expect(inner.upstream).toMatch(/^agent-ledger\.child\.\d+\.round-1$/);
    const second = await call({
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
      requestState: first.result?.requestState,
    });
    expect(Object.keys(second.result?.inputRequests as object)).toEqual(["model"]);
    const done = await call({
      inputResponses: { model: { role: "assistant", content: { type: "text", text: "yes" }, model: "test" } },
      requestState: second.result?.requestState,
    });
    expect(done.result?.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    const keyed = sessions().filter((s) => s.labels["mcp.session_key"] === "meta");
    expect(keyed.map((s) => s.call_count)).toEqual([1]);
  }, 30_000);
});

describe("the children of a stdio upstream behind --listen --max-children 1 --child-idle 15", () => {
  let small: ChildProcess;
  let smallUrl: string;

  /** The process ids of the proxy's children (the upstream it declared the tools with, and the agents'). */
  const childrenOf = (pid: number): number[] => {
    const out = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).trim();
    return out === "" ? [] : out.split(/\s+/).map(Number);
  };

  /** The count of the proxy's children once it reaches `n` (a child that is ending, such as the start-up check's
   * throwaway one, may outlive the moment under load), or the last count seen after 15 s. */
  const settledChildren = async (pid: number, n: number): Promise<number> => {
    let seen = childrenOf(pid).length;
    for (let waited = 0; seen !== n && waited < 15_000; waited += 200) {
      await new Promise((r) => setTimeout(r, 200));
      seen = childrenOf(pid).length;
    }
    return seen;
  };

  const initialize = (id: number) =>
    fetch(smallUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: `bound-${id}`, version: "1" } },
      }),
    });

  beforeAll(async () => {
    const annotations = join(dir, "small.toml");
    writeFileSync(annotations, ANNOTATIONS);
    const lines: string[] = [];
    small = spawn(
      process.execPath,
      [
        BIN,
        "mcp",
        "--annotations",
        annotations,
        "--db",
        join(dir, "small.db"),
        "--listen",
        "127.0.0.1:0",
        "--max-children",
        "1",
        "--child-idle",
        "15",
        "--",
        process.execPath,
        "--import",
        "tsx",
        join(ROOT, "test/mcp/stdio-upstream.ts"),
      ],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    smallUrl = await new Promise<string>((resolve, reject) => {
      small.stderr!.on("data", (chunk: Buffer) => {
        lines.push(chunk.toString("utf8"));
        const m = /over Streamable HTTP at (http:\/\/\S+)/.exec(lines.join(""));
        if (m) resolve(m[1]!);
      });
      small.once("exit", (code) => reject(new Error(`the proxy exited (${code}): ${lines.join("")}`)));
    });
  }, 60_000);

  afterAll(() => {
    small?.kill("SIGKILL");
  });

  it("refuses a second 2025-11-25 session while the first holds its only child, serves 2026-07-28 requests in turn, and stops idle children", async () => {
    const first = await initialize(1);
    expect(first.status).toBe(200);
    const sid = first.headers.get("mcp-session-id")!;
    await first.text();
    expect(await settledChildren(small.pid!, 2)).toBe(2);
    const second = await initialize(2);
    expect(second.status).toBe(503);
    expect(((await second.json()) as { error: { message: string } }).error.message).toBe(
      "too many open MCP sessions (1), each used in the last 300 s; close one with DELETE /mcp",
    );
    const saved = url;
    url = smallUrl;
    try {
      const answers = await Promise.all(
        ["ohio", "red"].map((basin) => modern("tools/call", { name: "count_stations", arguments: { basin } })),
      );
      expect(answers.map((a) => a.result?.content)).toEqual([
        [{ type: "text", text: "ohio: 3 stations" }],
        [{ type: "text", text: "red: 3 stations" }],
      ]);
    } finally {
      url = saved;
    }
    // The declaring child, the session's, and the one pooled child both requests were served by (each stopped after
    // 15 s unused, checked at most every 15 s).
    expect(await settledChildren(small.pid!, 3)).toBe(3);
    await new Promise((r) => setTimeout(r, 35_000));
    const later = await fetch(smallUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sid,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
    });
    expect(later.status).toBe(404);
    expect(await settledChildren(small.pid!, 1)).toBe(1);
  }, 120_000);
});

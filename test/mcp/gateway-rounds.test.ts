// `agent-ledger mcp --config gateway.toml --listen` with two spawned stdio upstreams: an agent's progress token reaches
// the upstream its call goes to, and the upstream's progress reaches that agent's call only; a 2026-07-28 agent (no
// server-to-client requests) gets the upstream's elicitation and sampling as input_required rounds, answers them, and
// gets the tool's result, the guarded call recorded once.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/sqlite/db.js";
import { type RawMessage, rawRequest, standardHeaders } from "./modern-request.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RICH = join(ROOT, "test/mcp/rich-upstream.ts");
const BIN = join(ROOT, "bin/agent-ledger.js");
const REVISION = "2026-07-28";

let dir = "";
let db = "";
let proxy: ChildProcess;
let url = "";
const stderr: string[] = [];

type Message = RawMessage;

/** One 2026-07-28 request over raw HTTP: every message of its answer stream, and the answer itself. */
async function modern(
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<{ messages: Message[]; answer: Message | undefined }> {
  const r = await rawRequest(url, method, params, standardHeaders(REVISION, method, params), REVISION, meta);
  return { messages: r.messages, answer: r.messages.find((m) => m.id === r.body.id) };
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
  dir = mkdtempSync(join(tmpdir(), "ledger-gateway-rounds-"));
  db = join(dir, "ledger.db");
  writeFileSync(join(dir, "a.toml"), '[tools.checked_discharge]\nreturns = { unit = "cfs" }\n');
  const command = (name: string) => `command = ["${process.execPath}", "--import", "tsx", "${RICH}", "${name}"]`;
  const config = join(dir, "gateway.toml");
  writeFileSync(
    config,
    `[upstreams.a]\n${command("a")}\nannotations = "a.toml"\n\n[upstreams.b]\n${command("b")}\npin = "off"\n`,
  );
  proxy = spawn(process.execPath, [BIN, "mcp", "--config", config, "--db", db, "--listen", "127.0.0.1:0"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  url = await new Promise<string>((resolve, reject) => {
    proxy.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk.toString("utf8"));
      const m = /over Streamable HTTP at (http:\/\/\S+)/.exec(stderr.join(""));
      if (m) resolve(m[1]!);
    });
    proxy.once("exit", (code) => reject(new Error(`the gateway exited (${code}): ${stderr.join("")}`)));
  });
}, 60_000);

afterAll(() => {
  proxy?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("progress through a gateway of two upstreams", () => {
  it("gives each 2025-11-25 agent the progress of its own call, under its own token, and no other's", async () => {
    const agents = await Promise.all(
      ["one", "two"].map(async (who) => {
        const transport = new StreamableHTTPClientTransport(new URL(url));
        const client = new Client({ name: `agent-${who}`, version: "1.0.0" });
        await client.connect(transport);
        return { client, transport };
      }),
    );
    try {
      const heard: Record<string, string[]> = { one: [], two: [], three: [] };
      const count = (i: number, who: string, tool: string) =>
        agents[i]!.client.callTool({ name: tool, arguments: {} }, undefined, {
          onprogress: (p) => heard[who]!.push(`${p.progress}/${p.total} ${p.message}`),
        }) as Promise<CallToolResult>;
      // Both agents' SDK clients number their first request alike, so their progress tokens are the same.
      const [one, two, three] = await Promise.all([
        count(0, "one", "a__count"),
        count(1, "two", "b__count"),
        count(1, "three", "a__count"),
      ]);
      expect([one, two, three].map((r) => (r.content[0] as { text: string }).text)).toEqual([
        "a counted 2",
        "b counted 2",
        "a counted 2",
      ]);
      expect(heard).toEqual({
        one: ["1/2 a 1/2", "2/2 a 2/2"],
        two: ["1/2 b 1/2", "2/2 b 2/2"],
        three: ["1/2 a 1/2", "2/2 a 2/2"],
      });
    } finally {
      for (const a of agents) {
        await a.transport.terminateSession().catch(() => undefined);
        await a.client.close();
      }
    }
  }, 30_000);

  it("streams a 2026-07-28 agent's progress in its request's own answer", async () => {
    const [a, b] = await Promise.all([
      modern("tools/call", { name: "a__count", arguments: {} }, { progressToken: "p" }),
      modern("tools/call", { name: "b__count", arguments: {} }, { progressToken: "p" }),
    ]);
    const notes = (r: { messages: Message[] }) =>
      r.messages
        .filter((m) => m.method !== undefined)
        .map((m) => `${m.method} ${m.params?.progressToken} ${m.params?.message}`);
    expect(a.answer?.result?.content).toEqual([{ type: "text", text: "a counted 2" }]);
    expect(notes(a)).toEqual(["notifications/progress p a 1/2", "notifications/progress p a 2/2"]);
    expect(notes(b)).toEqual(["notifications/progress p b 1/2", "notifications/progress p b 2/2"]);
  }, 30_000);
});

describe("input_required rounds of a 2026-07-28 agent through a gateway of two upstreams", () => {
  it("asks the upstream's elicitation, then its sampling, as rounds, and answers the guarded tool's result, recorded once", async () => {
    const key = { "dev.agent-ledger/session": "gateway-rounds" };
    const call = (extra: Record<string, unknown>) =>
      modern("tools/call", { name: "a__checked_discharge", arguments: {}, ...extra }, key);
    const first = await call({});
    expect(first.answer?.result?.resultType).toBe("input_required");
    expect(first.answer?.result?.inputRequests).toEqual({
      "elicitation-1": {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "a: read the discharge?",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        },
      },
    });
    const second = await call({
      inputResponses: { "elicitation-1": { action: "accept", content: { ok: true } } },
      requestState: first.answer?.result?.requestState,
    });
    expect(second.answer?.result?.resultType).toBe("input_required");
    expect(second.answer?.result?.inputRequests).toEqual({
      "sampling-2": {
        method: "sampling/createMessage",
        params: {
          messages: [{ role: "user", content: { type: "text", text: "a: is 1250 plausible?" } }],
          maxTokens: 10,
        },
      },
    });
    const done = await call({
      inputResponses: { "sampling-2": { role: "assistant", content: { type: "text", text: "yes" }, model: "test" } },
      requestState: second.answer?.result?.requestState,
    });
    expect(done.answer?.result?.resultType).toBe("complete");
    expect(done.answer?.result?.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    const keyed = sessions().filter((s) => s.labels["mcp.session_key"] === "meta");
    expect(keyed.map((s) => s.call_count)).toEqual([1]);
  }, 30_000);

  it("asks an unguarded tool's elicitation of the other upstream as a round, then answers its result", async () => {
    const first = await modern("tools/call", { name: "b__ask_user", arguments: {} });
    expect(Object.keys(first.answer?.result?.inputRequests as object)).toEqual(["elicitation-1"]);
    const done = await modern("tools/call", {
      name: "b__ask_user",
      arguments: {},
      inputResponses: { "elicitation-1": { action: "accept", content: { station: "07374000" } } },
      requestState: first.answer?.result?.requestState,
    });
    expect(done.answer?.result?.content).toEqual([{ type: "text", text: 'user accept: {"station":"07374000"}' }]);
  }, 30_000);

  it("answers a retry whose requestState names no call the gateway holds with a tool error, not a second run", async () => {
    const stale = await modern("tools/call", {
      name: "b__ask_user",
      arguments: {},
      inputResponses: { "elicitation-1": { action: "accept", content: {} } },
      requestState: "agent-ledger.gateway.gone",
    });
    expect(stale.answer?.result?.isError).toBe(true);
    expect(stale.answer?.result?.content).toEqual([
      {
        type: "text",
        text:
          "the gateway no longer holds the call this requestState continues (it ended, the agent took longer than " +
          "the gateway's --timeout, or the gateway restarted): send the call again without requestState",
      },
    ]);
  }, 30_000);
});

// What reaches the upstream and what the ledger holds, now that an accepted call is sent upstream while its rows are
// written (CallOptions.decided): a real stdio upstream that logs every call it receives (logging-upstream.ts), the
// proxy in this process, an SDK client in front of it, both over the --listen front (a child per MCP session) and over
// a direct connection (the proxy's own upstream).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { type ListeningProxy, listenProxy } from "../../src/mcp/listen.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TOOLS = ["flow", "flow_error", "flow_crash", "flow_hang"];
const ANNOTATIONS = TOOLS.map(
  (t) => `[tools.${t}]\nreturns = "m**3/s"\n[tools.${t}.params]\ndischarge = "m**3/s"\n`,
).join("");

type Row = {
  tool: string;
  seq: number;
  ok: number;
  args_raw: string;
  result_raw: string | null;
  result_at: string | null;
};

let dir: string;
const opened: { proxy: GuardedProxy; front?: ListeningProxy }[] = [];

/** A proxy over the logging upstream with its own database and call log; `listen` serves it at an HTTP front. */
async function setUp(name: string, listen: boolean) {
  const log = join(dir, `${name}.calls`);
  const ledger = await LocalLedger.open(join(dir, `${name}.db`));
  const proxy = new GuardedProxy({
    upstream: {
      command: process.execPath,
      args: ["--import", "tsx", join(ROOT, "test/mcp/logging-upstream.ts")],
      cwd: ROOT,
      env: { ...process.env, CALL_LOG: log },
      stderr: "ignore",
    },
    annotations: parseAnnotations(ANNOTATIONS, "toml"),
    ledger,
    // Long enough for the upstream to start on a busy machine; the hanging call waits it out.
    timeoutMs: 5000,
  });
  await proxy.start();
  const entry: { proxy: GuardedProxy; front?: ListeningProxy } = { proxy };
  opened.push(entry);
  if (listen) entry.front = await listenProxy(proxy, { host: "127.0.0.1", port: 0 });
  // Each call goes from a client of its own: over the front, its own MCP session (and child).
  const call = async (tool: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    const client = new Client({ name: "record-test", version: "1.0.0" });
    if (entry.front) await client.connect(new StreamableHTTPClientTransport(new URL(entry.front.url)));
    else {
      const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
      await proxy.connect(proxySide);
      await client.connect(agentSide);
    }
    try {
      return (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    } finally {
      await client.close().catch(() => undefined);
    }
  };
  const rows = (tool: string) =>
    (ledger.store as SqliteStore).db.sqlite
      .prepare(
        "SELECT tool, seq, ok, args_raw, result_raw, result_at FROM calls WHERE tool = ? ORDER BY created_at, id",
      )
      .all(tool) as Row[];
  const heard = () =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { tool: string; discharge: number })
      : [];
  return { call, rows, heard };
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-record-"));
});

afterAll(async () => {
  for (const { proxy, front } of opened) {
    await front?.close();
    await proxy.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  { mode: "over the --listen front (a child per session)", listen: true },
  { mode: "over a direct connection", listen: false },
])("the record of a guarded call, $mode", ({ listen }) => {
  let proxy: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    proxy = await setUp(listen ? "listen" : "direct", listen);
  });

  it("records a refused call once and never sends it upstream", async () => {
    const r = await proxy.call("flow", { discharge: { value: 3, unit: "ft" } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      "[dimensionality_error] for `discharge` expected a quantity in m^3/s ([length]^3 [time]^-1), received 3 ft " +
        "([length]); these are different physical quantities and no conversion exists, so send a value in m^3/s or a " +
        "unit convertible to it",
    );
    expect(proxy.rows("flow")).toEqual([
      {
        tool: "flow",
        seq: 1,
        ok: 0,
        args_raw: '{"discharge":{"value":3,"unit":"ft"}}',
        result_raw: null,
        result_at: null,
      },
    ]);
    expect(proxy.heard()).toEqual([]);
  });

  it("sends an accepted call once, in the declared unit, and records it and its labelled result", async () => {
    const r = await proxy.call("flow", { discharge: { value: 2, unit: "m^3/s" } });
    expect(r.structuredContent).toEqual({ value: 2, unit: "m^3/s" });
    expect(proxy.heard()).toEqual([{ tool: "flow", discharge: 2 }]);
    const rows = proxy.rows("flow");
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ seq: 1, ok: 1, args_raw: '{"discharge":{"value":2,"unit":"m^3/s"}}' });
    // The result as the upstream gave it (a bare 2); the label is the answer's.
    expect(rows[1]!.result_raw).toBe("2");
  });

  it("records a call the upstream answers with a tool error once, with no result", async () => {
    const r = await proxy.call("flow_error", { discharge: 4 });
    expect(r).toEqual({ content: [{ type: "text", text: "gauge offline" }], isError: true });
    expect(proxy.heard().filter((h) => h.tool === "flow_error")).toEqual([{ tool: "flow_error", discharge: 4 }]);
    expect(proxy.rows("flow_error")).toEqual([
      { tool: "flow_error", seq: 1, ok: 1, args_raw: '{"discharge":4}', result_raw: null, result_at: null },
    ]);
  });

  it("records a call the upstream never answers once, with no result", async () => {
    const r = await proxy.call("flow_hang", { discharge: 5 });
    expect(r).toEqual({
      content: [
        {
          type: "text",
          text: "the upstream server did not answer flow_hang in time; the call may or may not have completed",
        },
      ],
      isError: true,
    });
    expect(proxy.heard().filter((h) => h.tool === "flow_hang")).toEqual([{ tool: "flow_hang", discharge: 5 }]);
    expect(proxy.rows("flow_hang")).toEqual([
      { tool: "flow_hang", seq: 1, ok: 1, args_raw: '{"discharge":5}', result_raw: null, result_at: null },
    ]);
  });

  it("answers a call the upstream crashes on with a tool error, and records it once, with no result", async () => {
    const r = await proxy.call("flow_crash", { discharge: 6 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      listen
        ? "the link to the upstream server closed while running flow_crash; the call may or may not have completed"
        : "the upstream server exited while running flow_crash (exit code 7); the call was not completed",
    );
    expect(proxy.heard().filter((h) => h.tool === "flow_crash")).toEqual([{ tool: "flow_crash", discharge: 6 }]);
    expect(proxy.rows("flow_crash")).toEqual([
      { tool: "flow_crash", seq: 1, ok: 1, args_raw: '{"discharge":6}', result_raw: null, result_at: null },
    ]);
  });
});

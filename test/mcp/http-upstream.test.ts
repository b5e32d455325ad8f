// The proxy guarding a Streamable HTTP upstream: a real SDK server over HTTP in this process, an SDK client as the agent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { type HttpUpstream, startHttpUpstream } from "./http-upstream.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SECRET: [string, string] = ["Authorization", "Bearer upstream-secret-123"];

let dir: string;
let upstream: HttpUpstream;
let ledger: LocalLedger;
let proxy: GuardedProxy;
let agent: Client;
const logs: string[] = [];

const call = async (name: string, args: Record<string, unknown> = {}) =>
  (await agent.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (r: CallToolResult): string => {
  const block = r.content[0];
  if (block?.type !== "text") throw new Error(`expected a text block, received ${JSON.stringify(r)}`);
  return block.text;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-http-"));
  upstream = await startHttpUpstream({ requireHeader: SECRET });
  ledger = await LocalLedger.open(join(dir, "ledger.db"));
  proxy = new GuardedProxy({
    upstream: { url: upstream.url, headers: { [SECRET[0]]: SECRET[1] } },
    annotations: loadAnnotations(join(ROOT, "demo/water.toml")),
    ledger,
    log: (l) => void logs.push(l),
  });
  await proxy.start();
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(proxySide);
  agent = new Client({ name: "http-agent", version: "1.0.0" });
  await agent.connect(agentSide);
});

afterAll(async () => {
  await agent?.close();
  await proxy?.close();
  await upstream?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a Streamable HTTP upstream behind the proxy", () => {
  it("lists its tools with units: x-unit on runoff_depth.discharge, the return unit in read_discharge", async () => {
    const { tools } = await agent.listTools();
    const discharge = tools.find((t) => t.name === "runoff_depth")!.inputSchema.properties!.discharge as Record<
      string,
      unknown
    >;
    expect(discharge["x-unit"]).toBe("m^3/s");
    expect(tools.find((t) => t.name === "read_discharge")!.description).toBe(
      "Latest discharge at a USGS station, in cubic feet per second. Returns a value in cfs.",
    );
    expect(tools.map((t) => t.name)).toContain("stop_server");
  });

  it("labels read_discharge's bare 1250 as 1250 cfs", async () => {
    const r = await call("read_discharge", { station: "07374000" });
    expect(r.structuredContent).toEqual({ value: 1250, unit: "cfs" });
  });

  it("refuses a bare 1250 after read_discharge as unconverted_carry_over, with the repair text", async () => {
    const r = await call("runoff_depth", { discharge: 1250, area: 29000 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      "[unconverted_carry_over] for `discharge` received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return " +
        'returned 1250 cfs and no conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}',
    );
  });

  it('converts "1250 cfs" so the upstream receives 35.39605824 m3/s, and labels its answer in mm/day', async () => {
    const echoed = JSON.parse(textOf(await call("echo_arguments", { discharge: "1250 cfs" }))) as { discharge: number };
    expect(echoed.discharge).toBeCloseTo(35.39605824, 9);
    const r = await call("runoff_depth", { discharge: "1250 cfs", area: 29000 });
    const out = r.structuredContent as { value: number; unit: string };
    expect(out.unit).toBe("mm/day");
    expect(Math.abs(out.value - 0.10545584248055172)).toBeLessThan(1e-9);
  });

  it("sends every --upstream-header with every request", () => {
    expect(upstream.requests.length).toBeGreaterThan(3);
    for (const h of upstream.requests) expect(h.authorization).toBe(SECRET[1]);
  });

  it("answers a tool error when the upstream stops mid-call, another while it is down, and serves again once it is back", async () => {
    const port = upstream.port;
    const stopped = await call("stop_server");
    expect(stopped).toEqual({
      content: [
        {
          type: "text",
          text: `the upstream server at ${upstream.url} dropped the connection while running stop_server; the call was not completed`,
        },
      ],
      isError: true,
    });
    const down = await call("read_discharge", { station: "07374000" });
    expect(down.isError).toBe(true);
    expect(textOf(down)).toBe(
      `cannot reach the upstream server at ${upstream.url} (connect ECONNREFUSED 127.0.0.1:${port}); the call to read_discharge was not completed`,
    );
    upstream = await startHttpUpstream({ requireHeader: SECRET, port });
    const back = await call("read_discharge", { station: "07374000" });
    expect(back.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    expect(upstream.sessions()).toBe(1);
    // Still one ledger session for this client: its history spans the upstream's restart.
    const again = await call("runoff_depth", { discharge: 1250, area: 29000 });
    expect(textOf(again)).toMatch(/^\[unconverted_carry_over\] for `discharge` received the bare number 1250/);
  });

  it("records the client as one session labelled with the upstream URL, never its headers", () => {
    const rows = (ledger.store as SqliteStore).db.sqlite.prepare("SELECT labels, call_count FROM sessions").all() as {
      labels: string;
      call_count: number;
    }[];
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.labels)).toEqual({
      source: "mcp-proxy",
      upstream: upstream.url,
      client: "http-agent",
      "mcp.session_key": "stdio",
    });
    // The call made while the upstream was down never reached the ledger: nothing was checked or sent.
    expect(rows[0]!.call_count).toBe(6);
  });
});

// End to end: the proxy in this process, the demo server spawned as a real upstream, an SDK client as the agent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";
import type { RawTool } from "../../src/mcp/upstream.js";
import { replayManifest } from "../../src/provenance/replay.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const UPSTREAM = {
  command: process.execPath,
  args: ["--import", "tsx", join(ROOT, "demo/server.ts")],
  cwd: ROOT,
  stderr: "ignore" as const,
};
const RawList = z.looseObject({ tools: z.array(z.looseObject({ name: z.string() })) });

let dir: string;
let ledger: LocalLedger;
let proxy: GuardedProxy;
let agent: Client;
const logs: string[] = [];
const pids = new Set<number>();

const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> => {
  const r = (await agent.callTool({ name, arguments: args })) as CallToolResult;
  if (proxy.upstream.pid) pids.add(proxy.upstream.pid);
  return r;
};
const textOf = (r: CallToolResult): string => {
  const block = r.content[0];
  if (block?.type !== "text") throw new Error(`expected a text block, received ${JSON.stringify(r)}`);
  return block.text;
};
const connectAgent = async (name: string): Promise<Client> => {
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(proxySide);
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(agentSide);
  return client;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-"));
  ledger = await LocalLedger.open(join(dir, "ledger.db"));
  proxy = new GuardedProxy({
    upstream: UPSTREAM,
    annotations: loadAnnotations(join(ROOT, "demo/water.toml")),
    ledger,
    log: (l) => void logs.push(l),
  });
  await proxy.start();
  pids.add(proxy.upstream.pid!);
  agent = await connectAgent("test-agent");
});

afterAll(async () => {
  await agent?.close();
  await proxy?.close();
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone, as it should be
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("the tool list behind the proxy", () => {
  it("carries units: x-unit on runoff_depth.discharge, an outputSchema and the return unit on read_discharge", async () => {
    const { tools } = await agent.listTools();
    const runoff = tools.find((t) => t.name === "runoff_depth")!;
    const discharge = runoff.inputSchema.properties!.discharge as Record<string, unknown>;
    expect(discharge["x-unit"]).toBe("m^3/s");
    expect(discharge.description).toBe("Flow rate. Observed discharge.");
    expect((discharge.anyOf as { type: string }[]).map((v) => v.type)).toEqual(["number", "array", "object", "string"]);
    expect((runoff.inputSchema.properties!.area as Record<string, unknown>)["x-unit"]).toBe("km^2");
    expect(runoff.inputSchema.required).toEqual(["discharge", "area"]);
    const read = tools.find((t) => t.name === "read_discharge")!;
    expect(read.description).toBe(
      "Latest discharge at a USGS station, in cubic feet per second. Returns a value in cfs.",
    );
    expect(read.outputSchema).toMatchObject({ type: "object", required: ["value", "unit"], "x-unit": "cfs" });
    const since = tools.find((t) => t.name === "echo_arguments")!.inputSchema.properties!.since as Record<
      string,
      unknown
    >;
    expect(since).toEqual({
      type: "string",
      format: "date-time",
      description: "Start of the period. ISO 8601 with an explicit UTC offset, interpreted in UTC.",
      "x-tz": "UTC",
    });
    const gauge = tools.find((t) => t.name === "read_gauge")!;
    expect(gauge.description).toBe(
      "Stage (feet) and discharge (cubic feet per second) at a USGS station, as a JSON object. Returns stage in ft on GAGE, discharge in cfs.",
    );
    expect(gauge.outputSchema!.properties).toMatchObject({
      stage: { "x-unit": "ft", "x-datum": "GAGE" },
      discharge: { "x-unit": "cfs" },
    });
  });

  it("lists unannotated tools exactly as the upstream does", async () => {
    const direct = await proxy.upstream.listTools();
    const proxied = (await agent.request({ method: "tools/list", params: {} }, RawList)).tools as RawTool[];
    for (const name of ["station_name", "crash"]) {
      expect(JSON.stringify(proxied.find((t) => t.name === name))).toBe(
        JSON.stringify(direct.find((t) => t.name === name)),
      );
    }
    expect(proxied.map((t) => t.name)).toEqual(direct.map((t) => t.name));
  });
});

describe("calls through the proxy", () => {
  it("labels a bare numeric result: structuredContent plus one JSON text block", async () => {
    const r = await call("read_discharge", { station: "07374000" });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    expect(r.content).toEqual([{ type: "text", text: '{"value":1250,"unit":"cfs"}' }]);
  });

  it("refuses a bare 1250 after read_discharge as unconverted_carry_over, without calling the upstream", async () => {
    const r = await call("runoff_depth", { discharge: 1250, area: 29000 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      "[unconverted_carry_over] for `discharge` received the bare number 1250, which this tool reads as 1250 m^3/s, but read_discharge.return " +
        'returned 1250 cfs and no conversion was applied; resend the value with its original unit, as {"value": 1250, "unit": "cfs"}',
    );
  });

  it('converts "1250 cfs" so the tool receives 35.39605824 m3/s, and labels its answer', async () => {
    const echoed = JSON.parse(textOf(await call("echo_arguments", { discharge: "1250 cfs" }))) as { discharge: number };
    expect(echoed.discharge).toBeCloseTo(35.39605824, 9);
    const r = await call("runoff_depth", { discharge: "1250 cfs", area: 29000 });
    expect(r.isError).toBeUndefined();
    const out = r.structuredContent as { value: number; unit: string };
    expect(out.unit).toBe("mm/day");
    expect(Math.abs(out.value - 0.10545584248055172)).toBeLessThan(1e-9);
  });

  it("refuses a length where a discharge is required, with the repair text", async () => {
    const r = await call("runoff_depth", { discharge: { value: 12.4, unit: "ft" }, area: 29000 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /^\[dimensionality_error\] for `discharge` expected a quantity in m\^3\/s \(\[length\]\^3 \[time\]\^-1\), received 12\.4 ft \(\[length\]\)/,
    );
  });

  it("forwards a series as a JSON array with its gaps, a timestamp as ISO in the declared zone, other arguments untouched", async () => {
    const r = await call("echo_arguments", {
      discharge: { value: [1250, null, 100], unit: "cfs" },
      since: "2026-08-14T09:30:00-05:00",
      note: "as sent",
    });
    const got = JSON.parse(textOf(r)) as { discharge: (number | null)[]; since: string; note: string };
    expect(got.discharge[0]).toBeCloseTo(35.39605824, 9);
    expect(got.discharge[1]).toBeNull();
    expect(got.discharge[2]).toBeCloseTo(2.8316846592, 9);
    expect(got.since).toBe("2026-08-14T14:30:00Z");
    expect(got.note).toBe("as sent");
    expect(r.structuredContent).toBeUndefined();
  });

  it("converts a result whose upstream states its own unit, rather than relabelling it", async () => {
    const r = await call("read_discharge_si", { station: "07374000" });
    const out = r.structuredContent as { value: number; unit: string; station: string };
    expect(out.unit).toBe("cfs");
    expect(out.value).toBeCloseTo(1250, 9);
    expect(out.station).toBe("07374000");
  });

  it("labels each declared key of a result object and keeps the others", async () => {
    const r = await call("read_gauge", { station: "07374000" });
    expect(r.structuredContent).toEqual({
      station: "07374000",
      stage: { value: 12.4, unit: "ft", datum: "GAGE" },
      discharge: { value: 1250, unit: "cfs" },
    });
  });

  it("passes an unannotated tool through unchanged and does not record it", async () => {
    const direct = await proxy.upstream.callTool("station_name", { station: "07374000" });
    const r = await call("station_name", { station: "07374000" });
    expect(r).toEqual(direct.result);
    expect(r.content).toEqual([{ type: "text", text: "Mississippi River at Baton Rouge, LA" }]);
    expect(
      (ledger.store as SqliteStore).db.sqlite
        .prepare("SELECT count(*) AS n FROM calls WHERE tool = 'station_name'")
        .get(),
    ).toEqual({
      n: 0,
    });
  });

  it("tells the agent when the upstream crashes mid-call, and serves the next call from a fresh upstream", async () => {
    const before = proxy.upstream.pid;
    const r = await call("crash");
    expect(r).toEqual({
      content: [
        {
          type: "text",
          text: "the upstream server exited while running crash (exit code 3); the call was not completed",
        },
      ],
      isError: true,
    });
    const next = await call("read_discharge", { station: "07374000" });
    expect(next.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    expect(proxy.upstream.pid).not.toBe(before);
    expect(logs).toContain("upstream exited (exit code 3); starting it again");
  });
});

describe("what the proxy records", () => {
  const sql = <T>(q: string, ...p: unknown[]) => (ledger.store as SqliteStore).db.sqlite.prepare(q).all(...p) as T[];

  it("stores the connection as one labelled session with its calls and crossings", () => {
    const sessions = sql<{ id: string; labels: string; call_count: number; blocked_count: number }>(
      "SELECT id, labels, call_count, blocked_count FROM sessions",
    );
    expect(sessions).toHaveLength(1);
    expect(JSON.parse(sessions[0]!.labels)).toEqual({
      source: "mcp-proxy",
      upstream: `${process.execPath} --import tsx ${join(ROOT, "demo/server.ts")}`,
      client: "test-agent",
      "mcp.session_key": "stdio",
    });
    expect(sessions[0]!.call_count).toBe(9);
    expect(sessions[0]!.blocked_count).toBe(2);
    const calls = sql<{ tool: string; ok: number }>(
      "SELECT tool, ok FROM calls WHERE session_id = ? ORDER BY seq",
      sessions[0]!.id,
    );
    expect(calls.map((c) => `${c.tool}:${c.ok}`)).toEqual([
      "read_discharge:1",
      "runoff_depth:0",
      "echo_arguments:1",
      "runoff_depth:1",
      "runoff_depth:0",
      "echo_arguments:1",
      "read_discharge_si:1",
      "read_gauge:1",
      "read_discharge:1",
    ]);
    const converted = sql<{ raw: string; value: number; unit: string; outcome: string }>(
      "SELECT raw, value, unit, outcome FROM crossings WHERE session_id = ? AND tool = 'runoff_depth' AND param = 'discharge' ORDER BY id",
      sessions[0]!.id,
    );
    expect(converted.map((c) => [c.raw, c.unit, c.outcome])).toEqual([
      ["1250", "m^3/s", "refused"],
      ['"1250 cfs"', "m^3/s", "converted"],
      ['{"value":12.4,"unit":"ft"}', "ft", "refused"],
    ]);
    expect(converted[1]!.value).toBeCloseTo(35.39605824, 9);
    const returned = sql<{ value: number; unit: string }>(
      "SELECT value, unit FROM crossings WHERE session_id = ? AND tool = 'read_discharge' AND direction = 'return'",
      sessions[0]!.id,
    );
    expect(returned).toEqual([
      { value: 1250, unit: "cfs" },
      { value: 1250, unit: "cfs" },
    ]);
  });

  it("replays the recorded session identically", async () => {
    const [{ id }] = sql<{ id: string }>("SELECT id FROM sessions");
    const report = replayManifest(await ledger.store.manifests.load(ledger.teamId, id!));
    expect(report).toMatchObject({ identical: true, calls: 9, difference_count: 0 });
  });

  it("opens a new session for each client connection", async () => {
    const second = await connectAgent("second-agent");
    try {
      // The first connection's read_discharge is not this session's history: a bare 1250 is no carry-over here.
      const r = (await second.callTool({
        name: "runoff_depth",
        arguments: { discharge: 1250, area: 29000 },
      })) as CallToolResult;
      expect(r.isError).toBeUndefined();
      const labels = sql<{ labels: string }>("SELECT labels FROM sessions ORDER BY id").map(
        (s) => JSON.parse(s.labels).client,
      );
      expect(labels).toEqual(["test-agent", "second-agent"]);
    } finally {
      await second.close();
    }
  });
});

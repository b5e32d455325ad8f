// `agent-ledger mcp --config gateway.toml`: two upstreams (one spawned over stdio, one over Streamable HTTP) behind
// one --listen front; and the team's own declarations left exactly as they were.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/sqlite/db.js";
import { createTestApp } from "../helpers/db.js";
import { type HttpUpstream, startHttpUpstream } from "./http-upstream.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const WATER = join(ROOT, "demo/water.toml");

let dir = "";
let db = "";
let http: HttpUpstream;
let proxy: ChildProcess;
let url = "";
let agent: Client;
const stderr: string[] = [];

/** Starts `agent-ledger mcp --config FILE` and answers the URL it serves at (or its exit and stderr). */
function startGateway(
  file: string,
  extra: string[] = [],
): Promise<{ child: ChildProcess; url: string; log: string[] }> {
  const log: string[] = [];
  const child = spawn(process.execPath, [BIN, "mcp", "--config", file, "--db", db, ...extra], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      log.push(chunk.toString("utf8"));
      const m = /over Streamable HTTP at (http:\/\/\S+)/.exec(log.join(""));
      if (m) resolve({ child, url: m[1]!, log });
    });
    child.once("exit", (code) => reject(new Error(`exit ${code}: ${log.join("")}`)));
  });
}

const textOf = (r: CallToolResult) => (r.content as { type: string; text: string }[])[0]?.text ?? "";
const call = async (name: string, args: Record<string, unknown>) =>
  (await agent.callTool({ name, arguments: args })) as CallToolResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-gateway-config-"));
  db = join(dir, "ledger.db");
  http = await startHttpUpstream();
  const file = join(dir, "gateway.toml");
  writeFileSync(
    file,
    `listen = "127.0.0.1:0"

[upstreams.water]
command = ["${process.execPath}", "--import", "tsx", "demo/server.ts"]
annotations = "${WATER}"

[upstreams.remote]
url = "${http.url}"
annotations = "${WATER}"
exclude = ["read_gauge"]
`,
  );
  const started = await startGateway(file);
  proxy = started.child;
  url = started.url;
  stderr.push(...started.log);
  agent = new Client({ name: "gateway-agent", version: "1.0.0" });
  await agent.connect(new StreamableHTTPClientTransport(new URL(url)));
}, 60_000);

afterAll(async () => {
  await agent?.close().catch(() => undefined);
  proxy?.kill("SIGKILL");
  await http?.stop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("a gateway of a stdio and a Streamable HTTP upstream behind one --listen front", () => {
  it("lists both sets of tools under their namespaces, each annotated tool with its unit, the excluded one hidden", async () => {
    const tools = (await agent.listTools()).tools;
    const names = tools.map((t) => t.name);
    expect(names).toContain("water__read_discharge");
    expect(names).toContain("remote__read_discharge");
    expect(names).toContain("water__read_gauge");
    expect(names).not.toContain("remote__read_gauge");
    expect(names.every((n) => n.startsWith("water__") || n.startsWith("remote__"))).toBe(true);
    const runoff = tools.find((t) => t.name === "remote__runoff_depth")!;
    const props = runoff.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props.discharge!["x-unit"]).toBe("m^3/s");
    expect(props.area!["x-unit"]).toBe("km^2");
    expect(tools.find((t) => t.name === "water__read_discharge")!.outputSchema).toMatchObject({ "x-unit": "cfs" });
  });

  it("routes each call to its upstream and catches a bare number carried from one upstream's tool into the other's", async () => {
    const read = await call("water__read_discharge", { station: "07374000" });
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent ?? JSON.parse(textOf(read))).toMatchObject({ unit: "cfs" });
    const requestsBefore = http.requests.length;
    const carried = await call("remote__runoff_depth", { discharge: 1250, area: 29000 });
    expect(carried.isError).toBe(true);
    expect(textOf(carried)).toMatch(/^\[unconverted_carry_over\] for `discharge` received the bare number 1250/);
    // Refused before the upstream saw it.
    expect(http.requests.length).toBe(requestsBefore);
    const rows = openDb(db);
    try {
      const calls = rows.sqlite.prepare("SELECT tool, session_id, ok FROM calls ORDER BY seq").all() as {
        tool: string;
        session_id: string;
        ok: number;
      }[];
      expect(calls.map((c) => [c.tool, c.ok])).toEqual([
        ["water.read_discharge", 1],
        ["remote.runoff_depth", 0],
      ]);
      expect(calls[0]!.session_id).toBe(calls[1]!.session_id);
    } finally {
      rows.close();
    }
  });

  it("refuses a call to an excluded tool with a tool error naming the setting", async () => {
    const r = await call("remote__read_gauge", { station: "07374000" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      "[tool_excluded] tool 'remote__read_gauge' is excluded by the gateway's configuration " +
        "(upstreams.remote.include/exclude); it is not served",
    );
  });

  it("answers a tool error naming the upstream that went down, while the other keeps answering", async () => {
    await http.stop();
    const down = await call("remote__read_discharge", { station: "07374000" });
    expect(down.isError).toBe(true);
    expect(textOf(down)).toMatch(/^upstream 'remote': /);
    const up = await call("water__read_drainage_area", { station: "07374000" });
    expect(up.isError).toBeFalsy();
    expect(textOf(up)).toContain("29000");
    // Listed again, the down upstream's tools are gone and a call names it.
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names.some((n) => n.startsWith("remote__"))).toBe(false);
    expect(names).toContain("water__read_discharge");
    const again = await call("remote__read_discharge", { station: "07374000" });
    expect(textOf(again)).toBe(
      "[upstream_down] upstream 'remote' is not reachable now, so its tool 'remote__read_discharge' cannot be " +
        "called; the other upstreams still answer",
    );
  });
});

describe("a team's own declarations", () => {
  it("stay exactly as they were: a clash under the gateway's ledger name stops the start, naming both", async () => {
    const file = join(dir, "clash.db");
    const team = createTestApp({ file });
    const decl = {
      description: "The team's own runoff depth.",
      params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2", sourced: true } },
      returns: { unit: "mm/day" },
    };
    for (const name of ["runoff_depth", "water.runoff_depth"])
      expect((await team.call("PUT", `/v1/tools/${name}`, { body: decl })).status).toBe(201);
    const before = await Promise.all(
      ["runoff_depth", "water.runoff_depth"].map(async (n) => (await team.call("GET", `/v1/tools/${n}`)).body),
    );
    const gw = join(dir, "clash.toml");
    writeFileSync(
      gw,
      `listen = "127.0.0.1:0"\n[upstreams.water]\ncommand = ["${process.execPath}", "--import", "tsx", "demo/server.ts"]\n` +
        `annotations = "${WATER}"\n`,
    );
    const saved = db;
    db = file;
    try {
      await expect(startGateway(gw)).rejects.toThrow(
        /exit 1: .*upstream 'water' would declare its tool 'runoff_depth' as 'water\.runoff_depth', but the ledger already holds version 1 of 'water\.runoff_depth'/s,
      );
    } finally {
      db = saved;
    }
    const after = await Promise.all(
      ["runoff_depth", "water.runoff_depth"].map(async (n) => (await team.call("GET", `/v1/tools/${n}`)).body),
    );
    expect(after).toEqual(before);
    expect((after[1] as { version: number }).version).toBe(1);
    expect((after[1] as { params: { area: { sourced?: boolean } } }).params.area.sourced).toBe(true);
    team.db.close();
  }, 30_000);
});

describe("a gateway file without listen", () => {
  it("serves its upstreams on stdin/stdout, namespaced, and guards a call", async () => {
    const gw = join(dir, "stdio.toml");
    writeFileSync(
      gw,
      `[upstreams.water]\ncommand = ["${process.execPath}", "--import", "tsx", "demo/server.ts"]\nannotations = "${WATER}"\n`,
    );
    const client = new Client({ name: "stdio-agent", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", "--config", gw, "--db", join(dir, "stdio.db")],
        cwd: ROOT,
        stderr: "ignore",
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("water__runoff_depth");
      const r = (await client.callTool({
        name: "water__runoff_depth",
        arguments: { discharge: "1250 cfs", area: 29000 },
      })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ unit: "mm/day" });
    } finally {
      await client.close();
    }
  }, 30_000);
});

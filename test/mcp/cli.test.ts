// `agent-ledger mcp` as an agent starts it: the CLI over stdio, the demo server behind it, a local database file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main as cliMain } from "../../src/cli/main.js";
import { openDb } from "../../src/store/sqlite/db.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const WATER = join(ROOT, "demo/water.toml");
const SERVER = join(ROOT, "demo/server.ts");
const UPSTREAM = [process.execPath, "--import", "tsx", SERVER, "--", "--flag-for-the-upstream"];

let dir: string;
let db: string;
let transport: StdioClientTransport;
let agent: Client;
let proxyPid: number | null = null;
const stderr: string[] = [];

/** Runs the CLI in this process (each failure here happens before it would serve on stdin). */
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

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-cli-"));
  db = join(dir, "ledger.db");
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--annotations", WATER, "--db", db, "--", ...UPSTREAM],
    cwd: ROOT,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => void stderr.push(chunk.toString("utf8")));
  agent = new Client({ name: "cli-agent", version: "1.0.0" });
  await agent.connect(transport);
  proxyPid = transport.pid;
});

afterAll(async () => {
  await agent?.close();
  if (proxyPid !== null) {
    try {
      process.kill(proxyPid, "SIGKILL");
    } catch {
      // exited on its own, as it should
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("agent-ledger mcp", () => {
  it("serves the upstream's tools with units and converts a call in flight", async () => {
    const { tools } = await agent.listTools();
    expect(
      (tools.find((t) => t.name === "runoff_depth")!.inputSchema.properties!.discharge as Record<string, unknown>)[
        "x-unit"
      ],
    ).toBe("m^3/s");
    expect(tools.find((t) => t.name === "read_discharge")!.description).toBe(
      "Latest discharge at a USGS station, in cubic feet per second. Returns a value in cfs.",
    );
    const r = (await agent.callTool({
      name: "runoff_depth",
      arguments: { discharge: "1250 cfs", area: 29000 },
    })) as CallToolResult;
    const out = r.structuredContent as { value: number; unit: string };
    expect(out.unit).toBe("mm/day");
    expect(Math.abs(out.value - 0.10545584248055172)).toBeLessThan(1e-9);
    expect(stderr.join("")).toContain("agent-ledger mcp: guarding 6 annotated tool(s) of ");
  });

  it("exits when the agent disconnects, leaving the session in the database with the upstream's own -- intact", async () => {
    await agent.close();
    const deadline = Date.now() + 10_000;
    const alive = () => {
      try {
        process.kill(proxyPid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
    const store = openDb(db);
    try {
      const rows = store.sqlite.prepare("SELECT labels, call_count FROM sessions").all() as {
        labels: string;
        call_count: number;
      }[];
      expect(rows).toHaveLength(1);
      expect(JSON.parse(rows[0]!.labels)).toEqual({
        source: "mcp-proxy",
        upstream: UPSTREAM.join(" "),
        client: "cli-agent",
        "mcp.session_key": "stdio",
      });
      expect(rows[0]!.call_count).toBe(1);
    } finally {
      store.close();
    }
  });

  it("refuses to start without an upstream command, with a bad annotation file or ledger flags, or an upstream that cannot start", async () => {
    expect(await main(["--annotations", WATER])).toEqual({
      code: 2,
      err:
        "agent-ledger: give the upstream server command after --, as in: agent-ledger mcp --annotations water.toml -- node server.js" +
        ", or its URL with --upstream-url http://host:port/mcp\n",
    });
    const missing = await main(["--annotations", join(dir, "nope.toml"), "--", "node", "server.js"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^agent-ledger: .*nope\.toml: cannot read the annotation file: ENOENT/);
    expect(
      await main(["--annotations", WATER, "--ledger-url", "http://127.0.0.1:8787", "--", "node", "server.js"]),
    ).toEqual({
      code: 2,
      err: "agent-ledger: --ledger-url needs --token, a bearer token of the team to record into\n",
    });
    const absent = join(dir, "no-such-server");
    expect(await main(["--annotations", WATER, "--db", join(dir, "other.db"), "--", absent])).toEqual({
      code: 1,
      err: `agent-ledger: cannot start the upstream server '${absent}': spawn ${absent} ENOENT\n`,
    });
    expect(
      await main([
        "--annotations",
        WATER,
        "--db",
        join(dir, "other.db"),
        "--",
        process.execPath,
        "-e",
        "process.exit(4)",
      ]),
    ).toEqual({
      code: 1,
      err: `agent-ledger: cannot start the upstream server '${process.execPath} -e process.exit(4)': it exited during startup (exit code 4)\n`,
    });
  });

  it("refuses --max-children and --child-idle out of range, or without --listen and an upstream command", async () => {
    const listen = ["--annotations", WATER, "--listen", "127.0.0.1:0"];
    expect(await main([...listen, "--max-children", "0", "--", "node", "server.js"])).toEqual({
      code: 2,
      err: "agent-ledger: --max-children must be a whole number from 1 to 1000, received '0'\n",
    });
    expect(await main([...listen, "--child-idle", "-1", "--", "node", "server.js"])).toEqual({
      code: 2,
      err: "agent-ledger: --child-idle must be a positive number of seconds, received '-1'\n",
    });
    expect(await main(["--annotations", WATER, "--max-children", "4", "--", "node", "server.js"])).toEqual({
      code: 2,
      err: "agent-ledger: --max-children and --child-idle go with --listen and an upstream command after --\n",
    });
  });
});

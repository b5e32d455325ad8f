// A namespace keeps an upstream's tools apart from the team's own tools of the same name in the ledger.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const UPSTREAM = {
  command: process.execPath,
  args: ["--import", "tsx", join(ROOT, "demo/server.ts")],
  cwd: ROOT,
  stderr: "ignore" as const,
};

let dir = "";
let proxy: GuardedProxy;
let agent: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-mcp-ns-"));
  proxy = new GuardedProxy({
    upstream: UPSTREAM,
    annotations: loadAnnotations(join(ROOT, "demo/water.toml")),
    ledger: await LocalLedger.open(join(dir, "ledger.db")),
    namespace: "water",
  });
  await proxy.start();
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect(proxySide);
  agent = new Client({ name: "ns-agent", version: "1.0.0" });
  await agent.connect(agentSide);
});

afterAll(async () => {
  await agent?.close();
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("--namespace", () => {
  it("records the upstream's tools as water.<tool> while the agent and the upstream keep the plain names", async () => {
    const read = (await agent.callTool({
      name: "read_discharge",
      arguments: { station: "07374000" },
    })) as CallToolResult;
    expect(read.structuredContent).toEqual({ value: 1250, unit: "cfs" });
    const refused = (await agent.callTool({
      name: "runoff_depth",
      arguments: { discharge: 1250, area: 29000 },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toMatch(
      /but water\.read_discharge\.return returned 1250 cfs/,
    );
    const db = new Database(join(dir, "ledger.db"), { readonly: true });
    const names = (db.prepare("SELECT DISTINCT name FROM tools ORDER BY name").all() as { name: string }[]).map(
      (r) => r.name,
    );
    db.close();
    expect(names).toContain("water.read_discharge");
    expect(names).not.toContain("read_discharge");
  });
});

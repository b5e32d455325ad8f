// A revision found through the MCP proxy: the upstream re-publishes a reading with another value and quality.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, describe, expect, it } from "vitest";
import { loadAnnotations } from "../../src/mcp/annotations.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { GuardedProxy } from "../../src/mcp/proxy.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ledger-mcp-revisions-"));
let proxy: GuardedProxy | undefined;

afterAll(async () => {
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("revisions through the MCP proxy", () => {
  it("records a revision when the upstream re-reads the same observation with another value and quality", async () => {
    const annotations = join(dir, "water.toml");
    writeFileSync(annotations, '[tools.read_discharge_record]\nreturns = { unit = "cfs" }\n');
    const ledger = await LocalLedger.open(join(dir, "ledger.db"));
    proxy = new GuardedProxy({
      upstream: {
        command: process.execPath,
        args: ["--import", "tsx", join(ROOT, "test/fixtures/mcp/revising-server.ts")],
        cwd: ROOT,
        stderr: "ignore",
      },
      annotations: loadAnnotations(annotations),
      ledger,
      log: () => {},
    });
    await proxy.start();
    const read = async (name: string) => {
      const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
      await proxy!.connect(proxySide);
      const agent = new Client({ name, version: "1.0.0" });
      await agent.connect(agentSide);
      const r = await agent.callTool({ name: "read_discharge_record", arguments: { station: "07374000" } });
      await agent.close();
      return r.structuredContent;
    };
    expect(await read("march")).toEqual({
      value: 1250,
      unit: "cfs",
      quality: "provisional",
      source: "usgs:07374000:00060",
      observed_at: "2026-03-14T10:15:00-05:00",
    });
    await read("june");
    const page = await ledger.store.revisions!.list(ledger.teamId, { limit: 10 });
    expect(
      page.items.map((r) => [
        r.kind,
        r.source,
        r.observed_at,
        r.before.value,
        r.before.quality,
        r.after.value,
        r.after.quality,
      ]),
    ).toEqual([
      ["detected", "usgs:07374000:00060", "2026-03-14T10:15:00-05:00", 1250, "provisional", 1310, "approved"],
    ]);
    expect(page.items[0]!.revised_by).toBe("read_discharge_record");
  }, 120_000);
});

// `agent-ledger mcp --config F --ledger-url URL`: the calls the gateway refuses before the upstream (a rate limit, a
// tool blocked by its pin) are stored in the running service as refused calls, with their codes and repair messages.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definitionOf, toolDigest } from "../../src/gateway/pins.js";
import { createTestApp, type TestApp } from "../helpers/db.js";
import { type ListedTool, type PinUpstream, startPinUpstream } from "./pin-upstream.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const WATER = join(ROOT, "demo/water.toml");

const READ: ListedTool = {
  name: "read_discharge",
  description: "Latest discharge at a station.",
  inputSchema: { type: "object", properties: { station: { type: "string" } }, required: ["station"] },
};

let dir = "";
let t: TestApp;
let service: ServerType;
let serviceUrl = "";
let upstream: PinUpstream;
const tools: ListedTool[] = [{ ...READ }];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-gateway-remote-refusals-"));
  t = createTestApp();
  upstream = await startPinUpstream(tools);
  await new Promise<void>((resolve) => {
    service = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) => {
      serviceUrl = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});

afterAll(async () => {
  await upstream?.stop();
  await new Promise<void>((done) => service?.close(() => done()));
  rmSync(dir, { recursive: true, force: true });
});

const textOf = (r: CallToolResult) => (r.content as { text: string }[])[0]?.text ?? "";

type StoredCall = {
  tool: string;
  ok: boolean;
  tool_digest: string | null;
  violations: { code: string; param: string | null; message: string; repair: string }[];
};

describe("a gateway recording into a service over --ledger-url", () => {
  it("stores a rate-limited and a blocked call as refused calls with their codes and repair messages", async () => {
    const file = join(dir, "gateway.toml");
    writeFileSync(
      file,
      `[upstreams.hydro]\nurl = "${upstream.url}"\nannotations = "${WATER}"\npin = "block"\n\n` +
        `[upstreams.hydro.tools.read_discharge]\nrate = "1/min"\n`,
    );
    const agent = new Client({ name: "remote-agent", version: "1.0.0" });
    await agent.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", "--config", file, "--ledger-url", serviceUrl, "--token", t.adminToken],
        cwd: ROOT,
        stderr: "ignore",
      }),
    );
    try {
      const call = async () =>
        (await agent.callTool({ name: "hydro__read_discharge", arguments: { station: "07374000" } })) as CallToolResult;
      expect((await call()).isError).toBeFalsy();
      const limited = await call();
      expect(limited.isError).toBe(true);
      expect(textOf(limited)).toMatch(/^\[rate_limited\] rate limit reached: .* try again in \d+ s$/);
      // The upstream changes the tool's description: the next listing is a drift, and pin = "block" refuses the tool.
      tools[0] = { ...READ, description: "Latest discharge at a station, in m3/s." };
      expect((await agent.listTools()).tools.map((x) => x.name)).toEqual([]);
      const blocked = await call();
      expect(blocked.isError).toBe(true);
      expect(textOf(blocked)).toMatch(/^\[tool_blocked\] /);
      expect(upstream.calls).toEqual(["read_discharge"]);

      const all = (await t.call("GET", "/v1/sessions")).body as {
        items: { id: string; labels: Record<string, string> }[];
      };
      const sessions = all.items.filter((s) => s.labels.source === "mcp-proxy");
      expect(sessions).toHaveLength(1);
      const listed = (await t.call("GET", `/v1/sessions/${sessions[0]!.id}/calls`)).body as {
        items: StoredCall[];
      };
      const pinned = toolDigest(definitionOf(READ));
      expect(listed.items.map((c) => [c.tool, c.ok, c.violations.map((v) => v.code)])).toEqual([
        ["hydro.read_discharge", true, []],
        ["hydro.read_discharge", false, ["rate_limited"]],
        ["hydro.read_discharge", false, ["tool_blocked"]],
      ]);
      const [, rate, block] = listed.items;
      expect(rate!.violations[0]!.repair).toBe(textOf(limited));
      expect(rate!.violations[0]!.param).toBeNull();
      expect(`[rate_limited] ${rate!.violations[0]!.message}`).toBe(textOf(limited));
      expect(block!.violations[0]!.repair).toBe(textOf(blocked));
      expect(`[tool_blocked] ${block!.violations[0]!.message}`).toBe(textOf(blocked));
      // The blocked call records the changed definition it was refused for.
      const changed = toolDigest(definitionOf(tools[0]!));
      expect(listed.items.map((c) => c.tool_digest)).toEqual([pinned, pinned, changed]);
    } finally {
      await agent.close();
    }
  }, 60_000);
});

// A gateway recording into a running service (--ledger-url): pins observed and declarations checked over the API, so
// a restart declares nothing new and a team's REST declaration under the gateway's name stops the start unchanged.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import { GatewayProxy } from "../../src/mcp/gateway-proxy.js";
import { RemoteLedger } from "../../src/mcp/ledger-client.js";
import { createTestApp, type TestApp } from "../helpers/db.js";
import { type PinUpstream, startPinUpstream } from "./pin-upstream.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WATER = join(ROOT, "demo/water.toml");

let dir = "";
let t: TestApp;
let upstream: PinUpstream;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-gateway-remote-"));
  t = createTestApp();
  upstream = await startPinUpstream([
    {
      name: "runoff_depth",
      description: "Runoff depth.",
      inputSchema: { type: "object", properties: { discharge: { type: "number" }, area: { type: "number" } } },
    },
  ]);
});

afterAll(async () => {
  await upstream?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts and closes a gateway of one upstream named `name`, recording into the test app over its API. */
async function startOnce(name: string): Promise<void> {
  const file = join(dir, `${name}.toml`);
  const text = `[upstreams.${name}]\nurl = "${upstream.url}"\nannotations = "${WATER}"\n`;
  writeFileSync(file, text);
  const ledger = new RemoteLedger("http://ledger.test", t.adminToken, (url, init) =>
    Promise.resolve(t.app.request(url, init)),
  );
  const gateway = new GatewayProxy({ config: parseGatewayConfig(text, file), ledger });
  try {
    await gateway.start();
  } finally {
    await gateway.close();
  }
}

describe("a gateway recording into a service", () => {
  it("pins over the API and declares nothing new when started again", async () => {
    await startOnce("hydro");
    const first = (await t.call("GET", "/v1/tools/hydro.runoff_depth")).body as { version: number };
    await startOnce("hydro");
    expect(((await t.call("GET", "/v1/tools/hydro.runoff_depth")).body as { version: number }).version).toBe(
      first.version,
    );
    const listed = (await t.call("GET", "/v1/upstreams")).body as {
      items: { name: string; tools: { name: string }[] }[];
    };
    expect(listed.items.find((u) => u.name === "hydro")!.tools.map((x) => x.name)).toEqual(["runoff_depth"]);
  });

  it("refuses to start over a team's REST declaration of its ledger name, leaving it exactly as it was", async () => {
    const decl = {
      params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2", sourced: true } },
      returns: "mm/day",
    };
    expect((await t.call("PUT", "/v1/tools/basin.runoff_depth", { body: decl })).status).toBe(201);
    const before = (await t.call("GET", "/v1/tools/basin.runoff_depth")).body;
    await expect(startOnce("basin")).rejects.toThrow(
      "upstream 'basin' would declare its tool 'runoff_depth' as 'basin.runoff_depth', but the ledger already holds version 1",
    );
    expect((await t.call("GET", "/v1/tools/basin.runoff_depth")).body).toEqual(before);
  });
});

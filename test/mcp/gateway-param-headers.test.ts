// A gateway of several upstreams behind one --listen front checks a 2026-07-28 agent's Mcp-Param-* headers (SEP-2243)
// as a single upstream's front does: the declarations come from the member serving the namespaced tool, as it listed
// them. Behind the gateway its own connections speak 2025-11-25, which carries no such header.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import { GatewayProxy } from "../../src/mcp/gateway-proxy.js";
import { LocalLedger } from "../../src/mcp/ledger-client.js";
import { type ListeningProxy, listenProxy } from "../../src/mcp/listen.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { rawRequest, standardHeaders } from "./modern-request.js";
import { type ModernUpstream, startModernUpstream } from "./modern-upstream.js";

const REVISION = "2026-07-28";

let dir = "";
let upstream: ModernUpstream;
let ledger: LocalLedger;
let gateway: GatewayProxy;
let front: ListeningProxy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-gateway-params-"));
  upstream = await startModernUpstream();
  const file = join(dir, "gateway.toml");
  const text = `[upstreams.geo]\nurl = "${upstream.url}"\npin = "off"\n`;
  writeFileSync(file, text);
  ledger = await LocalLedger.open(join(dir, "ledger.db"));
  gateway = new GatewayProxy({ config: parseGatewayConfig(text, file), ledger });
  await gateway.start();
  front = await listenProxy(gateway, { host: "127.0.0.1", port: 0 });
}, 60_000);

afterAll(async () => {
  await front?.close();
  await gateway?.close();
  await upstream?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The calls the ledger holds. */
function recordedCalls(): number {
  const store = openDb(join(dir, "ledger.db"));
  try {
    return (store.sqlite.prepare("SELECT count(*) AS n FROM calls").get() as { n: number }).n;
  } finally {
    store.close();
  }
}

/** A 2026-07-28 tools/call of `name` with the standard headers and `extra`. */
const call = (name: string, args: Record<string, unknown>, extra: Record<string, string>) => {
  const params = { name, arguments: args };
  return rawRequest(
    front.url,
    "tools/call",
    params,
    { ...standardHeaders(REVISION, "tools/call", params), ...extra },
    REVISION,
    {
      "dev.agent-ledger/session": "geo-run",
    },
  );
};

describe("Mcp-Param headers at a gateway's front", () => {
  it("advertises the member's x-mcp-header under the namespaced name and serves a call whose header agrees", async () => {
    const params = {};
    const list = await rawRequest(
      front.url,
      "tools/list",
      params,
      standardHeaders(REVISION, "tools/list", params),
      REVISION,
    );
    const tool = ((list.body.result?.tools ?? []) as { name: string; inputSchema: unknown }[]).find(
      (t) => t.name === "geo__read_region",
    );
    expect(tool?.inputSchema).toMatchObject({ properties: { region: { "x-mcp-header": "Region" } } });
    // The gateway answers the listing itself: in 2026-07-28's shape, with the cache fields that revision requires.
    expect(list.body.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    const r = await call("geo__read_region", { region: "us-west" }, { "mcp-param-region": "us-west" });
    expect(r.status).toBe(200);
    expect(((r.body.result?.content ?? []) as { text: string }[])[0]?.text).toBe("gauges of us-west");
    expect(upstream.calls.at(-1)).toBe("read_region us-west");
  });

  it.each([
    ["no Mcp-Param-Region header", {}, 'the body carries region="us-west" but the Mcp-Param-Region header is absent'],
    [
      "an Mcp-Param-Region header naming another region",
      { "mcp-param-region": "us-east" },
      'the Mcp-Param-Region header decodes to "us-east" but the body carries region="us-west"',
    ],
  ])("refuses a call with %s (400, -32020) before the upstream or the ledger sees it", async (_w, extra, why) => {
    const calls = upstream.calls.length;
    const recorded = recordedCalls();
    const r = await call("geo__read_region", { region: "us-west" }, extra);
    expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([
      400,
      -32020,
      `Bad Request: the request headers and body disagree: ${why}`,
    ]);
    expect(upstream.calls.length).toBe(calls);
    expect(recordedCalls()).toBe(recorded);
  });

  it("asks no header of a tool that declares none, nor of a name no member serves", async () => {
    const r = await call("geo__read_discharge", { station: "07374000" }, {});
    expect([r.status, ((r.body.result?.content ?? []) as { text: string }[])[0]?.text]).toEqual([200, "1250"]);
    const unknown = await call("elsewhere__read_region", { region: "us-west" }, {});
    expect(unknown.status).toBe(200);
    expect(unknown.body.result?.isError).toBe(true);
  });
});

// The gateway's parts composed as the proxy will compose them: two upstreams behind one front, excluded, blocked,
// down, rate-limited and forwarded calls, each with the digest of the definition in force.
import { describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import { checkPins, type Pin, type ToolDefinition, toolDigest } from "../../src/gateway/pins.js";
import { GatewayView, gatewayLimiter, type UpstreamSnapshot } from "../../src/gateway/view.js";

const config = parseGatewayConfig(
  `[upstreams.usgs]\nurl = "http://127.0.0.1:3001/mcp"\nexclude = ["crash"]\nrate = "60/min"\n` +
    `[upstreams.hydro]\ncommand = ["node", "hydro.js"]\npin = "block"\n`,
  "gateway.toml",
  {},
);
const read: ToolDefinition = { name: "read_discharge", description: "cfs", inputSchema: { type: "object" } };
const crash: ToolDefinition = { name: "crash", inputSchema: { type: "object" } };
const runoff: ToolDefinition = { name: "runoff_depth", description: "mm/day", inputSchema: { type: "object" } };
const T0 = "2026-03-02T09:00:00.000Z";
const pinOf = (d: ToolDefinition): Pin => ({ tool: d.name, definition: d, digest: toolDigest(d), pinned_at: T0 });

const snapshot = (
  name: string,
  tools: ToolDefinition[],
  mode: "warn" | "block",
  pins: Pin[],
  up = true,
): UpstreamSnapshot => ({
  name,
  up,
  tools,
  prompts: [],
  resources: [],
  templates: [],
  check: checkPins({ upstream: name, mode, pins, openDrifts: [], listed: tools, now: T0 }),
});

describe("the gateway view", () => {
  it("lists both upstreams' served tools under their namespaces and forwards each call with its digest", () => {
    const view = new GatewayView(
      config,
      [snapshot("usgs", [read, crash], "warn", []), snapshot("hydro", [runoff], "block", [])],
      gatewayLimiter(config),
    );
    expect(view.catalogue.tools.map((t) => t.name)).toEqual(["usgs__read_discharge", "hydro__runoff_depth"]);
    expect(view.decideCall("hydro__runoff_depth", 0)).toEqual({
      kind: "forward",
      upstream: "hydro",
      tool: "runoff_depth",
      digest: toolDigest(runoff),
    });
    expect(view.decideCall("usgs__crash", 0)).toMatchObject({
      kind: "refuse",
      code: "tool_excluded",
      upstream: "usgs",
    });
  });

  it("refuses a tool whose definition changed under pin = block until approved, and serves the rest", () => {
    const changed = { ...runoff, description: "inches/day" };
    const view = new GatewayView(
      config,
      [snapshot("usgs", [read], "warn", []), snapshot("hydro", [changed], "block", [pinOf(runoff)])],
      gatewayLimiter(config),
    );
    expect(view.catalogue.tools.map((t) => t.name)).toEqual(["usgs__read_discharge"]);
    const refused = view.decideCall("hydro__runoff_depth", 0);
    expect(refused).toMatchObject({ kind: "refuse", code: "tool_blocked", upstream: "hydro" });
    expect(refused.kind === "refuse" && refused.message).toContain("agent-ledger pins approve hydro runoff_depth");
    // Approved: the new definition is the pin, and calls carry its digest.
    const approved = new GatewayView(
      config,
      [snapshot("usgs", [read], "warn", []), snapshot("hydro", [changed], "block", [pinOf(changed)])],
      gatewayLimiter(config),
    );
    expect(approved.decideCall("hydro__runoff_depth", 0)).toMatchObject({
      kind: "forward",
      digest: toolDigest(changed),
    });
  });

  it("answers a down upstream's tools with its name while the other keeps answering", () => {
    const view = new GatewayView(
      config,
      [snapshot("usgs", [read], "warn", []), snapshot("hydro", [], "block", [], false)],
      gatewayLimiter(config),
    );
    expect(view.decideCall("hydro__runoff_depth", 0)).toEqual({
      kind: "refuse",
      code: "upstream_down",
      upstream: "hydro",
      message:
        "upstream 'hydro' is not reachable now, so its tool 'hydro__runoff_depth' cannot be called; the other upstreams still answer",
    });
    expect(view.decideCall("usgs__read_discharge", 0).kind).toBe("forward");
  });

  it("refuses the 61st call in a minute with the wait, so the upstream sees 60", () => {
    const limiter = gatewayLimiter(config);
    const view = new GatewayView(
      config,
      [snapshot("usgs", [read], "warn", []), snapshot("hydro", [runoff], "block", [])],
      limiter,
    );
    const decisions = Array.from({ length: 61 }, (_, i) => view.decideCall("usgs__read_discharge", i * 100));
    expect(decisions.filter((d) => d.kind === "forward")).toHaveLength(60);
    expect(decisions[60]).toMatchObject({ kind: "refuse", code: "rate_limited", retryAfterS: 54 });
    // A new view after a new listing keeps the same limiter, so the count carries over.
    const next = new GatewayView(config, [snapshot("usgs", [read], "warn", [])], limiter);
    expect(next.decideCall("usgs__read_discharge", 6100).kind).toBe("refuse");
    expect(next.decideCall("hydro__runoff_depth", 6100).kind).toBe("refuse");
  });
});

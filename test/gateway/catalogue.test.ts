import { describe, expect, it } from "vitest";
import {
  buildCatalogue,
  routePrompt,
  routeResource,
  routeTool,
  routingError,
  templatePrefix,
  type UpstreamListing,
} from "../../src/gateway/catalogue.js";
import { advertisedName, ledgerName, MCP_TOOL_NAME, splitAdvertised } from "../../src/gateway/names.js";

const listing = (name: string, over: Partial<UpstreamListing> = {}): UpstreamListing => ({
  name,
  include: null,
  exclude: [],
  up: true,
  tools: [],
  prompts: [],
  resources: [],
  templates: [],
  ...over,
});

const usgs = listing("usgs", {
  exclude: ["crash"],
  tools: [
    { name: "read_discharge", description: "cfs", inputSchema: { type: "object" } },
    { name: "crash", inputSchema: { type: "object" } },
  ],
  prompts: [{ name: "summarise", description: "d" }],
  resources: [{ uri: "file:///sites.csv", name: "sites" }],
  templates: [{ uriTemplate: "usgs://site/{id}", name: "site" }],
});
const hydro = listing("hydro", {
  tools: [{ name: "runoff_depth", inputSchema: { type: "object" } }],
  resources: [{ uri: "file:///sites.csv", name: "also sites" }],
  templates: [
    { uriTemplate: "usgs://site/{id}/daily", name: "daily" },
    { uriTemplate: "{+path}", name: "anything" },
  ],
});

describe("namespacing", () => {
  it("advertises <upstream>__<tool> and splits it back at the first __", () => {
    expect(advertisedName("usgs", "read_discharge")).toBe("usgs__read_discharge");
    expect(splitAdvertised("usgs__read_discharge")).toEqual({ upstream: "usgs", tool: "read_discharge" });
    expect(splitAdvertised("us_gs___x__y")).toEqual({ upstream: "us_gs", tool: "_x__y" });
    expect(splitAdvertised("plain")).toBeNull();
    expect(MCP_TOOL_NAME.test(advertisedName("a-b_c", "t.v-1")!)).toBe(true);
    expect(advertisedName("usgs", "x".repeat(122))).toBe(`usgs__${"x".repeat(122)}`);
    expect(advertisedName("usgs", "x".repeat(123))).toBeNull();
    expect(ledgerName("usgs", "read_discharge")).toBe("usgs.read_discharge");
  });

  it("lists both upstreams' tools under their namespaces, hides an excluded one and refuses a call to it", () => {
    const c = buildCatalogue([usgs, hydro]);
    expect(c.tools.map((t) => t.name)).toEqual(["usgs__read_discharge", "hydro__runoff_depth"]);
    expect(c.tools[0]).toEqual({ name: "usgs__read_discharge", description: "cfs", inputSchema: { type: "object" } });
    expect(routeTool(c, "hydro__runoff_depth")).toEqual({ kind: "route", upstream: "hydro", tool: "runoff_depth" });
    const crash = routeTool(c, "usgs__crash");
    expect(crash).toEqual({ kind: "excluded", upstream: "usgs", tool: "crash" });
    expect(routingError(crash, "usgs__crash")).toBe(
      "tool 'usgs__crash' is excluded by the gateway's configuration (upstreams.usgs.include/exclude); it is not served",
    );
    expect(routeTool(c, "read_discharge")).toEqual({ kind: "unknown" });
  });

  it("answers an upstream that is down with its own name and keeps serving the others", () => {
    const c = buildCatalogue([{ ...usgs, up: false }, hydro]);
    expect(c.tools.map((t) => t.name)).toEqual(["hydro__runoff_depth"]);
    expect(c.down).toEqual(["usgs"]);
    const r = routeTool(c, "usgs__read_discharge");
    expect(routingError(r, "usgs__read_discharge")).toBe(
      "upstream 'usgs' is not reachable now, so its tool 'usgs__read_discharge' cannot be called; the other upstreams still answer",
    );
    expect(routeTool(c, "hydro__runoff_depth").kind).toBe("route");
  });

  it("renames prompts like tools", () => {
    const c = buildCatalogue([usgs, hydro]);
    expect(c.prompts).toEqual([{ name: "usgs__summarise", description: "d" }]);
    expect(routePrompt(c, "usgs__summarise")).toEqual({ upstream: "usgs", name: "summarise" });
    expect(routePrompt(c, "summarise")).toBeNull();
  });

  it("keeps resource URIs, routes a read to the upstream that listed it, and templates by longest prefix", () => {
    const c = buildCatalogue([usgs, hydro]);
    expect(c.resources).toEqual([{ uri: "file:///sites.csv", name: "sites" }]);
    expect(c.hidden).toContainEqual({
      upstream: "hydro",
      kind: "resource",
      name: "file:///sites.csv",
      reason: "uri_taken",
    });
    expect(routeResource(c, "file:///sites.csv")).toBe("usgs");
    expect(templatePrefix("usgs://site/{id}/daily")).toBe("usgs://site/");
    expect(routeResource(c, "usgs://site/07374000")).toBe("usgs");
    expect(routeResource(c, "other://x")).toBe("hydro");
    expect(routeResource(buildCatalogue([usgs]), "other://x")).toBeNull();
  });

  it("keeps plain names for a single upstream started from the flags", () => {
    const c = buildCatalogue([usgs], false);
    expect(c.tools.map((t) => t.name)).toEqual(["read_discharge"]);
    expect(routeTool(c, "read_discharge")).toEqual({ kind: "route", upstream: "usgs", tool: "read_discharge" });
    expect(routeTool(c, "crash").kind).toBe("excluded");
  });
});

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  blockedMessage,
  changedFields,
  checkPins,
  definitionOf,
  type Pin,
  type ToolDefinition,
  toolDigest,
} from "../../src/gateway/pins.js";

const read: ToolDefinition = {
  name: "read_discharge",
  description: "Discharge in cfs",
  inputSchema: { type: "object", properties: { site: { type: "string" } } },
};
const area: ToolDefinition = { name: "read_area", inputSchema: { type: "object" } };
const T0 = "2026-03-02T09:00:00.000Z";
const T1 = "2026-03-02T10:00:00.000Z";
const pin = (d: ToolDefinition): Pin => ({ tool: d.name, definition: d, digest: toolDigest(d), pinned_at: T0 });

describe("tool definition digests", () => {
  it("is the SHA-256 of the RFC 8785 form of the five pinned fields, whatever the key order or extra fields", () => {
    const expected = createHash("sha256")
      .update(
        '{"description":"Discharge in cfs","inputSchema":{"properties":{"site":{"type":"string"}},"type":"object"},"name":"read_discharge"}',
      )
      .digest("hex");
    expect(toolDigest(read)).toBe(expected);
    const listed = {
      title: "Read",
      icons: [],
      inputSchema: read.inputSchema,
      description: read.description,
      name: read.name,
    };
    expect(toolDigest(definitionOf(listed))).toBe(expected);
    expect(definitionOf(listed)).toEqual(read);
  });

  it("names the fields that changed", () => {
    expect(changedFields(read, { ...read, description: "now m3/s" })).toEqual(["description"]);
    expect(
      changedFields(read, { ...read, outputSchema: { type: "object" }, annotations: { readOnlyHint: true } }),
    ).toEqual(["outputSchema", "annotations"]);
  });
});

describe("the pin check", () => {
  it("pins every tool on the first listing and serves them", () => {
    const c = checkPins({ upstream: "usgs", mode: "warn", pins: [], openDrifts: [], listed: [read, area], now: T0 });
    expect(c.newPins).toEqual([pin(read), pin(area)]);
    expect(c.newDrifts).toEqual([]);
    expect(c.served).toEqual(["read_discharge", "read_area"]);
    expect(c.digests).toEqual({ read_discharge: toolDigest(read), read_area: toolDigest(area) });
  });

  it("warn: a changed description is a drift, the tool still served and reported as drifted", () => {
    const changed = { ...read, description: "Discharge in m3/s" };
    const c = checkPins({
      upstream: "usgs",
      mode: "warn",
      pins: [pin(read), pin(area)],
      openDrifts: [],
      listed: [changed, area],
      now: T1,
    });
    expect(c.newDrifts).toEqual([
      { tool: "read_discharge", kind: "changed", before: read, after: changed, detected_at: T1, approved_at: null },
    ]);
    expect(c.served).toEqual(["read_discharge", "read_area"]);
    expect(c.drifted).toEqual(["read_discharge"]);
    expect(c.digests.read_discharge).toBe(toolDigest(changed));
    expect(c.newPins).toEqual([]);
  });

  it("block: hides a changed and an added tool with a message saying what changed and how to approve", () => {
    const changed = { ...read, inputSchema: { type: "object", properties: { site: { type: "number" } } } };
    const extra = { name: "delete_all", inputSchema: { type: "object" } };
    const c = checkPins({
      upstream: "usgs",
      mode: "block",
      pins: [pin(read), pin(area)],
      openDrifts: [],
      listed: [changed, area, extra],
      now: T1,
    });
    expect(c.served).toEqual(["read_area"]);
    expect(c.blocked).toEqual([
      {
        tool: "read_discharge",
        message:
          `tool 'read_discharge' of upstream 'usgs' is blocked: it changed its inputSchema since it was pinned at ${T0} (detected at ${T1}); ` +
          "the gateway does not call a tool whose definition was not approved; approve it with " +
          '`agent-ledger pins approve usgs read_discharge` or POST /v1/upstreams/usgs/approve with {"tool": "read_discharge"}',
      },
      {
        tool: "delete_all",
        message:
          `tool 'delete_all' of upstream 'usgs' is blocked: it is new: it was not in the upstream's tool list when the upstream was pinned (detected at ${T1}); ` +
          "the gateway does not call a tool whose definition was not approved; approve it with " +
          '`agent-ledger pins approve usgs delete_all` or POST /v1/upstreams/usgs/approve with {"tool": "delete_all"}',
      },
    ]);
    expect(c.newDrifts.map((d) => [d.tool, d.kind])).toEqual([
      ["read_discharge", "changed"],
      ["delete_all", "added"],
    ]);
  });

  it("a removed tool is a drift; listing the same drift again stores nothing new", () => {
    const first = checkPins({
      upstream: "usgs",
      mode: "warn",
      pins: [pin(read), pin(area)],
      openDrifts: [],
      listed: [read],
      now: T1,
    });
    expect(first.newDrifts).toEqual([
      { tool: "read_area", kind: "removed", before: area, after: null, detected_at: T1, approved_at: null },
    ]);
    const again = checkPins({
      upstream: "usgs",
      mode: "warn",
      pins: [pin(read), pin(area)],
      openDrifts: first.newDrifts,
      listed: [read],
      now: T1,
    });
    expect(again.newDrifts).toEqual([]);
    const changedTwice = { ...read, description: "x" };
    const open = checkPins({
      upstream: "u",
      mode: "block",
      pins: [pin(read)],
      openDrifts: [],
      listed: [changedTwice],
      now: T1,
    }).newDrifts;
    const same = checkPins({
      upstream: "u",
      mode: "block",
      pins: [pin(read)],
      openDrifts: open,
      listed: [changedTwice],
      now: T1,
    });
    expect(same.newDrifts).toEqual([]);
    expect(same.blocked[0]!.message).toBe(blockedMessage("u", open[0]!, T0));
  });

  it("off: pins nothing, stores no drift, serves everything with its digest", () => {
    const c = checkPins({
      upstream: "usgs",
      mode: "off",
      pins: [pin(read)],
      openDrifts: [],
      listed: [{ ...read, description: "x" }],
      now: T1,
    });
    expect(c).toEqual({
      newPins: [],
      newDrifts: [],
      served: ["read_discharge"],
      blocked: [],
      drifted: [],
      digests: { read_discharge: toolDigest({ ...read, description: "x" }) },
    });
  });
});

describe("definition diffs", () => {
  it("lists each leaf added, removed or changed by path; arrays compared whole", async () => {
    const { definitionDiff } = await import("../../src/gateway/diff.js");
    const before = {
      name: "t",
      description: "a",
      inputSchema: { type: "object", required: ["site"], properties: { x: { type: "string" } } },
    };
    const after = {
      name: "t",
      inputSchema: { type: "object", required: ["site", "q"], properties: { x: { type: "number" }, y: {} } },
    };
    expect(definitionDiff(before, after)).toEqual([
      { path: "description", kind: "removed", before: "a" },
      { path: "inputSchema.properties.x.type", kind: "changed", before: "string", after: "number" },
      { path: "inputSchema.properties.y", kind: "added", after: {} },
      { path: "inputSchema.required", kind: "changed", before: ["site"], after: ["site", "q"] },
    ]);
  });
});

describe("the drift label", () => {
  it("names drifted tools as upstream.tool, sorted, within 256 characters", async () => {
    const { driftLabel } = await import("../../src/gateway/pins.js");
    expect(driftLabel([])).toBeNull();
    expect(
      driftLabel([
        { upstream: "usgs", tool: "b" },
        { upstream: "hydro", tool: "a" },
        { upstream: "usgs", tool: "b" },
      ]),
    ).toBe("hydro.a,usgs.b");
    const many = Array.from({ length: 40 }, (_, i) => ({
      upstream: "usgs",
      tool: `tool_${String(i).padStart(2, "0")}`,
    }));
    const label = driftLabel(many)!;
    expect(label.length).toBeLessThanOrEqual(256);
    expect(label).toMatch(/^usgs\.tool_00,usgs\.tool_01,.*,\+\d+$/);
    const shown = label.split(",").slice(0, -1).length;
    expect(label.endsWith(`,+${40 - shown}`)).toBe(true);
  });
});

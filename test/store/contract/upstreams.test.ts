// Store contract: gateway pins and drifts, per team and upstream, observed and approved the same way on both engines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ToolDefinition, toolDigest } from "../../../src/gateway/pins.js";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, type SettableClock, settableClock } from "./engines.js";
import type { UpstreamsRepo } from "../../../src/store/port.js";

const read: ToolDefinition = {
  name: "read_discharge",
  description: "Discharge in cfs",
  inputSchema: { type: "object" },
};
const area: ToolDefinition = {
  name: "read_area",
  description: "Drainage area in mi2",
  inputSchema: { type: "object" },
};
const T0 = "2026-03-02T09:00:00.000Z";
const T1 = "2026-03-02T10:00:00.000Z";
const T2 = "2026-03-02T11:00:00.000Z";

describe.each(await enginesUnderTest())("$name store: gateway upstreams", (engine) => {
  let store: LedgerStore;
  let clock: SettableClock;
  let repo: UpstreamsRepo;
  beforeAll(async () => {
    clock = settableClock(T0);
    store = await engine.open(clock);
    repo = store.upstreams!;
  });
  afterAll(() => store.close());

  it("pins on first sight, stores changed, removed and added drifts once, and lists them per team", async () => {
    const team = await freshTeam(store);
    clock.set(T0);
    const first = await repo.observe(team, "usgs", "warn", [read, area]);
    expect(first.newPins.map((p) => p.tool)).toEqual(["read_discharge", "read_area"]);
    clock.set(T1);
    const changed = { ...read, description: "Discharge in m3/s" };
    const second = await repo.observe(team, "usgs", "warn", [changed, area]);
    expect(second.served).toEqual(["read_discharge", "read_area"]);
    expect(second.digests.read_discharge).toBe(toolDigest(changed));
    expect((await repo.observe(team, "usgs", "warn", [changed, area])).newDrifts).toEqual([]);
    clock.set(T2);
    await repo.observe(team, "usgs", "warn", [changed, { name: "new_tool" }]);
    expect(await repo.list(team)).toEqual([
      {
        name: "usgs",
        tools: [
          { name: "read_area", digest: toolDigest(area), pinned_at: T0 },
          { name: "read_discharge", digest: toolDigest(read), pinned_at: T0 },
        ],
        drifts: [
          { tool: "read_discharge", kind: "changed", before: read, after: changed, detected_at: T1, approved_at: null },
          {
            tool: "new_tool",
            kind: "added",
            before: null,
            after: { name: "new_tool" },
            detected_at: T2,
            approved_at: null,
          },
          { tool: "read_area", kind: "removed", before: area, after: null, detected_at: T2, approved_at: null },
        ],
      },
    ]);
    expect(await repo.list(await freshTeam(store))).toEqual([]);
  });

  it("block refuses a changed tool until approved; approval pins the new definition and restores it", async () => {
    const team = await freshTeam(store);
    clock.set(T0);
    await repo.observe(team, "usgs", "block", [read, area]);
    clock.set(T1);
    const changed = { ...read, inputSchema: { type: "object", properties: { site: { type: "number" } } } };
    const blocked = await repo.observe(team, "usgs", "block", [changed, area]);
    expect(blocked.served).toEqual(["read_area"]);
    expect(blocked.blocked.map((b) => b.tool)).toEqual(["read_discharge"]);
    clock.set(T2);
    const approval = await repo.approve(team, "usgs", "read_discharge");
    expect(approval).toEqual({
      upstream: "usgs",
      approved: [
        { tool: "read_discharge", kind: "changed", before: read, after: changed, detected_at: T1, approved_at: T2 },
      ],
    });
    const after = await repo.observe(team, "usgs", "block", [changed, area]);
    expect(after.served).toEqual(["read_discharge", "read_area"]);
    expect(after.newDrifts).toEqual([]);
    const [state] = await repo.list(team);
    expect(state!.tools).toContainEqual({ name: "read_discharge", digest: toolDigest(changed), pinned_at: T2 });
    expect(state!.drifts[0]!.approved_at).toBe(T2);
  });

  it("approving a whole upstream drops removed tools' pins and pins added ones; unknown names are not found", async () => {
    const team = await freshTeam(store);
    clock.set(T0);
    await repo.observe(team, "hydro", "warn", [read, area]);
    clock.set(T1);
    await repo.observe(team, "hydro", "warn", [read, { name: "added" }]);
    const approval = await repo.approve(team, "hydro");
    expect(approval.approved.map((d) => [d.tool, d.kind, d.approved_at])).toEqual([
      ["added", "added", T1],
      ["read_area", "removed", T1],
    ]);
    expect((await repo.list(team))[0]!.tools.map((t) => t.name)).toEqual(["added", "read_discharge"]);
    expect((await repo.approve(team, "hydro")).approved).toEqual([]);
    await expect(repo.approve(team, "nope")).rejects.toThrow("no upstream named 'nope' in this team");
    await expect(repo.approve(team, "hydro", "ghost")).rejects.toThrow(
      "upstream 'hydro' has no tool 'ghost' pinned or drifted",
    );
    await expect(repo.approve(await freshTeam(store), "hydro")).rejects.toThrow("no upstream named 'hydro'");
  });

  it("pin = off stores nothing", async () => {
    const team = await freshTeam(store);
    const c = await repo.observe(team, "free", "off", [read]);
    expect(c.served).toEqual(["read_discharge"]);
    expect(await repo.list(team)).toEqual([]);
  });
});

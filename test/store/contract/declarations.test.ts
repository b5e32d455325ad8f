// Store contract: the datum registry and tool declarations, the same on every engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const DISCHARGE = { params: { site: { description: "USGS site" } }, returns: { unit: "cfs" } };

describe.each(await enginesUnderTest())("$name store: datums", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-02T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  it("adds a team's datum beside the 22 built-ins, refusing a name the registry knows", async () => {
    const teamId = await freshTeam(store);
    expect((await store.datums.registry(teamId)).names()).toHaveLength(22);
    const row = await store.datums.add(teamId, "GAGE:07374000", "gage zero");
    expect(row).toMatchObject({ name: "GAGE:07374000", kind: "vertical", description: "gage zero" });
    expect(await store.datums.list(teamId)).toEqual([row]);
    expect((await store.datums.registry(teamId)).has("GAGE:07374000")).toBe(true);
    await expect(store.datums.add(teamId, "NAVD88")).rejects.toMatchObject({
      code: "conflict",
      message: "a datum named 'NAVD88' is already registered",
    });
    await expect(store.datums.add(teamId, "GAGE:07374000")).rejects.toMatchObject({ code: "conflict" });
    // Another team sees none of it.
    const other = await freshTeam(store);
    expect(await store.datums.list(other)).toEqual([]);
    expect((await store.datums.registry(other)).has("GAGE:07374000")).toBe(false);
  });

  it("registers an offset between known datums, a later one replacing the pair's, and converts with it", async () => {
    const teamId = await freshTeam(store);
    await store.datums.add(teamId, "GAGE:1");
    const first = { from: "GAGE:1", to: "NAVD88", offsetM: 10, offsetValue: 10, offsetUnit: "m", source: "survey 1" };
    await store.datums.addOffset(teamId, first);
    const second = await store.datums.addOffset(teamId, {
      ...first,
      offsetM: 3.048,
      offsetValue: 10,
      offsetUnit: "ft",
    });
    expect(second).toMatchObject({ from: "GAGE:1", to: "NAVD88", offsetM: 3.048, offsetValue: 10, offsetUnit: "ft" });
    expect((await store.datums.offsets(teamId)).map((o) => [o.from, o.to, o.offsetM, o.source])).toEqual([
      ["GAGE:1", "NAVD88", 3.048, "survey 1"],
    ]);
    expect((await store.datums.registry(teamId)).canConvert("GAGE:1", "NAVD88")).toBe(true);
    await expect(store.datums.addOffset(teamId, { ...first, from: "NOWHERE" })).rejects.toMatchObject({
      code: "datum_mismatch",
      message: expect.stringMatching(/^unknown datum 'NOWHERE'; register it first \(POST \/v1\/datums\)/),
    });
    expect(await store.datums.offsets(teamId)).toHaveLength(1);
  });

  it("ensures datums and offsets once: the first registration wins", async () => {
    const teamId = await freshTeam(store);
    const offset = { from: "GAUGE:E1", to: "ODN", offsetM: 1.5, offsetValue: 1.5, offsetUnit: "m", source: null };
    await store.datums.ensure(teamId, [{ name: "GAUGE:E1", description: "EA gauge" }], [offset]);
    const reg = await store.datums.ensure(teamId, [{ name: "GAUGE:E1" }], [{ ...offset, offsetM: 9 }]);
    expect(reg.has("GAUGE:E1")).toBe(true);
    expect(await store.datums.list(teamId)).toMatchObject([{ name: "GAUGE:E1", description: "EA gauge" }]);
    expect((await store.datums.offsets(teamId)).map((o) => o.offsetM)).toEqual([1.5]);
  });
});

describe.each(await enginesUnderTest())("$name store: tool declarations", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-02T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  it("versions a declaration by content: the same one in another key order is not a new version", async () => {
    const teamId = await freshTeam(store);
    const v1 = await store.tools.put(teamId, "read_discharge", DISCHARGE);
    expect(v1.created).toBe(true);
    expect(v1.row).toMatchObject({ name: "read_discharge", version: 1, declaration: DISCHARGE });
    expect(v1.declaration.version).toBe(1);
    const same = await store.tools.put(teamId, "read_discharge", {
      returns: { unit: "cfs" },
      params: { site: { description: "USGS site" } },
    });
    expect(same.created).toBe(false);
    expect(same.row.version).toBe(1);
    const v2 = await store.tools.put(teamId, "read_discharge", { ...DISCHARGE, returns: { unit: "m**3/s" } });
    expect([v2.created, v2.row.version]).toEqual([true, 2]);
    expect((await store.tools.get(teamId, "read_discharge"))?.row.version).toBe(2);
    expect((await store.tools.get(teamId, "read_discharge", 1))?.row.declaration).toEqual(DISCHARGE);
    expect(await store.tools.get(teamId, "read_discharge", 3)).toBeNull();
    expect(await store.tools.get(await freshTeam(store), "read_discharge")).toBeNull();
  });

  it("lists the latest version of each tool by name, after a name, at most a limit", async () => {
    const teamId = await freshTeam(store);
    for (const name of ["b_tool", "a_tool", "c_tool"]) await store.tools.put(teamId, name, DISCHARGE);
    await store.tools.put(teamId, "a_tool", { ...DISCHARGE, description: "second" });
    const all = await store.tools.list(teamId, { limit: 10 });
    expect(all.map((t) => [t.row.name, t.row.version])).toEqual([
      ["a_tool", 2],
      ["b_tool", 1],
      ["c_tool", 1],
    ]);
    expect((await store.tools.list(teamId, { after: "a_tool", limit: 1 })).map((t) => t.row.name)).toEqual(["b_tool"]);
  });

  it("refuses a declaration that does not compile and stores nothing", async () => {
    const teamId = await freshTeam(store);
    await expect(
      store.tools.put(teamId, "bad", { params: { stage: { unit: "ft", datum: "NOT_A_DATUM" } } }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      details: [
        { path: "params.stage.datum", message: "unknown datum 'NOT_A_DATUM'; register it first with POST /v1/datums" },
      ],
    });
    expect(await store.tools.get(teamId, "bad")).toBeNull();
  });
});

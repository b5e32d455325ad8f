import { describe, expect, it } from "vitest";
import { buildManifest, MANIFEST_FORMAT, ManifestSchema, type ManifestSource } from "../../src/provenance/manifest.js";
import { replayManifest } from "../../src/provenance/replay.js";
import { createTestApp } from "../helpers/db.js";
import {
  callWithResult,
  declareRunoffTools,
  ok,
  RUNOFF_QUESTION,
  runoffSession,
  tickingClock,
} from "./build-session.js";

describe("manifest of a stored session", () => {
  it("holds the settings, the declaration version of every tool called, every call's raw inputs, results and verdicts in order, and the audit", async () => {
    const t = createTestApp();
    const { id, calls } = await runoffSession(t, { labels: { run: "m1" } });
    const m = await ok(t, "GET", `/v1/sessions/${id}/manifest`);
    expect(ManifestSchema.safeParse(m).success).toBe(true);
    expect(m.format).toBe(MANIFEST_FORMAT);
    expect(m.session).toMatchObject({ id, context: RUNOFF_QUESTION, enforcement: "enforce", labels: { run: "m1" } });
    expect(m.tools.map((x: { name: string; version: number }) => [x.name, x.version])).toEqual([
      ["read_discharge", 2],
      ["read_drainage_area", 2],
      ["runoff_depth", 2],
    ]);
    expect(m.tools[2].declaration).toEqual({
      params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
      returns: { unit: "mm/day" },
    });
    expect(
      m.calls.map((c: { seq: number; call_id: string; step: number; result_step: number | null }) => [
        c.seq,
        c.call_id,
        c.step,
        c.result_step,
      ]),
    ).toEqual([
      [1, calls[0], 1, 2],
      [2, calls[1], 3, 4],
      [3, calls[2], 5, null],
      [4, calls[3], 6, 7],
    ]);
    expect(m.calls.map((c: { args_raw: unknown; result_raw: unknown }) => [c.args_raw, c.result_raw])).toEqual([
      [{ station: "07374000" }, 1250],
      [{ station: "07374000" }, 29000],
      [{ discharge: 1250, area: 29000 }, null],
      [{ discharge: "1250 cfs", area: 29000 }, 0.10545584248055169],
    ]);
    const refused = m.calls[2];
    expect(refused.verdict.ok).toBe(false);
    expect(refused.verdict.would_block).toBe(true);
    expect(refused.verdict.violations.map((v: { code: string; param: string }) => [v.code, v.param])).toEqual([
      ["unconverted_carry_over", "discharge"],
    ]);
    expect(refused.verdict.args.discharge).toMatchObject({
      raw: 1250,
      value: 1250,
      unit: "m^3/s",
      outcome: "refused",
      violation: "unconverted_carry_over",
    });
    expect(refused.result_verdict).toBeNull();
    expect(m.calls[0].result_verdict.result.return).toMatchObject({
      raw: 1250,
      value: 1250,
      unit: "cfs",
      value_si: 35.39605824,
      outcome: "ok",
    });
    expect(m.calls[3].verdict.args.discharge).toMatchObject({ raw: "1250 cfs", unit: "m^3/s", outcome: "converted" });
    expect(m.audits).toHaveLength(1);
    expect(m.audits[0]).toMatchObject({ after_step: 7, ok: true, context: RUNOFF_QUESTION });
    expect(
      m.audits[0].items.map((i: { text: string; status: string; call_id: string }) => [i.text, i.status, i.call_id]),
    ).toEqual([
      ["0.105 mm/day", "sourced", calls[3]],
      ["1250 cfs", "sourced", calls[0]],
      ["29,000 km2", "sourced", calls[1]],
      ["0.105 mm/day", "sourced", calls[3]],
    ]);
  });

  it("lists both versions of a tool redeclared mid-session, each call naming the version it was checked against", async () => {
    const t = createTestApp();
    await declareRunoffTools(t);
    const s = await ok(t, "POST", "/v1/sessions", { context: "" });
    await callWithResult(t, s.id, "read_discharge", { station: "A" }, 1250);
    await ok(t, "PUT", "/v1/tools/read_discharge", { params: { station: {} }, returns: { unit: "m**3/s" } });
    await callWithResult(t, s.id, "read_discharge", { station: "A" }, 35);
    const m = await ok(t, "GET", `/v1/sessions/${s.id}/manifest`);
    expect(
      m.tools.map((x: { name: string; version: number; declaration: { returns: unknown } }) => [
        x.name,
        x.version,
        x.declaration.returns,
      ]),
    ).toEqual([
      ["read_discharge", 2, { unit: "cfs" }],
      ["read_discharge", 3, { unit: "m**3/s" }],
    ]);
    expect(m.calls.map((c: { tool_version: number }) => c.tool_version)).toEqual([2, 3]);
    expect(replayManifest(m).identical).toBe(true);
  });

  it("holds the team's own datums and the offsets in force", async () => {
    const t = createTestApp();
    await ok(t, "POST", "/v1/datums", { name: "GAGE:BENCH", description: "bench gage" });
    await ok(t, "POST", "/v1/datums/offsets", {
      from: "GAGE:BENCH",
      to: "NAVD88",
      offset: { value: 1.5, unit: "ft" },
      source: "survey",
    });
    const s = await ok(t, "POST", "/v1/sessions", {});
    const m = await ok(t, "GET", `/v1/sessions/${s.id}/manifest`);
    expect(m.datums.registered).toEqual([{ name: "GAGE:BENCH", description: "bench gage" }]);
    expect(m.datums.offsets).toEqual([
      { from: "GAGE:BENCH", to: "NAVD88", offset_m: 1.5 * 0.3048, value: 1.5, unit: "ft", source: "survey" },
    ]);
  });

  it("orders a result posted after a later call after that call, so the later call's check saw no such output", async () => {
    const t = createTestApp();
    await declareRunoffTools(t);
    const s = await ok(t, "POST", "/v1/sessions", { context: "" });
    const first = await callWithResult(t, s.id, "read_discharge", { station: "A" });
    const second = await ok(t, "POST", `/v1/sessions/${s.id}/calls`, {
      tool: "runoff_depth",
      args: { discharge: 1250, area: 29000 },
    });
    expect(second.ok).toBe(true);
    await ok(t, "POST", `/v1/sessions/${s.id}/calls/${first}/result`, { result: 1250 });
    const m = await ok(t, "GET", `/v1/sessions/${s.id}/manifest`);
    expect(
      m.calls.map((c: { seq: number; step: number; result_step: number | null }) => [c.seq, c.step, c.result_step]),
    ).toEqual([
      [1, 1, 3],
      [2, 2, null],
    ]);
    expect(replayManifest(m)).toEqual({ identical: true, calls: 2, audits: 0, difference_count: 0, differences: [] });
  });

  it("places an audit after the steps recorded before it, so its replay reads only those outputs", async () => {
    const t = createTestApp({ clock: tickingClock("2026-11-30T00:00:00Z") });
    await declareRunoffTools(t);
    const s = await ok(t, "POST", "/v1/sessions", { context: "" });
    await callWithResult(t, s.id, "read_discharge", { station: "A" }, 1250);
    const audit = await ok(t, "POST", `/v1/sessions/${s.id}/audit`, {
      answer: "Discharge is 1250 cfs over 29,000 km2.",
    });
    await callWithResult(t, s.id, "read_drainage_area", { station: "A" }, 29000);
    expect(audit.numbers.map((n: { text: string; status: string }) => [n.text, n.status])).toEqual([
      ["1250 cfs", "sourced"],
      ["29,000 km2", "unsourced"],
    ]);
    const m = await ok(t, "GET", `/v1/sessions/${s.id}/manifest`);
    expect(m.audits[0].after_step).toBe(2);
    expect(replayManifest(m).identical).toBe(true);
  });
});

describe("buildManifest (pure)", () => {
  const crossing = (id: number, callId: string, direction: "param" | "return", param: string, raw: unknown) => ({
    id,
    callId,
    direction,
    param,
    raw: JSON.stringify(raw),
    value: null,
    unit: null,
    valueSi: null,
    dimension: null,
    isSeries: false,
    datum: null,
    crs: null,
    tz: null,
    quality: null,
    source: null,
    observedAt: null,
    outcome: "passed" as const,
    violation: null,
  });
  const call = (seq: number, resultAt: string | null, args: Record<string, unknown> = {}) => ({
    id: `c${seq}`,
    seq,
    tool: "t",
    toolVersion: null,
    guarded: false,
    argsRaw: args,
    ok: true,
    violations: [],
    resultRaw: resultAt ? seq : null,
    resultOk: resultAt ? true : null,
    resultViolations: resultAt ? [] : null,
    createdAt: "2026-11-30T00:00:00.000Z",
    resultAt,
  });
  const source = (over: Partial<ManifestSource>): ManifestSource => ({
    session: { id: "s", context: "", enforcement: "warn", labels: {}, createdAt: "2026-11-30T00:00:00.000Z" },
    calls: [],
    crossings: [],
    tools: [],
    datums: [],
    offsets: [],
    audits: [],
    ...over,
  });

  it("steps follow crossing ids; a call with no arguments sits right after the call before it", () => {
    const at = "2026-11-30T00:00:00.000Z";
    const m = buildManifest(
      source({
        calls: [call(1, at, { a: 1 }), call(2, at), call(3, at, { b: 2 })],
        crossings: [
          crossing(10, "c1", "param", "a", 1),
          crossing(11, "c3", "param", "b", 2),
          crossing(12, "c1", "return", "return", 1),
          crossing(13, "c2", "return", "return", 2),
          crossing(14, "c3", "return", "return", 3),
        ],
      }),
    );
    expect(m.calls.map((c) => [c.seq, c.step, c.result_step])).toEqual([
      [1, 1, 4],
      [2, 2, 5],
      [3, 3, 6],
    ]);
    expect(m.calls[1].verdict.args).toEqual({});
    expect(m.calls[0].verdict.args.a).toMatchObject({ raw: 1, outcome: "passed" });
  });
});

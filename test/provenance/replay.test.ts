import { describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import type { Manifest } from "../../src/provenance/manifest.js";
import { ReplayError, replayManifest } from "../../src/provenance/replay.js";
import { ReplayHistory } from "../../src/provenance/replay-history.js";
import { toSI } from "../../src/quantity/units.js";
import { Ledger } from "../../src/store/sqlite/ledger.js";
import { loadManifest } from "../../src/store/sqlite/manifests.js";
import { createTestApp } from "../helpers/db.js";
import { ok, runoffSession, type Json } from "./build-session.js";

async function storedRunoff(): Promise<{ m: Manifest; calls: string[] }> {
  const t = createTestApp();
  const { id, calls } = await runoffSession(t);
  return { m: (await ok(t, "GET", `/v1/sessions/${id}/manifest`)) as Manifest, calls };
}

const copy = (m: Manifest): Json => JSON.parse(JSON.stringify(m));

describe("replay", () => {
  it("re-runs a stored session's calls, results and audit with identical verdicts", async () => {
    const { m } = await storedRunoff();
    expect(replayManifest(m)).toEqual({ identical: true, calls: 4, audits: 1, difference_count: 0, differences: [] });
  });

  it("reports a changed result with the call and field that differ, and every verdict the change alters downstream", async () => {
    const { m, calls } = await storedRunoff();
    const tampered = copy(m);
    tampered.calls[0].result_raw = 1300;
    const r = replayManifest(tampered);
    expect(r.identical).toBe(false);
    expect(r.differences.slice(0, 3)).toEqual([
      { call_id: calls[0], seq: 1, field: "result.return.raw", stored: 1250, replayed: 1300 },
      { call_id: calls[0], seq: 1, field: "result.return.value", stored: 1250, replayed: 1300 },
      { call_id: calls[0], seq: 1, field: "result.return.value_si", stored: 35.39605824, replayed: toSI(1300, "cfs") },
    ]);
    // With 1300 cfs on record, the bare 1250 of call 3 is no longer a carry-over, and 1250 cfs in the answer traces to nothing.
    expect(r.differences.slice(3).map((d) => [d.seq, d.field, d.stored, d.replayed])).toEqual([
      [3, "ok", false, true],
      [3, "would_block", true, false],
      [3, "violations", m.calls[2]!.verdict.violations, []],
      [3, "args.discharge.outcome", "refused", "ok"],
      [3, "args.discharge.violation", "unconverted_carry_over", null],
      [null, "audits[0].ok", true, false],
      [null, "audits[0].numbers[1].status", "sourced", "unsourced"],
      [null, "audits[0].numbers[1].source", "read_discharge.return", null],
      [null, "audits[0].numbers[1].call_id", calls[0], null],
      [null, "audits[0].numbers[1].explanation", "from read_discharge.return", "no tool output produced this value"],
    ]);
    expect(r.differences[8]!.audit_id).toBe(m.audits[0]!.id);
    expect(r.difference_count).toBe(13);
  });

  it("reports a changed argument: '1250 m3/s' after a 1250 cfs output is a carry-over where '1250 cfs' converted", async () => {
    const { m, calls } = await storedRunoff();
    const tampered = copy(m);
    tampered.calls[3].args_raw.discharge = "1250 m3/s";
    const r = replayManifest(tampered);
    expect(r.differences.filter((d) => d.seq === 4).map((d) => [d.call_id, d.field])).toEqual([
      [calls[3], "ok"],
      [calls[3], "would_block"],
      [calls[3], "violations"],
      [calls[3], "args.discharge.raw"],
      [calls[3], "args.discharge.value"],
      [calls[3], "args.discharge.value_si"],
      [calls[3], "args.discharge.outcome"],
      [calls[3], "args.discharge.violation"],
    ]);
  });

  it("reports a stored verdict edited by hand", async () => {
    const { m, calls } = await storedRunoff();
    const tampered = copy(m);
    tampered.calls[2].verdict.violations[0].code = "datum_mismatch";
    expect(replayManifest(tampered).differences).toEqual([
      {
        call_id: calls[2],
        seq: 3,
        field: "violations[0].code",
        stored: "datum_mismatch",
        replayed: "unconverted_carry_over",
      },
    ]);
  });

  it("refuses a manifest whose calls name a declaration version its tools do not hold", async () => {
    const { m } = await storedRunoff();
    const broken = copy(m);
    broken.tools = broken.tools.filter((x: { name: string }) => x.name !== "runoff_depth");
    expect(() => replayManifest(broken)).toThrow(ReplayError);
    expect(() => replayManifest(broken)).toThrow(
      /call 3 \(.+\) was checked against runoff_depth version 2, which the manifest's tools do not hold/,
    );
  });

  it("cuts the difference list at maxDifferences and still counts them all", async () => {
    const { m } = await storedRunoff();
    const tampered = copy(m);
    tampered.calls[0].result_raw = 1300;
    const r = replayManifest(tampered, { maxDifferences: 2 });
    expect(r.differences).toHaveLength(2);
    expect(r.difference_count).toBe(13);
  });

  // Tests never assert timings (a loaded machine took 20 s here); the replay's speed is bench/ material.
  it("replays a stored session of 10,000 calls identically", () => {
    const { db: store, defaultTeamId: teamId } = createTestApp();
    const ledger = new Ledger(store, fixedClock("2026-11-30T00:00:00Z"));
    ledger.tools.put(
      teamId,
      "read_discharge",
      { params: { station: {} }, returns: { unit: "cfs" } },
      ledger.datums(teamId),
    );
    ledger.tools.put(
      teamId,
      "runoff_depth",
      { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
      ledger.datums(teamId),
    );
    const s = ledger.sessions.create(teamId, { enforcement: "warn" }, new Date());
    store.sqlite.transaction(() => {
      for (let i = 0; i < 5000; i++) {
        const c = ledger.call(teamId, s.id, "read_discharge", { station: `S${i}` });
        ledger.result(teamId, s.id, c.call_id, 1000 + i);
        ledger.call(teamId, s.id, "runoff_depth", { discharge: i % 2 ? 1000 + i : `${1000 + i} cfs`, area: 29000 });
      }
    })();
    const m = loadManifest(ledger, teamId, s.id);
    expect(m.calls).toHaveLength(10_000);
    expect(m.calls.filter((c) => c.verdict.violations.some((v) => v.code === "unconverted_carry_over"))).toHaveLength(
      2500,
    );
    const r = replayManifest(m);
    expect(r).toMatchObject({ identical: true, calls: 10_000, difference_count: 0 });
  });
});

describe("the replay history", () => {
  it("answers a magnitude range oldest first and never matches an output without an SI magnitude", () => {
    const h = new ReplayHistory();
    const x = (param: string, value: number, valueSi: number | null, outcome: "ok" | "refused" = "ok") => ({
      direction: "return" as const,
      param,
      raw: "0",
      value,
      unit: "cfs",
      valueSi,
      dimension: "d",
      isSeries: false,
      datum: null,
      crs: null,
      tz: null,
      quality: null,
      source: null,
      observedAt: null,
      outcome,
      violation: null,
    });
    h.record("c1", 1, "t", [x("return.a", 5, 5), x("return.b", 3, null), x("return.c", 4, 4, "refused")]);
    h.record("c2", 2, "t", [x("return", 3, 3)]);
    expect(h.outputsByMagnitude(3, 5).map((o) => [o.callId, o.field])).toEqual([
      ["c1", "return.a"],
      ["c1", "return.b"],
      ["c2", "return"],
    ]);
    expect(h.outputsBySi("d", -1, 4).map((o) => [o.callId, o.field])).toEqual([["c2", "return"]]);
    expect(h.firstOutputs(2).map((o) => o.field)).toEqual(["return.a", "return.b"]);
  });
});

import { describe, expect, it } from "vitest";
import { decide } from "../../src/gates/decide.js";
import { evidenceGate } from "../../src/gates/evidence.js";
import { memoryResolver } from "../../src/gates/ledger-evidence.js";
import { classifySource } from "../../src/gates/sources.js";
import { goodInput, settings, withClaim } from "./build.js";
import { crossing, gateWith, SESSION } from "./ledger-fixtures.js";

const S = `ledger:sessions/${SESSION}`;
const REVISION = {
  revision_id: "01JQREV0000000000000000000",
  value: 1310,
  unit: "ft^3/s",
  quality: "approved",
  detected_at: "2026-06-02T12:00:00.000Z",
  crossing_id: 9,
};

describe("ledger locators in the source rules", () => {
  it("accepts the three ledger forms as locators of form ledger (their spelling is not judged)", () => {
    for (const s of [S, `${S}/calls/3`, "ledger:crossings/42", "ledger:crossings/abc"]) {
      expect(classifySource(s)).toEqual({ kind: "locator", form: "ledger", text: s });
    }
  });
});

describe("evidence gate: a value restates a stored crossing", () => {
  it("resolves 35.4 m^3/s against a stored 1250 cfs and links the claim to the crossing", () => {
    const r = gateWith({ source: S, value: "35.4 m^3/s" }, { [S]: [crossing()] });
    expect(r.outcome).toEqual({ status: "passed", score: 100, findings: [] });
    expect(r.links).toEqual([
      {
        claim_id: "F1",
        locator: S,
        status: "resolved",
        crossing_id: 7,
        session_id: SESSION,
        seq: 1,
        tool: "read_discharge",
        value: 1250,
        unit: "ft^3/s",
        quality: "approved",
        observed_at: "2026-03-14T10:15:00.000-05:00",
        match: "restated",
      },
    ]);
  });

  it.each([
    ["1250 cfs", 35.4, "m^3/s"],
    ["35.4 m^3/s", 1250, "ft^3/s"],
    ["3.78 m", 12.4, "ft"],
    ["12.4 ft", 3.78, "m"],
    ["264.4 Ml/d", 3.06, "m^3/s"],
    ["3.06 m^3/s", 264.4, "Ml/d"],
  ])("restates %s against a stored %s %s", (value, stored, unit) => {
    const r = gateWith({ source: S, value }, { [S]: [crossing({ value: stored, unit })] });
    expect(r.outcome.status).toBe("passed");
    expect(r.links.map((l) => [l.status, l.match, l.value, l.unit])).toEqual([["resolved", "restated", stored, unit]]);
  });

  it("reads a quantity object and a bare number as figures too", () => {
    const q = gateWith({ source: S, value: { value: 35.4, unit: "m^3/s" } }, { [S]: [crossing()] });
    const n = gateWith({ source: S, value: 1250 }, { [S]: [crossing()] });
    expect([q.links[0]?.status, n.links[0]?.status]).toEqual(["resolved", "resolved"]);
  });

  it("blocks 1300 cfs with LEDGER_VALUE_MISMATCH naming the nearest stored value, its tool and call", () => {
    const r = gateWith({ source: S, value: "1300 cfs" }, { [S]: [crossing(), crossing({ id: 8, value: 60, seq: 2 })] });
    expect(r.outcome.status).toBe("blocked");
    expect(r.messages).toEqual([
      `LEDGER_VALUE_MISMATCH error: Fact F1 states 1300 cfs, which restates no value stored under ${S}; the nearest stored value is ` +
        "1250 ft^3/s from read_discharge (call 1, return.discharge, crossing 7). Send the stored value (in any unit it converts to), " +
        "or cite the call that returned 1300 cfs.",
    ]);
    expect(r.links.map((l) => [l.status, l.crossing_id])).toEqual([["value_mismatch", null]]);
  });

  it("blocks 1250 m^3/s against a stored 1250 cfs with LEDGER_UNIT_MISLABELLED and the conversion to send", () => {
    const r = gateWith({ source: S, value: "1250 m^3/s" }, { [S]: [crossing()] });
    expect(r.messages).toEqual([
      "LEDGER_UNIT_MISLABELLED error: Fact F1 states 1250 m^3/s, but the stored 1250 is in ft^3/s, not m^3/s: 1250 ft^3/s from " +
        'read_discharge (call 1, return.discharge, crossing 7). Send "1250 ft^3/s" or its conversion "35.4 m^3/s".',
    ]);
    expect(r.links.map((l) => [l.status, l.crossing_id])).toEqual([["unit_mislabelled", 7]]);
  });

  it("accepts a one-step difference of two stored stages as derived, resting on both", () => {
    const stage = { unit: "ft", field: "return.gage_height", tool: "read_gage_height" };
    const r = gateWith(
      { source: S, value: "2.4 ft" },
      { [S]: [crossing({ id: 1, value: 12.4, ...stage }), crossing({ id: 2, seq: 2, value: 10, ...stage })] },
    );
    expect(r.outcome.status).toBe("passed");
    expect(r.links.map((l) => [l.crossing_id, l.match])).toEqual([
      [1, "derived"],
      [2, "derived"],
    ]);
  });

  it("restates one element of a series crossing", () => {
    const r = gateWith(
      { source: S, value: "1640 cfs" },
      { [S]: [crossing({ value: null, series: [980, 1640, null] })] },
    );
    expect(r.links.map((l) => [l.status, l.value])).toEqual([["resolved", 1640]]);
  });

  it("resolves a claim with no value without comparing anything; a session scope names no single crossing", () => {
    const r = gateWith({ source: S, value: undefined }, { [S]: [crossing(), crossing({ id: 8 })] });
    expect(r.outcome.findings).toEqual([]);
    expect(r.links.map((l) => [l.status, l.session_id, l.crossing_id, l.match])).toEqual([
      ["resolved", SESSION, null, null],
    ]);
    const one = gateWith({ source: "ledger:crossings/7", value: undefined }, { "ledger:crossings/7": [crossing()] });
    expect(one.links.map((l) => [l.status, l.crossing_id])).toEqual([["resolved", 7]]);
  });
});

describe("evidence gate: locators that name nothing", () => {
  it("blocks a malformed crossing id with the accepted forms", () => {
    const r = gateWith({ source: "ledger:crossings/abc", value: "1250 cfs" }, {});
    expect(r.messages).toEqual([
      'LEDGER_SOURCE_NOT_FOUND error: Fact F1 cites "ledger:crossings/abc", which is not a ledger locator; send ledger:sessions/<session_id>, ' +
        "ledger:sessions/<session_id>/calls/<seq> or ledger:crossings/<crossing_id>.",
    ]);
  });

  it("blocks an unknown session (the store answers another team's the same way)", () => {
    const r = gateWith({ source: S, value: "1250 cfs" }, { [S]: null });
    expect(r.messages).toEqual([
      `LEDGER_SOURCE_NOT_FOUND error: Fact F1 cites ${S}, which names nothing in this team's ledger; cite a session, call or crossing ` +
        "of your own team (GET /v1/sessions lists them).",
    ]);
    expect(r.links.map((l) => l.status)).toEqual(["not_found"]);
  });

  it("blocks a call with no stored return value", () => {
    const r = gateWith({ source: `${S}/calls/2`, value: "3 ft" }, { [`${S}/calls/2`]: [] });
    expect(r.messages).toEqual([
      `LEDGER_SOURCE_NOT_FOUND error: Fact F1 cites ${S}/calls/2, which holds no stored return value with a unit to rest on; ` +
        "cite the call that returned the figure.",
    ]);
  });

  it("warns once with LEDGER_NOT_RESOLVED when there is no ledger to resolve against", () => {
    const o = evidenceGate(withClaim(0, { source: S, value: "1250 cfs" }), settings());
    expect(o.status).toBe("passed");
    expect(o.findings.map((f) => `${f.code} ${f.severity}: ${f.message}`)).toEqual([
      "LEDGER_NOT_RESOLVED warning: 1 ledger source(s) were not checked: this evaluation has no ledger to resolve them against. " +
        "Evaluate through the service, or give the CLI --db (or AGENT_LEDGER_DB).",
    ]);
  });
});

describe("evidence gate: quality carries into the report", () => {
  it("warns with LEDGER_PROVISIONAL_SOURCE for a claim resting on a provisional reading", () => {
    const r = gateWith({ source: S, value: "1250 cfs" }, { [S]: [crossing({ quality: "provisional" })] });
    expect(r.outcome.status).toBe("passed");
    expect(r.messages).toEqual([
      "LEDGER_PROVISIONAL_SOURCE warning: Fact F1 rests on a provisional reading: 1250 ft^3/s from read_discharge (call 1, " +
        "return.discharge, crossing 7) observed 2026-03-14T10:15:00.000-05:00. It may still be revised; cite the approved value " +
        'once the publisher approves it, or set evidence.min_quality = "approved" to require it.',
    ]);
  });

  it("blocks it under evidence.min_quality = approved, and an estimated crossing named by id as well", () => {
    const strict = { evidence: { min_quality: "approved" as const } };
    const r = gateWith({ source: S, value: "1250 cfs" }, { [S]: [crossing({ quality: "provisional" })] }, strict);
    expect(r.outcome.status).toBe("blocked");
    expect(r.messages).toEqual([
      "LEDGER_PROVISIONAL_SOURCE error: Fact F1 rests on a provisional reading: 1250 ft^3/s from read_discharge (call 1, " +
        "return.discharge, crossing 7) observed 2026-03-14T10:15:00.000-05:00, and evidence.min_quality is approved. " +
        "Cite a reading of quality approved or better, or wait for the publisher to approve this one.",
    ]);
    const e = gateWith(
      { source: "ledger:crossings/7", value: undefined },
      { "ledger:crossings/7": [crossing({ quality: "estimated" })] },
      strict,
    );
    expect(e.messages[0]).toContain(
      "LEDGER_PROVISIONAL_SOURCE error: Fact F1 rests on an estimated reading: 1250 ft^3/s",
    );
  });
});

describe("evidence gate: revised readings", () => {
  it("blocks a claim that still rests on the old value with LEDGER_SOURCE_REVISED", () => {
    const r = gateWith(
      { source: S, value: "1250 cfs" },
      { [S]: [crossing({ quality: "provisional", revised: REVISION })] },
    );
    expect(r.messages).toEqual([
      "LEDGER_SOURCE_REVISED error: Fact F1 relies on 1250 ft^3/s (provisional) from read_discharge (call 1, return.discharge, " +
        "crossing 7), which was revised to 1310 ft^3/s (approved) at 2026-06-02T12:00:00.000Z (revision 01JQREV0000000000000000000); " +
        "cite the revised reading ledger:crossings/9 and state its value.",
    ]);
    expect(r.links.map((l) => [l.status, l.crossing_id, l.value])).toEqual([["revised", 7, 1250]]);
  });

  it("passes a claim that states the revised value, with the revision's quality", () => {
    const r = gateWith(
      { source: S, value: "1310 cfs" },
      { [S]: [crossing({ quality: "provisional", revised: REVISION })] },
    );
    expect(r.outcome.findings).toEqual([]);
    expect(r.links.map((l) => [l.status, l.value, l.quality])).toEqual([["resolved", 1310, "approved"]]);
  });

  it("passes a claim after a revision of quality only, which no longer warns as provisional", () => {
    const r = gateWith(
      { source: S, value: "1250 cfs" },
      { [S]: [crossing({ quality: "provisional", revised: { ...REVISION, value: 1250 } })] },
    );
    expect(r.outcome.findings).toEqual([]);
    expect(r.links.map((l) => [l.status, l.quality])).toEqual([["resolved", "approved"]]);
  });

  it("blocks a valueless claim naming a crossing whose value was revised", () => {
    const r = gateWith(
      { source: "ledger:crossings/7", value: undefined },
      { "ledger:crossings/7": [crossing({ revised: REVISION })] },
    );
    expect(r.outcome.findings.map((f) => f.code)).toEqual(["LEDGER_SOURCE_REVISED"]);
  });
});

describe("decide: sources in every evaluation", () => {
  it("answers sources through the resolver port, tagged by run when there are several", () => {
    const raw = goodInput();
    const claims = (raw.claims as Record<string, unknown>[]).map((c, i) =>
      i === 0 ? { ...c, source: S, value: "35.4 m^3/s" } : c,
    );
    const evidence = memoryResolver(new Map([[S, [crossing()]]]));
    const one = decide({ ...raw, claims }, { evidence });
    expect(one.sources.map((l) => [l.claim_id, l.status, l.crossing_id, l.run])).toEqual([
      ["F1", "resolved", 7, undefined],
    ]);
    const two = decide(
      {
        runs: [
          { ...raw, claims },
          { ...raw, claims },
        ],
      },
      { evidence },
    );
    expect(two.sources.map((l) => l.run)).toEqual([1, 2]);
    expect(decide(goodInput()).sources).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { fixedClock } from "../../../src/clock.js";
import { Ledger } from "../../../src/store/sqlite/ledger.js";
import { ensureDefaultTeam } from "../../../src/store/sqlite/teams.js";
import { createTestDb } from "../../helpers/db.js";

function ledger() {
  const store = createTestDb();
  const teamId = ensureDefaultTeam(store.db);
  const l = new Ledger(store, fixedClock("2026-03-01T00:00:00Z"));
  const datums = l.datums(teamId);
  l.tools.put(teamId, "read_discharge", { params: { station: {} }, returns: { unit: "cfs" } }, datums);
  l.tools.put(teamId, "read_area", { params: {}, returns: { unit: "km**2" } }, datums);
  l.tools.put(
    teamId,
    "runoff_depth",
    { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2", sourced: true } } },
    datums,
  );
  return { l, teamId, store };
}

describe("carry-over over stored rows", () => {
  it("finds the first output from the last call of a 10,000-call session", () => {
    const { l, teamId } = ledger();
    const s = l.sessions.create(teamId, { context: "" }, new Date());
    const first = l.call(teamId, s.id, "read_discharge", { station: "x" });
    l.result(teamId, s.id, first.call_id, 1250);
    const insert = l.store.sqlite.transaction(() => {
      for (let i = 0; i < 9_998; i += 1) {
        const c = l.call(teamId, s.id, "read_discharge", { station: `s${i}` });
        l.result(teamId, s.id, c.call_id, 2000 + i);
      }
    });
    insert();
    const last = l.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 2000 });
    expect(last.seq).toBe(10_000);
    expect(last.ok).toBe(false);
    expect(last.violations[0]!.code).toBe("unconverted_carry_over");
    expect(last.violations[0]!.message).toMatch(/but read_discharge\.return returned 1250 cfs/);
  });

  it("writes a call's crossings all or none: a failing write leaves no call row behind", () => {
    const { l, teamId, store } = ledger();
    const s = l.sessions.create(teamId, {}, new Date());
    store.sqlite.exec(
      "CREATE TRIGGER fail_second BEFORE INSERT ON crossings WHEN NEW.param = 'area' BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    );
    expect(() => l.call(teamId, s.id, "runoff_depth", { discharge: 1, area: 2 })).toThrowError(/disk full/);
    expect(
      store.sqlite
        .prepare(
          "SELECT (SELECT count(*) FROM calls) c, (SELECT count(*) FROM crossings) x, (SELECT call_count FROM sessions) n",
        )
        .get(),
    ).toEqual({ c: 0, x: 0, n: 0 });
  });
});

describe("indexes", () => {
  const plan = (sql: string, ...args: unknown[]) => {
    const { store } = ledger();
    return (store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[])
      .map((r) => r.detail)
      .join(" | ");
  };
  it("answers the carry-over look-up from an index on (session, direction, value)", () => {
    expect(
      plan(
        "SELECT call_id FROM crossings WHERE session_id = ? AND direction = 'return' AND unit IS NOT NULL AND value IS NOT NULL AND outcome != 'refused' AND value BETWEEN ? AND ? ORDER BY id",
        "s",
        1,
        2,
      ),
    ).toMatch(/SEARCH crossings USING INDEX crossings_outputs_value_idx \(session_id=\? AND value>\? AND value<\?\)/);
  });
  it("answers the sourced look-up from an index on (session, direction, dimension, SI value)", () => {
    expect(
      plan(
        "SELECT call_id FROM crossings WHERE session_id = ? AND direction = 'return' AND dimension = ? AND value_si BETWEEN ? AND ? AND unit IS NOT NULL AND value IS NOT NULL AND outcome != 'refused' ORDER BY id",
        "s",
        "d",
        1,
        2,
      ),
    ).toMatch(
      /USING INDEX crossings_outputs_si_idx \(session_id=\? AND dimension=\? AND value_si>\? AND value_si<\?\)/,
    );
  });
  it("answers the first outputs of a session from an index without sorting", () => {
    const p = plan(
      "SELECT call_id FROM crossings WHERE session_id = ? AND direction = 'return' AND unit IS NOT NULL AND value IS NOT NULL AND outcome != 'refused' ORDER BY id LIMIT 12",
      "s",
    );
    expect(p).toMatch(/USING INDEX crossings_outputs_idx/);
    expect(p).not.toMatch(/TEMP B-TREE/);
  });
});

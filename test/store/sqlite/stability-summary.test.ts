// The stability summary (run_key_values) kept in each evaluation's transaction answers exactly what the history query
// derives from every stored run claim, through an index, and the migration's backfill builds the same rows.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixedClock } from "../../../src/clock.js";
import { MIGRATIONS_DIR } from "../../../src/store/sqlite/db.js";
import { PRIOR_RUN_CLAIMS_SQL, PRIOR_VALUES_SQL } from "../../../src/store/sqlite/claim-history.js";
import { RunStore } from "../../../src/store/sqlite/runs.js";
import { ensureDefaultTeam } from "../../../src/store/sqlite/teams.js";
import { seeded } from "../../reliability/harness.js";
import { createTestDb } from "../../helpers/db.js";

const KEYS = ["Crest Stage", "peak flow", "Gauge Zero"];
const VALUES = ["17.1 ft", "5.212 m", "18.6 ft", "1250 cfs", 42];
const IDS = ["F1", "F2", "F3", undefined];

/** A result of one to three keyed claims drawn from small sets, some naming a claim they supersede. */
function randomResult(rand: () => number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const n = 1 + Math.floor(rand() * 3);
  const claims = Array.from({ length: n }, (_, i) => {
    const id = pick(IDS);
    return {
      ...(id === undefined ? {} : { id: `${id}-${i}` }),
      kind: "fact",
      text: `Claim ${i} of the report.`,
      key: pick(KEYS),
      value: pick(VALUES),
      source: "https://waterdata.usgs.gov/monitoring-location/07374000",
      confidence: 0.9,
      verified: true,
      ...(rand() < 0.15 ? { supersedes: `${pick(["F1", "F2"])}-0` } : {}),
    };
  });
  return { output: "The Mississippi at Baton Rouge crested on 3 June.", claims };
}

function setup() {
  const store = createTestDb();
  const team = ensureDefaultTeam(store.db);
  const clock = fixedClock("2026-03-02T09:00:00Z");
  const runs = new RunStore(store.sqlite);
  const rows = (sql: string, task: string) =>
    store.sqlite
      .prepare(sql)
      .raw(true)
      .all({ team, task, keys: JSON.stringify(KEYS.map((k) => k.toLowerCase())) });
  return { store, team, clock, runs, rows };
}

describe("the stability summary", () => {
  it("answers the same rows as the history query after each of 300 evaluations of 3 tasks", () => {
    const { team, clock, runs, rows } = setup();
    const rand = seeded(16);
    const statuses = { released: 0, blocked: 0 };
    for (let i = 0; i < 300; i += 1) {
      const task = `task-${i % 3}`;
      const input =
        rand() < 0.2
          ? { task: { id: task }, runs: [randomResult(rand), randomResult(rand)] }
          : { task: { id: task }, result: randomResult(rand) };
      const e = runs.evaluate(team, input, { clock, settings: undefined }).evaluation;
      statuses[e.status] += 1;
      clock.advance(60_000);
      expect(rows(PRIOR_VALUES_SQL, task)).toEqual(rows(PRIOR_RUN_CLAIMS_SQL, task));
    }
    // Both kinds of run occur, so the summary was tested on released runs amid blocked ones.
    expect(statuses.released).toBeGreaterThan(20);
    expect(statuses.blocked).toBeGreaterThan(20);
  });

  it("is rebuilt by the migration's backfill exactly as the evaluations kept it", () => {
    const { store, team, clock, runs } = setup();
    const rand = seeded(7);
    for (let i = 0; i < 120; i += 1) {
      runs.evaluate(team, { task: { id: `task-${i % 4}` }, result: randomResult(rand) }, { clock });
      clock.advance(60_000);
    }
    const all = () =>
      store.sqlite.prepare("SELECT * FROM run_key_values ORDER BY team_id, task, key, value, claim_id").all();
    const kept = all();
    expect(kept.length).toBeGreaterThan(10);
    store.sqlite.exec("DELETE FROM run_key_values");
    store.sqlite.exec(readFileSync(`${MIGRATIONS_DIR}/0009_backfill_run_key_values.sql`, "utf8"));
    expect(all()).toEqual(kept);
  });

  it("reads the summary through its (team, task, key, first_id) index, never scanning a table", () => {
    const { store } = setup();
    const plan = (
      store.sqlite.prepare(`EXPLAIN QUERY PLAN ${PRIOR_VALUES_SQL}`).all({ team: "t", task: "x", keys: "[]" }) as {
        detail: string;
      }[]
    ).map((r) => r.detail);
    expect(plan.filter((d) => d.startsWith("SEARCH"))).toEqual([
      expect.stringMatching(/^SEARCH v USING (COVERING )?INDEX \S+ \(team_id=\? AND task=\? AND key=\?\)$/),
    ]);
    expect(plan.some((d) => /^SCAN (v|run_key_values)\b/.test(d))).toBe(false);
  });
});

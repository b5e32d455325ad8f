import { describe, expect, it } from "vitest";
import { fixedClock } from "../../../src/clock.js";
import { claimHistory, PRIOR_RUN_CLAIMS_SQL } from "../../../src/store/sqlite/claim-history.js";
import { ClaimStore } from "../../../src/store/sqlite/claims.js";
import { parseLedgerText } from "../../../src/store/common/claims-jsonl.js";
import { RunStore } from "../../../src/store/sqlite/runs.js";
import { createTeam, ensureDefaultTeam } from "../../../src/store/sqlite/teams.js";
import { createTestDb } from "../../helpers/db.js";
import { CLM1, correctedJune, schedulerResult, stageResult } from "../../helpers/gated.js";

const DAY = 86_400_000;

function setup() {
  const store = createTestDb();
  const team = ensureDefaultTeam(store.db);
  const clock = fixedClock("2026-03-02T09:00:00Z");
  const runs = new RunStore(store.sqlite);
  const count = (table: string) =>
    (store.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  const evaluate = (input: unknown, record = true) => {
    const e = runs.evaluate(team, input, { clock, record }).evaluation;
    clock.advance(DAY);
    return e;
  };
  return { store, team, clock, runs, count, evaluate, claims: new ClaimStore(store.sqlite) };
}

const stage = (value: unknown, extra: Parameters<typeof stageResult>[1] = {}) => ({
  task: { id: "crest-report" },
  result: stageResult(value, extra),
});

describe("recording an evaluation", () => {
  it("stores the run, its report and settings, and each keyed claim with a normalised key", () => {
    const { runs, team, store, evaluate } = setup();
    const e = evaluate(stage("17.1 ft"));
    expect(e).toMatchObject({
      task: "crest-report",
      status: "released",
      created_at: "2026-03-02T09:00:00.000Z",
      blocked_by: [],
    });
    const stored = runs.get(team, e.id);
    expect(stored.input).toEqual(stage("17.1 ft"));
    expect(stored.settings?.simplicity.max_exposed_controls).toBe(7);
    expect(stored.gates.contract.status).toBe("passed");
    expect(
      store.sqlite
        .prepare("SELECT run_id, task, key, value, claim_id, run_index, released, supersedes FROM run_claims")
        .all(),
    ).toEqual([
      {
        run_id: e.id,
        task: "crest-report",
        key: "crest stage",
        value: '"17.1 ft"',
        claim_id: "F1",
        run_index: 1,
        released: 1,
        supersedes: null,
      },
    ]);
  });

  it("records every repeat of {task, runs} with its index", () => {
    const { store, evaluate } = setup();
    evaluate({ task: { id: "t" }, runs: [stageResult("17.1 ft"), stageResult("5.212 m")] });
    expect(store.sqlite.prepare("SELECT run_index, value FROM run_claims ORDER BY id").all()).toEqual([
      { run_index: 1, value: '"17.1 ft"' },
      { run_index: 2, value: '"5.212 m"' },
    ]);
  });

  it("records a contract failure as a blocked run without keyed claims", () => {
    const { count, evaluate } = setup();
    const e = evaluate({ task: { id: "t" }, result: { output: 3 } });
    expect(e.status).toBe("blocked");
    expect(e.blocked_by).toEqual(["contract"]);
    expect([count("runs"), count("run_claims")]).toEqual([1, 0]);
  });

  it("records no keyed claims for a task without an id (it is compared only within its request)", () => {
    const { count, evaluate } = setup();
    expect(evaluate({ result: stageResult("17.1 ft") }).task).toBeNull();
    expect([count("runs"), count("run_claims")]).toEqual([1, 0]);
  });

  it("with record false decides against history and writes no row", () => {
    const { count, evaluate } = setup();
    evaluate(stage("17.1 ft"));
    const before = [count("runs"), count("run_claims")];
    const e = evaluate(stage("18.6 ft"), false);
    expect(e.blocked_by).toEqual(["stability"]);
    expect([count("runs"), count("run_claims")]).toEqual(before);
  });

  it("throws invalid_settings for an unknown settings key and records nothing", () => {
    const { count, runs, team, clock } = setup();
    expect(() =>
      runs.evaluate(team, { result: stageResult("1 m"), settings: { simplicity: { max_controls: 3 } } }, { clock }),
    ).toThrow(expect.objectContaining({ code: "invalid_settings" }));
    expect(count("runs")).toBe(0);
  });
});

describe("stability across stored runs", () => {
  it("passes the same value reworded and blocks a different one (three evaluations of one task)", () => {
    const { evaluate } = setup();
    expect(evaluate(stage("17.1 ft")).gates.stability.status).toBe("not_applicable");
    const reworded = evaluate(stage("17.10 ft", { text: "Baton Rouge crested at this stage on 3 June." }));
    expect([reworded.status, reworded.gates.stability.status]).toEqual(["released", "passed"]);
    const drift = evaluate(stage("18.6 ft"));
    expect(drift.blocked_by).toEqual(["stability"]);
    expect(drift.gates.stability.findings.map((f) => f.code)).toEqual(["VALUE_DRIFT"]);
  });

  it('treats "5.212 m" after "17.1 ft" as the same value and "18.6 ft" as drift', () => {
    const { evaluate } = setup();
    evaluate(stage("17.1 ft"));
    expect(evaluate(stage("5.212 m")).gates.stability.status).toBe("passed");
    expect(evaluate(stage("18.6 ft")).gates.stability.status).toBe("blocked");
  });

  it("treats one elevation on two datums as drift", () => {
    const { evaluate } = setup();
    evaluate(stage("17.1 ft NAVD88"));
    expect(evaluate(stage("17.1 ft NGVD29")).gates.stability.findings.map((f) => f.code)).toEqual(["VALUE_DRIFT"]);
  });

  it("compares with released runs only: a blocked run's value is not the record", () => {
    const { evaluate } = setup();
    evaluate(stage("17.1 ft"));
    expect(evaluate(stage("18.6 ft")).status).toBe("blocked");
    expect(evaluate(stage("17.1 ft")).gates.stability.status).toBe("passed");
  });

  it("lets a released run that names supersedes start the key's record for later runs", () => {
    const { evaluate } = setup();
    evaluate(stage("17.1 ft"));
    const replaced = evaluate(stage("18.6 ft", { supersedes: "F1-march" }));
    expect(replaced.status).toBe("released");
    expect(replaced.gates.stability.findings.map((f) => f.code)).toEqual(["DRIFT_SUPERSEDED"]);
    const later = evaluate(stage("18.6 ft"));
    expect([later.status, later.gates.stability.status]).toEqual(["released", "passed"]);
    expect(evaluate(stage("17.1 ft")).blocked_by).toEqual(["stability"]);
  });

  it("answers not_comparable for a result with no keyed claims once the task has an earlier released run", () => {
    const { evaluate, runs, team, store, clock } = setup();
    const keyless = () => {
      const r = stageResult("17.1 ft");
      r.claims = (r.claims as Record<string, unknown>[]).map(({ key, value, ...c }) => c);
      return { task: { id: "crest-report" }, result: r };
    };
    const first = evaluate(keyless());
    expect([first.status, first.gates.stability.status]).toEqual(["released", "not_applicable"]);
    expect(claimHistory(store.sqlite, team).priorRunCount("crest-report")).toBe(1);
    const second = evaluate(keyless());
    expect([second.status, second.blocked_by, second.gates.stability.status]).toEqual([
      "blocked",
      ["stability"],
      "not_comparable",
    ]);
    expect(second.gates.stability.findings.map((f) => [f.code, f.severity])).toEqual([["NOT_COMPARABLE", "error"]]);
    // A blocked run is not counted; another task has no earlier run.
    expect(claimHistory(store.sqlite, team).priorRunCount("crest-report")).toBe(1);
    const other = runs.evaluate(team, { ...keyless(), task: { id: "other-task" } }, { clock }).evaluation;
    expect(other.gates.stability.status).toBe("not_applicable");
  });

  it("keeps teams apart: another team's runs of the same task id are not history", () => {
    const { evaluate, runs, store, clock } = setup();
    evaluate(stage("17.1 ft"));
    const other = createTeam(store.db, "other").id;
    expect(runs.evaluate(other, stage("18.6 ft"), { clock }).evaluation.gates.stability.status).toBe("not_applicable");
  });

  it("queries run_claims through the (team, task, key) index", () => {
    const { store } = setup();
    const plan = (
      store.sqlite
        .prepare(`EXPLAIN QUERY PLAN ${PRIOR_RUN_CLAIMS_SQL}`)
        .all({ team: "t", task: "task", keys: "[]" }) as { detail: string }[]
    ).map((r) => r.detail);
    // Every access to run_claims, the grouped scan and the two per-key look-ups, goes through the index; none scans the table.
    const searches = plan.filter((d) => d.startsWith("SEARCH"));
    expect(searches).toHaveLength(3);
    for (const d of searches)
      expect(d).toMatch(
        /^SEARCH [a-z] USING INDEX run_claims_team_task_key_idx \(team_id=\? AND task=\? AND key=\?( AND rowid>\?)?\)$/,
      );
    expect(plan.some((d) => /SCAN (run_claims|c|s|x)\b/.test(d))).toBe(false);
  });
});

describe("the June report against the March demotion", () => {
  it("blocks a repeat of the demoted claim unless the result supersedes it", () => {
    const { evaluate, claims, team, clock } = setup();
    expect(evaluate({ task: { id: "scheduler" }, result: schedulerResult("2.08x") }).status).toBe("released");
    claims.create(team, { id: CLM1.id, text: CLM1.text, status: "live" }, clock.now());
    claims.demote(team, CLM1.id, { reason: CLM1.reason, demoted_by: CLM1.demoted_by, watch: CLM1.watch }, clock.now());
    clock.advance(90 * DAY);
    const june = evaluate({
      task: { id: "scheduler" },
      result: schedulerResult("2.08x", { output: "June: Thompson still gains 2.08x." }),
    });
    expect(june.blocked_by).toEqual(["contradiction"]);
    expect(june.gates.contradiction.findings.map((f) => f.code)).toEqual(["LEDGER_DEMOTED_REAPPEARS"]);
    const replaced = evaluate({ task: { id: "scheduler" }, result: correctedJune() });
    expect(replaced.blocked_by).toEqual([]);
    expect(replaced.status).toBe("released");
    expect(replaced.gates.contradiction.findings.map((f) => f.code)).toEqual(["LEDGER_SUPERSEDED"]);
  });

  it("blocks through ledger lines given for one evaluation only (a file ledger)", () => {
    const { runs, team, clock, count } = setup();
    const extraLedger = parseLedgerText(JSON.stringify(CLM1)).claims.map((c) => c.claim);
    const e = runs.evaluate(
      team,
      { task: { id: "s" }, result: schedulerResult("2.08x") },
      { clock, extraLedger },
    ).evaluation;
    expect(e.blocked_by).toEqual(["contradiction"]);
    expect(count("claims")).toBe(0);
  });
});

describe("listing evaluations", () => {
  it("lists newest first, filtered by task, status and since, in pages", () => {
    const { runs, team, evaluate } = setup();
    const a = evaluate(stage("17.1 ft"));
    const b = evaluate(stage("18.6 ft"));
    const c = evaluate({ task: { id: "other" }, result: stageResult("1 m") });
    expect(runs.list(team, { limit: 50 }).items.map((e) => e.id)).toEqual([c.id, b.id, a.id]);
    expect(runs.list(team, { task: "crest-report", limit: 50 }).items.map((e) => e.id)).toEqual([b.id, a.id]);
    expect(runs.list(team, { status: "blocked", limit: 50 }).items).toEqual([
      {
        id: b.id,
        task: "crest-report",
        status: "blocked",
        blocked_by: ["stability"],
        overall_score: b.overall_score,
        created_at: "2026-03-03T09:00:00.000Z",
      },
    ]);
    expect(runs.list(team, { since: "2026-03-03T09:00:00.000Z", limit: 50 }).items.map((e) => e.id)).toEqual([
      c.id,
      b.id,
    ]);
    const p1 = runs.list(team, { limit: 2 });
    expect(p1.items.map((e) => e.id)).toEqual([c.id, b.id]);
    const p2 = runs.list(team, { limit: 2, before: p1.next_cursor });
    expect([p2.items.map((e) => e.id), p2.next_cursor]).toEqual([[a.id], null]);
  });

  it("answers not_found for another team's evaluation", () => {
    const { runs, evaluate, store } = setup();
    const e = evaluate(stage("1 m"));
    expect(() => runs.get(createTeam(store.db, "other").id, e.id)).toThrow(
      expect.objectContaining({ code: "not_found" }),
    );
  });
});

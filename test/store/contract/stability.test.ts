// Store contract: the stability summary (run_key_values) each released evaluation keeps in its own transaction, on
// every engine. Its rows are held to the rule they summarise, computed here from every stored run claim: a key's
// history starts at its latest released run that names a claim in supersedes; each distinct (value, claim) keeps its
// first claim row, latest run, smallest text and latest time. Stability then decides from those rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import type { PgStore } from "../../../src/store/pg/store.js";
import { sqliteHandleOf } from "../../../src/store/sqlite/store.js";
import { stageResult } from "../../helpers/gated.js";
import { seeded } from "../../reliability/harness.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

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

/** Rows of a plain SELECT on either engine (no parameters, the same SQL on both). */
async function select<R>(store: LedgerStore, sql: string): Promise<R[]> {
  if (store.engine === "sqlite")
    return sqliteHandleOf(store, "the stability contract").sqlite.prepare(sql).all() as R[];
  return (await (store as PgStore).db.pool.query(sql)).rows as R[];
}

type ClaimRow = {
  id: number;
  run_id: string;
  task: string;
  key: string;
  value: string;
  text: string;
  claim_id: string | null;
  released: number | boolean;
  supersedes: string | null;
  created_at: string;
};
type SummaryRow = {
  task: string;
  key: string;
  value: string;
  claim_id: string;
  first_id: number;
  last_run_id: string;
  text: string;
  last_created_at: string;
};

/** What run_key_values must hold for a team, from its run claims by the summary's rule. */
function expectedSummary(claims: ClaimRow[]): SummaryRow[] {
  const released = claims.filter((c) => c.released === true || c.released === 1).sort((a, b) => a.id - b.id);
  const out = new Map<string, SummaryRow>();
  for (const c of released) {
    const sameKey = claims.filter((x) => x.task === c.task && x.key === c.key);
    const replacing = sameKey.filter((x) => (x.released === true || x.released === 1) && x.supersedes !== null);
    const lastRun = replacing.sort((a, b) => b.id - a.id)[0]?.run_id;
    const start = lastRun === undefined ? 0 : Math.min(...sameKey.filter((x) => x.run_id === lastRun).map((x) => x.id));
    if (c.id < start) continue;
    const k = [c.task, c.key, c.value, c.claim_id ?? ""].join("\u0000");
    const row = out.get(k);
    if (!row) {
      out.set(k, {
        task: c.task,
        key: c.key,
        value: c.value,
        claim_id: c.claim_id ?? "",
        first_id: c.id,
        last_run_id: c.run_id,
        text: c.text,
        last_created_at: c.created_at,
      });
      continue;
    }
    row.last_run_id = c.run_id > row.last_run_id ? c.run_id : row.last_run_id;
    row.text = c.text < row.text ? c.text : row.text;
    row.last_created_at = c.created_at > row.last_created_at ? c.created_at : row.last_created_at;
  }
  const order = (r: SummaryRow) => [r.task, r.key, r.value, r.claim_id].join("\u0000");
  return [...out.values()].sort((a, b) => (order(a) < order(b) ? -1 : 1));
}

describe.each(await enginesUnderTest())("$name store: the stability summary", (engine) => {
  let store: LedgerStore;
  const clock = settableClock("2026-03-02T09:00:00.000Z");
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  const summary = async (teamId: string) =>
    (
      await select<SummaryRow & { team_id: string }>(
        store,
        "SELECT team_id, task, key, value, claim_id, first_id, last_run_id, text, last_created_at FROM run_key_values",
      )
    )
      .filter((r) => r.team_id === teamId)
      .map(({ team_id: _, ...r }) => r)
      .sort((a, b) => {
        const o = (r: SummaryRow) => [r.task, r.key, r.value, r.claim_id].join("\u0000");
        return o(a) < o(b) ? -1 : 1;
      });
  const claimsOf = async (teamId: string) =>
    (await select<ClaimRow & { team_id: string }>(store, "SELECT * FROM run_claims")).filter(
      (r) => r.team_id === teamId,
    );

  it("holds exactly the summary of every released run claim after each of 60 evaluations of 3 tasks", async () => {
    const teamId = await freshTeam(store);
    const rand = seeded(16);
    const statuses = { released: 0, blocked: 0 };
    for (let i = 0; i < 60; i += 1) {
      const task = `task-${i % 3}`;
      const input =
        rand() < 0.2
          ? { task: { id: task }, runs: [randomResult(rand), randomResult(rand)] }
          : { task: { id: task }, result: randomResult(rand) };
      statuses[(await store.evaluations.evaluate(teamId, input)).evaluation.status] += 1;
      clock.advance(60_000);
      expect(await summary(teamId)).toEqual(expectedSummary(await claimsOf(teamId)));
    }
    // Both kinds of run occur, so the summary was tested on released runs amid blocked ones.
    expect(statuses.released).toBeGreaterThan(5);
    expect(statuses.blocked).toBeGreaterThan(5);
    expect((await summary(teamId)).length).toBeGreaterThan(5);
  });

  it("blocks a drift from the summarised values and releases the value the history already holds", async () => {
    const teamId = await freshTeam(store);
    const stage = (value: string) => ({ task: { id: "crest" }, result: stageResult(value) });
    expect((await store.evaluations.evaluate(teamId, stage("17.1 ft"))).evaluation.status).toBe("released");
    expect(await summary(teamId)).toMatchObject([{ task: "crest", key: "crest stage", value: '"17.1 ft"' }]);
    clock.advance(60_000);
    const drift = (await store.evaluations.evaluate(teamId, stage("18.6 ft"))).evaluation;
    expect(drift.blocked_by).toEqual(["stability"]);
    expect((await summary(teamId)).map((r) => r.value)).toEqual(['"17.1 ft"']);
    clock.advance(60_000);
    expect((await store.evaluations.evaluate(teamId, stage("17.1 ft"))).evaluation.status).toBe("released");
    expect((await summary(teamId)).map((r) => r.value)).toEqual(['"17.1 ft"']);
  });
});

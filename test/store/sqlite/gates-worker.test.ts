// A large evaluation decided in the gates worker gives exactly what the loop gives: the same verdicts and findings, and
// the same rows in runs, run_claims, evaluation_sources and run_key_values, over one ledger with history, a live and a
// demoted claim and a stored reading the claims cite. Two copies of one database file, the same inputs in the same
// order: one copy decided in the worker, the other on the loop. Only the evaluation ids differ (random by design).
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../../src/clock.js";
import { openDb } from "../../../src/store/sqlite/db.js";
import { gatesPool } from "../../../src/store/sqlite/gates-pool.js";
import { RunStore } from "../../../src/store/sqlite/runs.js";
import { createTestApp } from "../../helpers/db.js";
import { factsOnOneKey } from "../../helpers/largest.js";

const dir = mkdtempSync(join(tmpdir(), "gates-worker-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A result of `n` facts on keys k0..k{n-1}, values `${i + shift} m`, one citing the stored reading and, with `quote`,
 * one quoting the demoted claim's figure.
 */
function facts(task: string, n: number, shift: number, session: string, quote = false) {
  return {
    task: { id: task },
    result: {
      output: "Lengths, and the discharge at Baton Rouge.",
      claims: [
        {
          id: "Q",
          kind: "fact",
          text: "Discharge at Baton Rouge on 14 March.",
          value: "35.4 m^3/s",
          source: `ledger:sessions/${session}`,
          confidence: 0.9,
          verified: true,
        },
        ...(quote
          ? [{ id: "W", kind: "fact", text: "Thompson beats greedy by 2.08x.", confidence: 0.9, verified: true }]
          : []),
        ...Array.from({ length: n }, (_, i) => ({
          id: `F${i}`,
          kind: "fact",
          text: `Length ${i}.`,
          key: `k${i}`,
          value: `${i + shift} m`,
          source: "https://example.org/lengths",
          confidence: 0.9,
          verified: true,
        })),
      ],
    },
  };
}

/** The same result without the claim that cites the stored reading (which a fresh ledger does not hold). */
const uncited = (input: ReturnType<typeof facts>) => ({
  ...input,
  result: { ...input.result, claims: input.result.claims.filter((c) => c.id !== "Q") },
});

const TABLES = {
  runs: "SELECT id, task, status, overall_score, report, input, settings, created_at FROM runs ORDER BY created_at, id",
  run_claims:
    "SELECT run_id, task, key, value, text, claim_id, run_index, released, supersedes, created_at FROM run_claims ORDER BY id",
  evaluation_sources: `SELECT run_id, task, run_index, claim_id, claim_text, locator, status, crossing_id, session_id, seq, tool,
    value, unit, quality, observed_at, match, created_at FROM evaluation_sources ORDER BY id`,
  run_key_values:
    "SELECT task, key, value, claim_id, first_id, last_run_id, text, last_created_at FROM run_key_values ORDER BY 1, 2, 3",
};

describe("the gates worker", () => {
  it("decides large evaluations with the same verdicts and writes the same rows as the loop", async () => {
    const clock = fixedClock("2026-03-15T09:00:00Z");
    const file = join(dir, "worker.db");
    const t = createTestApp({ file, clock });
    await t.call("PUT", "/v1/tools/read_discharge", {
      body: { params: { site: {} }, returns: { discharge: { unit: "ft^3/s" } } },
    });
    const session = (
      (await t.call("POST", "/v1/sessions", { body: { context: "Baton Rouge" } })).body as { id: string }
    ).id;
    const call = (
      await t.call("POST", `/v1/sessions/${session}/calls`, {
        body: { tool: "read_discharge", args: { site: "07374000" } },
      })
    ).body as { call_id: string };
    const discharge = { value: 1250, unit: "cfs", quality: "A", source: "usgs:07374000:00060" };
    const stored = await t.call("POST", `/v1/sessions/${session}/calls/${call.call_id}/result`, {
      body: { result: { discharge: { ...discharge, observed_at: "2026-03-14T10:15:00-05:00" } } },
    });
    expect(stored.status).toBe(200);
    const demoted = { id: "CLM-1", text: "Thompson beats greedy by 2.08x", status: "demoted", watch: "2\\.08x" };
    expect(
      (await t.call("POST", "/v1/claims", { body: { ...demoted, reason: "no", demoted_by: "review" } })).status,
    ).toBe(201);
    expect(
      (
        await t.call("POST", "/v1/claims", {
          body: { id: "L-1", text: "k3 is 3 m", status: "live", key: "k3", value: "3 m" },
        })
      ).status,
    ).toBe(201);
    t.db.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    t.db.sqlite.close();
    copyFileSync(file, join(dir, "loop.db"));

    const inputs = [
      facts("lengths", 150, 0, session),
      facts("lengths", 150, 0, session, true),
      facts("lengths", 150, 1, session),
      factsOnOneKey(1000, "one-key"),
    ];
    const decideAll = async (name: string, decideIn: "worker" | "loop") => {
      const db = openDb(join(dir, name));
      const runs = new RunStore(db.sqlite);
      const team = (db.sqlite.prepare("SELECT id FROM teams WHERE name = 'default'").get() as { id: string }).id;
      const at = fixedClock("2026-03-16T09:00:00Z");
      const out = [];
      for (const input of inputs) {
        const { evaluation } = await runs.evaluateOffLoop(team, input, { clock: at, decideIn });
        out.push(evaluation);
        at.advance(1000);
      }
      const rows = Object.fromEntries(Object.entries(TABLES).map(([k, sql]) => [k, db.sqlite.prepare(sql).all()]));
      db.sqlite.close();
      // Evaluation ids are random by design: each is replaced by its position wherever it appears (reports cite runs).
      let text = JSON.stringify({ out, rows });
      out.forEach((e, i) => {
        text = text.replaceAll(e.id, `evaluation ${i}`);
      });
      return JSON.parse(text) as { out: typeof out; rows: Record<string, Record<string, unknown>[]> };
    };
    const before = gatesPool.decided;
    const worker = await decideAll("worker.db", "worker");
    expect(gatesPool.decided - before).toBe(inputs.length);
    const loop = await decideAll("loop.db", "loop");
    expect(gatesPool.decided - before).toBe(inputs.length);

    expect(worker.out.map((e) => [e.status, e.blocked_by])).toEqual([
      ["released", []],
      ["blocked", ["evidence", "baseline", "contradiction"]],
      ["blocked", ["contradiction", "stability"]],
      ["blocked", ["contradiction"]],
    ]);
    expect(worker.out).toEqual(loop.out);
    expect(worker.rows).toEqual(loop.rows);
    expect(worker.rows.runs).toHaveLength(4);
    expect(worker.rows.run_claims).toHaveLength(3 * 150 + 1000);
    expect(worker.rows.evaluation_sources).toHaveLength(1);
    expect(worker.rows.run_key_values).toHaveLength(150);
  }, 60_000);

  it("never lets two large evaluations of one task decided at once miss each other", async () => {
    const file = join(dir, "race.db");
    const t = createTestApp({ file, clock: fixedClock("2026-03-15T09:00:00Z") });
    const runs = new RunStore(t.db.sqlite);
    const clock = fixedClock("2026-03-16T09:00:00Z");
    const both = await Promise.all(
      [0, 1].map((shift) =>
        runs.evaluateOffLoop(t.defaultTeamId, uncited(facts("race", 150, shift, "")), { clock, decideIn: "worker" }),
      ),
    );
    // Whichever was written second was decided against the first (afresh, when the first was written after it was
    // decided): its 150 values differ from the first's on every key.
    const drifts = both.map(
      ({ evaluation }) => evaluation.gates.stability.findings.filter((f) => f.code === "VALUE_DRIFT").length,
    );
    expect(drifts.sort()).toEqual([0, 150]);
    t.db.sqlite.close();
  }, 60_000);
});

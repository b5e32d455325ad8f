// `--provider recorded`: recorded model turns (a fixture copied from the corpus) replayed through the live harness.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runBatch } from "../../src/harness/batch.js";
import { StoreHarnessLedger } from "../../src/harness/ledger.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";
import { readRecorded, recordedCells, recordedProvider } from "../../src/harness/providers/recorded.js";
import { CONDITION_NAMES, taskData } from "../../src/harness/suites.js";
import type { LedgerDb } from "../../src/store/sqlite/db.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { createTestDb } from "../helpers/db.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/harness/transcripts-sample.jsonl", import.meta.url));
let store: LedgerDb | null = null;
afterEach(() => {
  store?.close();
  store = null;
});

describe("replaying recorded runs through the live harness", () => {
  it("regrades each recorded run; the guard blocks the relabelled discharge the recorded guard let through", async () => {
    store = createTestDb();
    const data = taskData();
    const recorded = readRecorded(FIXTURE);
    const ledger = new StoreHarnessLedger(sqliteStore(store), ensureDefaultTeam(store.db), "default");
    const r = await runBatch({
      batch: "rec",
      cells: recordedCells(recorded, data.tasks, CONDITION_NAMES),
      data,
      provider: recordedProvider(recorded, FIXTURE),
      ledger,
      concurrency: 2,
      maxTurns: 8,
      maxTokens: 2048,
    });
    const got = Object.fromEntries(
      r.runs.map((x) => [x.recorded_id, [x.outcome, x.stated, x.violations, x.tool_calls]]),
    );
    expect(got).toEqual({
      // No answer text was kept for this batch: its recorded statement is replayed.
      "results-0001": ["wrong", "3.72 mm/day", 0, 3],
      "proof-0001": ["wrong", "4.5 ft", 0, 4],
      "oss-0443": ["correct", "unavailable", 1, 5],
      "hard-0270": ["error", null, 0, 2],
      // README §5.4: recorded before the relabelled-unit check; a correct re-implementation rejects {1250, m**3/s}.
      "oss-0018": ["blocked", null, 1, 3],
    });
    expect(r.runs.find((x) => x.recorded_id === "oss-0018")!.detail).toBe(
      "blocked: unconverted_carry_over on runoff_depth",
    );
    // The corpus's own derived labels for this run: both elevations shifted, yet the answer states 4.5 ft.
    expect(r.runs.find((x) => x.recorded_id === "proof-0001")!.derived).toMatchObject({
      hazard_params: { "freeboard.flood_stage": [{ call: 3, class: "shifted" }] },
      wrong_answer_ratio: 1.11,
      datum_carry_over_sent: false,
      wrong_answer_signature: "datum_ignored",
    });
  });
});

// The PostgreSQL migration that builds the stability summary from the run claims already stored rebuilds exactly the
// rows the evaluations keep, so a database from before the store maintained it (or one copied from SQLite and
// evaluated on since) reads the same history as a new one.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PG_MIGRATIONS_DIR } from "../../../src/store/pg/open.js";
import { openPgStore } from "../../../src/store/pg/store.js";
import { stageResult } from "../../helpers/gated.js";
import { createPgDatabase } from "../../helpers/pg.js";

describe("the PostgreSQL stability backfill", () => {
  it("rebuilds run_key_values exactly as the evaluations kept it, replacing stale rows", async () => {
    const store = await openPgStore(await createPgDatabase());
    try {
      const team = await store.teams.ensureDefault();
      for (const [i, value] of ["17.1 ft", "5.212 m", "18.6 ft", "17.1 ft", "1250 cfs"].entries())
        await store.evaluations.evaluate(team, { task: { id: `crest-${i % 2}` }, result: stageResult(value) });
      const all = async () =>
        (await store.db.pool.query("SELECT * FROM run_key_values ORDER BY team_id, task, key, value, claim_id")).rows;
      const kept = await all();
      expect(kept.length).toBeGreaterThan(1);
      await store.db.pool.query("UPDATE run_key_values SET text = 'stale'");
      await store.db.pool.query(
        "INSERT INTO run_key_values VALUES ('t', 'gone', 'k', 'null', '', 1, 'r', 'x', '2026-01-01T00:00:00.000Z')",
      );
      const sql = readFileSync(join(PG_MIGRATIONS_DIR, "0007_backfill_run_key_values.sql"), "utf8");
      for (const statement of sql.split("--> statement-breakpoint")) await store.db.pool.query(statement);
      expect(await all()).toEqual(kept);
    } finally {
      await store.close();
    }
  });
});

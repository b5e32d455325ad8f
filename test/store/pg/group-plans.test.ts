// The grouped call and result statements run on generic plans, made once per connection, often while the database is
// new and its statistics say every table is empty. These tests pin that such a plan still reaches each row by its
// key: on the main pool's settings the same statement's plan scans every call per result (130 -> 460 us of server
// time per result as a new ledger grew from 750 to 4,250 calls, until autovacuum's ANALYZE replaced the plan).
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GROUP_CALL, GROUP_RESULT } from "../../../src/store/pg/call-batch.js";
import { openPgStore, type PgStore } from "../../../src/store/pg/store.js";
import { createPgDatabase } from "../../helpers/pg.js";

/** The generic plan `pool` would make for `sql` now, one line per node. */
async function genericPlan(pool: pg.Pool, sql: string): Promise<string> {
  const r = await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN (GENERIC_PLAN) ${sql}`);
  return r.rows.map((row) => row["QUERY PLAN"]).join("\n");
}

const scansOf = (plan: string) => [...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]);

describe("plans of the grouped statements on a new database", () => {
  let store: PgStore;
  beforeAll(async () => {
    store = await openPgStore(await createPgDatabase());
    await store.teams.ensureDefault();
  });
  afterAll(async () => {
    await store.close();
  });

  it("finds the grouped result's call by its key on the group connections, where the default settings scan calls", async () => {
    expect(scansOf(await genericPlan(store.db.groupPool, GROUP_RESULT))).toEqual([]);
    expect(scansOf(await genericPlan(store.db.pool, GROUP_RESULT))).toContain("calls");
  });

  it("finds the grouped call's session, tools and team version by their keys on the group connections", async () => {
    const plan = await genericPlan(store.db.groupPool, GROUP_CALL);
    expect(scansOf(plan)).toEqual([]);
    expect(plan).toMatch(/Index Scan using sessions_pkey on sessions/);
  });

  it("keeps the URL's own start-up options on the group connections beside their two settings", async () => {
    const url = new URL(await createPgDatabase());
    url.searchParams.set("options", "-c statement_timeout=4321");
    const other = await openPgStore(url.toString());
    try {
      const show = async (p: pg.Pool) =>
        (
          await p.query(
            "SELECT current_setting('plan_cache_mode') AS mode, current_setting('enable_seqscan') AS seq, " +
              "current_setting('statement_timeout') AS timeout",
          )
        ).rows[0];
      expect(await show(other.db.groupPool)).toEqual({ mode: "force_generic_plan", seq: "off", timeout: "4321ms" });
      expect(await show(other.db.pool)).toEqual({ mode: "auto", seq: "on", timeout: "4321ms" });
    } finally {
      await other.close();
    }
  });
});

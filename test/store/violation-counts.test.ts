// The dashboard's code facet and crossings list on both engines: violation_counts, kept by triggers on crossings,
// counts each code over a team's whole history exactly as its crossings hold them (its backfill computes the same),
// and each filtered list pages newest first through its own index with no row twice or missing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "../../src/store/sqlite/db.js";
import { PG_MIGRATIONS_DIR } from "../../src/store/pg/open.js";
import { closeEngineApps, createEngineApp, ENGINES, type EngineApp } from "../helpers/engines.js";
import type { DashboardRepo } from "../../src/store/dashboard.js";

const READ = { params: { station: {} }, returns: { unit: "cfs" } };
const RUNOFF = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } } };
const CARRIED = { discharge: 1250, area: 29000 };
const UNPARSED = { discharge: "1250 blorbs", area: 29000 };

/** The last statement of a custom migration file: its fill of violation_counts from the stored crossings. */
function backfill(dir: string, file: string): string {
  return readFileSync(join(dir, file), "utf8").split("--> statement-breakpoint").at(-1)!;
}

describe.each(ENGINES)("on %s, the dashboard's code facet and crossings list", (engine) => {
  let t: EngineApp;
  let dashboard: DashboardRepo;
  let acme: string;
  let other: string;
  const ids: Record<string, number[]> = {};

  /** A session of `token`'s team that reads 1250 cfs, then makes each call of `calls` in turn. */
  async function session(token: string, calls: [string, Record<string, unknown>][], enforcement = "enforce") {
    const s = await t.call("POST", "/v1/sessions", { token, body: { context: "Runoff?", enforcement } });
    const id = (s.body as { id: string }).id;
    const read = await t.call("POST", `/v1/sessions/${id}/calls`, {
      token,
      body: { tool: "read_q", args: { station: "A" } },
    });
    const callId = (read.body as { call_id: string }).call_id;
    await t.call("POST", `/v1/sessions/${id}/calls/${callId}/result`, { token, body: { result: 1250 } });
    for (const [tool, args] of calls) await t.call("POST", `/v1/sessions/${id}/calls`, { token, body: { tool, args } });
  }

  beforeAll(async () => {
    t = await createEngineApp(engine);
    dashboard = t.store.dashboard!;
    const tokens = [await t.teamToken("acme"), await t.teamToken("other")];
    for (const token of tokens) {
      await t.call("PUT", "/v1/tools/read_q", { token, body: READ });
      await t.call("PUT", "/v1/tools/runoff", { token, body: RUNOFF });
      await t.call("PUT", "/v1/tools/runoff_b", { token, body: RUNOFF });
    }
    [acme, other] = [await t.teamId("acme"), await t.teamId("other")];
    // acme: 5 carried-over values (3 by runoff, 2 by runoff_b), 2 unparsed units, one carried value only warned.
    await session(tokens[0]!, [
      ["runoff", CARRIED],
      ["runoff_b", UNPARSED],
      ["runoff", CARRIED],
    ]);
    await session(tokens[0]!, [
      ["runoff_b", CARRIED],
      ["runoff", UNPARSED],
      ["runoff", CARRIED],
      ["runoff_b", CARRIED],
    ]);
    await session(tokens[0]!, [["runoff", CARRIED]], "warn");
    await session(tokens[1]!, [["runoff", CARRIED]]);
    const byCode = await t.rows<{ id: number; violation: string; tool: string }>(
      "SELECT id, violation, tool FROM crossings WHERE team_id = ? AND violation IS NOT NULL ORDER BY id DESC",
      acme,
    );
    ids.all = byCode.map((r) => Number(r.id));
    const runoffB = await t.rows<{ id: number }>(
      "SELECT id FROM crossings WHERE team_id = ? AND tool = 'runoff_b' ORDER BY id DESC",
      acme,
    );
    ids.runoffB = runoffB.map((r) => Number(r.id));
    expect(ids.runoffB.length).toBeGreaterThan(3);
    ids.carried = byCode.filter((r) => r.violation === "unconverted_carry_over").map((r) => Number(r.id));
    ids.carriedRunoff = byCode
      .filter((r) => r.violation === "unconverted_carry_over" && r.tool === "runoff")
      .map((r) => Number(r.id));
  });
  afterAll(closeEngineApps);

  it("counts every code of the team's crossings, warned ones too, and never another team's", async () => {
    expect(await dashboard.codeCounts(acme)).toEqual([
      { code: "unconverted_carry_over", count: 6 },
      { code: "unit_parse_error", count: 2 },
    ]);
    expect(await dashboard.codeCounts(other)).toEqual([{ code: "unconverted_carry_over", count: 1 }]);
    expect(ids.carried).toHaveLength(6);
  });

  it("answers the same counts as a count over the crossings, and its migration's fill computes them again", async () => {
    const counted =
      "SELECT team_id, violation AS code, count(*) AS n FROM crossings WHERE violation IS NOT NULL GROUP BY team_id, violation ORDER BY team_id, code";
    const kept = "SELECT team_id, code, crossings AS n FROM violation_counts ORDER BY team_id, code";
    const expected = (await t.rows(counted)).map((r) => ({ ...r, n: Number(r.n) }));
    expect((await t.rows(kept)).map((r) => ({ ...r, n: Number(r.n) }))).toEqual(expected);
    const exec = async (sql: string) => (t.db ? t.db.sqlite.exec(sql) : await t.rows(sql));
    await exec("DELETE FROM violation_counts");
    const fill =
      engine === "sqlite"
        ? backfill(MIGRATIONS_DIR, "0015_violation_count_triggers.sql")
        : backfill(PG_MIGRATIONS_DIR, "0009_violation_count_triggers.sql");
    await exec(fill);
    expect((await t.rows(kept)).map((r) => ({ ...r, n: Number(r.n) }))).toEqual(expected);
  });

  it("pages through every flagged crossing, by code and by code and tool, newest first, none twice or missing", async () => {
    const walk = async (f: { code?: string; tool?: string }) => {
      const seen: number[] = [];
      let before: number | null = null;
      for (let pages = 0; pages < 20; pages += 1) {
        const page = await dashboard.crossings(acme, { ...f, limit: 2, before });
        seen.push(...page.items.map((x) => x.id));
        if (page.next === null) return seen;
        before = page.next;
      }
      throw new Error("the list did not end");
    };
    expect(await walk({ code: "unconverted_carry_over" })).toEqual(ids.carried);
    expect(await walk({ code: "unconverted_carry_over", tool: "runoff" })).toEqual(ids.carriedRunoff);
    expect((await walk({})).filter((id) => ids.all!.includes(id))).toEqual(ids.all);
    expect(await walk({ tool: "runoff_b" })).toEqual(ids.runoffB);
    expect(await walk({ code: "no_such_code" })).toEqual([]);
  });
});

// `agent-ledger copy`: a SQLite ledger moved to PostgreSQL keeps every row and id, and every session replays the same.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { fixedClock } from "../../../src/clock.js";
import { ClaimStore } from "../../../src/store/sqlite/claims.js";
import { openDb } from "../../../src/store/sqlite/db.js";
import { Ledger } from "../../../src/store/sqlite/ledger.js";
import { copyOrder, sqliteCounts } from "../../../src/store/pg/copy.js";
import { openPgStore } from "../../../src/store/pg/store.js";
import { RunStore } from "../../../src/store/sqlite/runs.js";
import { seedDatabase } from "../../../src/store/sqlite/seed.js";
import { createTeam, createToken, ensureAdminToken } from "../../../src/store/sqlite/teams.js";
import { createPgDatabase } from "../../helpers/pg.js";
import { stageResult } from "../../helpers/gated.js";
import { chainOf } from "../../../src/store/chain-access.js";

const BIN = fileURLToPath(new URL("../../../bin/agent-ledger.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ledger-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A SQLite ledger with a row in every table a ledger fills: two teams, sessions, results, audits, claims, runs. */
function buildLedger(file: string): { teamId: string; otherTeam: string; sessions: number } {
  const db = openDb(file);
  try {
    const { teamId } = seedDatabase(db);
    ensureAdminToken(db.db, "copy-test-admin-token-123");
    const other = createTeam(db.db, "hydrology");
    createToken(db.db, other.id, "ci");
    const clock = fixedClock("2026-05-01T08:00:00Z");
    const ledger = new Ledger(db, clock);
    ledger.registry.addDatum(other.id, "GAGE:07374000", "gage zero");
    ledger.registry.addOffset(other.id, {
      from: "GAGE:07374000",
      to: "NAVD88",
      offsetM: 1.5,
      offsetValue: 1.5,
      offsetUnit: "m",
    });
    ledger.tools.put(
      other.id,
      "read_stage",
      { params: {}, returns: { unit: "ft", datum: "GAGE:07374000" } },
      ledger.datums(other.id),
    );
    ledger.tools.put(
      other.id,
      "crest",
      { params: { stage: { unit: "ft", datum: "NAVD88" } }, returns: { unit: "ft" } },
      ledger.datums(other.id),
    );
    for (let i = 0; i < 3; i += 1) {
      const s = ledger.sessions.create(other.id, { context: `run ${i}`, labels: { run: `r${i}` } }, clock.now());
      const a = ledger.call(other.id, s.id, "read_stage", {});
      ledger.result(other.id, s.id, a.call_id, 12.25 + i);
      ledger.call(other.id, s.id, "crest", { stage: 12.25 + i });
      ledger.call(other.id, s.id, "crest", { stage: { value: 12.25 + i, unit: "ft", datum: "GAGE:07374000" } });
      clock.advance(60_000);
    }
    const claims = new ClaimStore(db.sqlite);
    claims.create(
      other.id,
      { id: "CLM-1", text: "Crest stage is 17.1 ft", key: "crest stage", value: "17.1 ft", status: "live" },
      clock.now(),
    );
    claims.demote(
      other.id,
      "CLM-1",
      { reason: "gage was re-levelled", demoted_by: "hydro", watch: "17\\.1 ?ft" },
      clock.now(),
    );
    const runs = new RunStore(db.sqlite);
    runs.evaluate(other.id, { task: { id: "crest-report" }, result: stageResult("17.3 ft") }, { clock });
    runs.evaluate(other.id, { task: { id: "crest-report" }, result: stageResult("17.1 ft") }, { clock });
    const sessions = (db.sqlite.prepare("SELECT count(*) AS n FROM sessions").get() as { n: number }).n;
    return { teamId, otherTeam: other.id, sessions };
  } finally {
    db.close();
  }
}

describe("agent-ledger copy", () => {
  test("moves every row with its ids to PostgreSQL; counts match and every session replays identically", async () => {
    const file = join(dir, "ledger.db");
    const { otherTeam, sessions } = buildLedger(file);
    const url = await createPgDatabase({ migrated: false });
    const r = await cli(["copy", "--from", file, "--to", url]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    // Every table with rows, in copy order, with the count SQLite holds (tables other features add join the line).
    const lite0 = openDb(file);
    const counts = sqliteCounts(lite0.sqlite);
    lite0.close();
    const filled = copyOrder().filter((t) => (counts[t.name] ?? 0) > 0);
    const total = filled.reduce((n, t) => n + counts[t.name]!, 0);
    expect(filled.map((t) => t.name)).toEqual(
      expect.arrayContaining(["teams", "tokens", "datums", "station_offsets", "claim_events", "run_claims"]),
    );
    expect(lines[0]?.replace(/ from .* to .* \(/, " from FILE to URL (")).toBe(
      `copied ${total} row(s) from FILE to URL (${filled.map((t) => `${t.name} ${counts[t.name]}`).join(", ")}); every table's count matches`,
    );
    expect(lines[1]).toBe(`replayed ${sessions} session(s) on PostgreSQL: all identical to the SQLite ledger`);

    // The same ids on both sides, table by table, and new rows continue after the copied identities.
    const lite = openDb(file);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const [table, key] of [
        ["sessions", "id"],
        ["calls", "id"],
        ["crossings", "id"],
        ["claim_events", "id"],
        ["runs", "id"],
        ["run_claims", "id"],
        ["tokens", "id"],
      ] as const) {
        const here = (
          lite.sqlite.prepare(`SELECT ${key} FROM ${table} ORDER BY ${key}`).all() as Record<string, unknown>[]
        ).map((x) => x[key]);
        const there = (await client.query(`SELECT ${key} FROM ${table} ORDER BY ${key}`)).rows.map((x) =>
          table === "crossings" || table === "claim_events" || table === "run_claims" ? Number(x[key]) : x[key],
        );
        expect(there, table).toEqual(here);
      }
      const maxCrossing = (lite.sqlite.prepare("SELECT max(id) AS m FROM crossings").get() as { m: number }).m;
      // The copied token digests are keyed with the SQLite file's key: PostgreSQL must be given the same one.
      const tokenKey = readFileSync(join(dir, "token.key"), "utf8").trim();
      const store = await openPgStore(url, { tokenKey });
      try {
        const s = await store.sessions.create(otherTeam, { context: "after the copy" });
        const c = await store.calls.call(otherTeam, s.id, "read_stage", {});
        await store.calls.result(otherTeam, s.id, c.call_id, 3);
        const crossings = await store.crossings.ofSession(otherTeam, s.id);
        expect(crossings.map((x) => x.id)).toEqual([maxCrossing + 1]);
        const demoted = await store.claims.get(otherTeam, "CLM-1");
        expect(demoted).toMatchObject({ status: "demoted", watch: "17\\.1 ?ft", reason: "gage was re-levelled" });
        const admin = await store.teams.authenticate("copy-test-admin-token-123");
        expect(admin?.isAdmin).toBe(true);
        // The chain came across with the rows (the canonical form is the same on both engines), and the writes above
        // continued it on PostgreSQL.
        const chain = await chainOf(store);
        const teams = await chain.teams();
        expect(teams.length).toBeGreaterThan(0);
        for (const team of teams) expect((await chain.verify(team)).ok, team).toBe(true);
      } finally {
        await store.close();
      }
    } finally {
      lite.close();
      await client.end();
    }
  }, 120_000);

  test("refuses a target that already holds a ledger, naming what is there", async () => {
    const file = join(dir, "small.db");
    const db = openDb(file);
    seedDatabase(db);
    db.close();
    const url = await createPgDatabase();
    const store = await openPgStore(url);
    await store.seed();
    await store.close();
    const r = await cli(["copy", "--from", file, "--to", url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^agent-ledger: postgres:\/\/postgres@.* already holds a ledger \(9 row\(s\) in crossings, 21 row\(s\) in ledger_entries, 1 row\(s\) in ledger_heads, 1 row\(s\) in teams, 1 row\(s\) in sessions, 4 row\(s\) in calls, 1 row\(s\) in session_labels, 4 row\(s\) in tools\): copy writes into an empty database only, so that every id stays what it was; create a new database and copy into it\n$/,
    );
  }, 60_000);

  test("backup and restore on PostgreSQL say to use pg_dump and pg_restore", async () => {
    const url = await createPgDatabase();
    const b = await cli(["backup", join(dir, "x.db")], { AGENT_LEDGER_DB: url });
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(
      /^agent-ledger: the database is PostgreSQL \(postgres:\/\/postgres@.*\), and agent-ledger backup copies SQLite files only: back PostgreSQL up with its own pg_dump, for example pg_dump --format=custom --file=ledger.dump "\$AGENT_LEDGER_DB", and restore it with pg_restore\n$/,
    );
    const r = await cli(["restore", join(dir, "x.db")], { AGENT_LEDGER_DB: url });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("restore a pg_dump archive with pg_restore");
  }, 60_000);
});

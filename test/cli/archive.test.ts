// `agent-ledger archive`: older sessions move, with their calls, crossings and audits, into an archive file that
// `sessions`, `export` and `replay --archive` read; the live file keeps the newer ones and every evaluation.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { auditAnswer } from "../../src/provenance/audit.js";
import { archiveSessions } from "../../src/store/sqlite/archive.js";
import { auditsFor } from "../../src/store/sqlite/audits.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { Ledger } from "../../src/store/sqlite/ledger.js";
import { RunStore } from "../../src/store/sqlite/runs.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { stageResult } from "../helpers/gated.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const run = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "" },
  });

let dir: string;
let db: string;
const ids: string[] = [];
let evaluation = "";

/** Three sessions a month apart (the first with an audit), and an evaluation. */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ledger-archive-"));
  db = join(dir, "ledger.db");
  const store = openDb(db);
  try {
    const teamId = ensureDefaultTeam(store.db);
    const clock = fixedClock("2026-01-15T00:00:00Z");
    const ledger = new Ledger(store, clock);
    const datums = ledger.datums(teamId);
    ledger.tools.put(teamId, "read_discharge", { params: { station: {} }, returns: { unit: "cfs" } }, datums);
    ledger.tools.put(
      teamId,
      "runoff_depth",
      { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } } },
      datums,
    );
    for (let i = 0; i < 3; i += 1) {
      const s = ledger.sessions.create(teamId, { context: "runoff at 07374000", labels: { run: "arch" } }, clock.now());
      ids.push(s.id);
      const c1 = ledger.call(teamId, s.id, "read_discharge", { station: "07374000" });
      ledger.result(teamId, s.id, c1.call_id, 1250);
      ledger.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 29000 });
      if (i === 0) {
        const answer = "The gauge read 1250 cfs.";
        const audit = auditAnswer(answer, ledger.sessions.history(s.id).all(), { context: s.context });
        auditsFor(store.sqlite).insert(
          teamId,
          s.id,
          { answer, context: s.context, ok: audit.ok, numbers: audit.numbers },
          clock.now(),
        );
      }
      clock.advance(31 * 86_400_000);
    }
    evaluation = new RunStore(store.sqlite).evaluate(
      teamId,
      { task: { id: "crest" }, result: stageResult("17.1 ft") },
      { clock },
    ).evaluation.id;
  } finally {
    store.close();
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const count = (file: string, sql: string) => {
  const d = new Database(file, { readonly: true });
  try {
    return d.prepare(sql).pluck().get();
  } finally {
    d.close();
  }
};

describe("agent-ledger archive", () => {
  it("moves the sessions before the date with every row, and the archive answers sessions, export and replay", () => {
    const archive = join(dir, "2026-q1.db");
    const r = run(["archive", "--before", "2026-03-01", "--to", archive, "--db", db]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      `moved 2 session(s) created before 2026-03-01T00:00:00.000Z from ${db} to ${archive} ` +
        "(2 sessions, 2 session_labels, 4 calls, 8 crossings, 1 audits, 1 audit_items); copy verified before deleting\n",
    );
    expect(r.status).toBe(0);
    // The live file keeps the newest session, every evaluation, and no row of a moved session.
    expect(count(db, "SELECT group_concat(id) FROM sessions")).toBe(ids[2]);
    expect(count(db, "SELECT count(*) FROM crossings")).toBe(4);
    expect(count(db, "SELECT count(*) FROM audits")).toBe(0);
    expect(count(db, `SELECT count(*) FROM runs WHERE id = '${evaluation}'`)).toBe(1);
    expect(count(archive, "SELECT count(*) FROM crossings")).toBe(8);
    // The dashboard's code facet follows the rows: the live file counts the carry-over it kept, the archive its two.
    const codes = "SELECT group_concat(code || ':' || crossings) FROM violation_counts";
    expect(count(db, codes)).toBe("unconverted_carry_over:1");
    expect(count(archive, codes)).toBe("unconverted_carry_over:2");

    const listed = run(["sessions", "--label", "run:arch", "--archive", archive]);
    expect(
      listed.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("  ")[0]),
    ).toEqual([ids[1], ids[0]]);
    const exported = JSON.parse(run(["export", ids[0]!, "--archive", archive]).stdout);
    expect([exported.session.id, exported.calls.length, exported.audits.length]).toEqual([ids[0], 2, 1]);
    const replayed = run(["replay", ids[0]!, "--archive", archive]);
    expect(replayed.stdout).toBe(`identical  ${ids[0]}  2 calls, 1 audits\n`);
    expect(replayed.status).toBe(0);
    // Archiving again moves nothing new; the archive keeps what it has.
    const again = run(["archive", "--before", "2026-03-01", "--to", archive, "--db", db]);
    expect(again.stdout).toBe(`moved 0 session(s) created before 2026-03-01T00:00:00.000Z from ${db} to ${archive}\n`);
    expect(count(archive, "SELECT count(*) FROM sessions")).toBe(2);
  }, 180_000);

  it("deletes nothing when the archive is missing a row it was to hold", () => {
    const file = join(dir, "broken.db");
    const archive = openDb(file);
    // A trigger that drops one crossing on its way in stands for a copy that lost a row.
    archive.sqlite.exec(
      "CREATE TRIGGER lose AFTER INSERT ON crossings WHEN NEW.param = 'area' BEGIN DELETE FROM crossings WHERE id = NEW.id; END",
    );
    archive.close();
    const live = openDb(db);
    try {
      const before = live.sqlite.prepare("SELECT count(*) FROM crossings").pluck().get();
      expect(() => archiveSessions(live, "2027-01-01T00:00:00.000Z", file)).toThrow(
        `1 row(s) of crossings are not in the archive ${file}; nothing was deleted`,
      );
      expect(live.sqlite.prepare("SELECT count(*) FROM crossings").pluck().get()).toBe(before);
      expect(live.sqlite.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(1);
    } finally {
      live.close();
    }
  });

  it("refuses a --before that is not a date, naming it", () => {
    const r = run(["archive", "--before", "last year", "--to", join(dir, "x.db"), "--db", db]);
    expect(r.stderr).toContain("--before must be a date such as 2026-11-30");
    expect(r.status).toBe(1);
  }, 60_000);
});

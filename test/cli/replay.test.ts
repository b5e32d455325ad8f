import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { auditAnswer } from "../../src/provenance/audit.js";
import { auditsFor } from "../../src/store/sqlite/audits.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { Ledger } from "../../src/store/sqlite/ledger.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const run = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "" },
  });

let dir: string;
let db: string;
const ids: string[] = [];
const calls: string[] = [];

/** Two stored sessions labelled run:cli in a database file: the runoff session (with an audit) and a short one. */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ledger-replay-"));
  db = join(dir, "ledger.db");
  const store = openDb(db);
  try {
    const teamId = ensureDefaultTeam(store.db);
    const clock = fixedClock("2026-11-30T00:00:00Z");
    const ledger = new Ledger(store, clock);
    const datums = ledger.datums(teamId);
    ledger.tools.put(teamId, "read_discharge", { params: { station: {} }, returns: { unit: "cfs" } }, datums);
    ledger.tools.put(
      teamId,
      "runoff_depth",
      { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } },
      datums,
    );
    const s = ledger.sessions.create(teamId, { context: "runoff at 07374000", labels: { run: "cli" } }, clock.now());
    ids.push(s.id);
    const c1 = ledger.call(teamId, s.id, "read_discharge", { station: "07374000" });
    ledger.result(teamId, s.id, c1.call_id, 1250);
    const c2 = ledger.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 29000 });
    const c3 = ledger.call(teamId, s.id, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
    ledger.result(teamId, s.id, c3.call_id, 0.10545584248055169);
    calls.push(c1.call_id, c2.call_id, c3.call_id);
    const answer = "1250 cfs gives 0.105 mm/day.";
    const audit = auditAnswer(answer, ledger.sessions.history(s.id).all(), { context: s.context });
    auditsFor(store.sqlite).insert(
      teamId,
      s.id,
      { answer, context: s.context, ok: audit.ok, numbers: audit.numbers },
      clock.now(),
    );
    clock.advance(60_000);
    const s2 = ledger.sessions.create(teamId, { labels: { run: "cli" } }, clock.now());
    ids.push(s2.id);
    ledger.call(teamId, s2.id, "read_discharge", { station: "A" });
  } finally {
    store.close();
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agent-ledger replay, sessions and export", () => {
  it("replay <id> prints one line per session, draws the progress bar on stderr and exits 0 when every verdict is identical", () => {
    const r = run(["replay", ids[0]!, "--db", db]);
    expect(r.stdout).toBe(`identical  ${ids[0]}  3 calls, 1 audits\n`);
    expect(r.stderr).toBe(`[${"#".repeat(30)}] 1/1\nreplayed 1 session(s): 1 identical, 0 differ\n`);
    expect(r.status).toBe(0);
  });

  it("sessions --label lists the team's sessions newest first; export prints the manifest", () => {
    const list = run(["sessions", "--label", "run:cli", "--db", db]);
    expect(list.status).toBe(0);
    expect(
      list.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("  ")[0]),
    ).toEqual([ids[1], ids[0]]);
    expect(list.stdout).toContain(
      `${ids[0]}  2026-11-30T00:00:00.000Z  enforce  calls=3 violations=1 would_block=1  run:cli\n`,
    );
    const exported = run(["export", ids[0]!, "--db", db]);
    expect(exported.status).toBe(0);
    const m = JSON.parse(exported.stdout);
    expect([m.format, m.session.id, m.calls.length, m.audits.length]).toEqual([
      "agent-ledger.manifest/1",
      ids[0],
      3,
      1,
    ]);
  });

  it("exits 2 naming the call and field when a stored result row was tampered with", () => {
    const store = openDb(db);
    store.sqlite.prepare("UPDATE calls SET result_raw = '1300' WHERE id = ?").run(calls[0]);
    store.close();
    const r = run(["replay", "--label", "run:cli", "--db", db]);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(
      new RegExp(
        `^DIFFERS    ${ids[0]}  \\d+ difference\\(s\\); first at call 1 \\(${calls[0]}\\): result\\.return\\.raw stored 1250, replayed 1300$`,
      ),
    );
    expect(lines[1]).toBe(`identical  ${ids[1]}  1 calls, 0 audits`);
    expect(r.stderr).toContain("replayed 2 session(s): 1 identical, 1 differ\n");
    expect(r.stderr).toContain("agent-ledger: 1 session(s) replayed with different verdicts\n");
    expect(r.status).toBe(2);
  });

  it("exits 1 naming an unknown session id", () => {
    const r = run(["replay", "01NOSUCHSESSION", "--db", db]);
    expect(r.stderr).toBe("agent-ledger: no session '01NOSUCHSESSION' in this database\n");
    expect(r.status).toBe(1);
  });
});

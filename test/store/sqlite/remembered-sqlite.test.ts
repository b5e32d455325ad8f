// Two connections on one SQLite file stand for two processes. A SessionStore remembers the session heads it read and
// the calls it wrote but has not answered, and the library passes the tool version it has just declared; these tests
// pin that nothing remembered is trusted stale: whatever the other connection wrote (a result, a deletion, a new
// declaration, calls of its own) is what the next call or result here answers by, and numbering stays gapless.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSession, quantityTool, withSession } from "../../../src/index.js";
import { systemClock } from "../../../src/clock.js";
import { archiveSessions } from "../../../src/store/sqlite/archive.js";
import { atomic } from "../../../src/store/sqlite/atomic.js";
import { openDb, type LedgerDb } from "../../../src/store/sqlite/db.js";
import { ConflictError, NotFoundError } from "../../../src/store/common/errors.js";
import { type Ledger, ledgerFor } from "../../../src/store/sqlite/ledger.js";
import { ensureDefaultTeam } from "../../../src/store/sqlite/teams.js";

const READ = { params: { station: {} }, returns: { unit: "cfs" } };
const RUNOFF = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } } };

let dir: string;
let here: LedgerDb;
let there: LedgerDb;
let a: Ledger;
let b: Ledger;
let teamId: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "remembered-"));
  here = openDb(join(dir, "ledger.db"));
  there = openDb(join(dir, "ledger.db"));
  a = ledgerFor(here, systemClock);
  b = ledgerFor(there, systemClock);
  teamId = ensureDefaultTeam(here.db);
  a.tools.put(teamId, "read_discharge", READ, a.datums(teamId));
  a.tools.put(teamId, "runoff_depth", RUNOFF, a.datums(teamId));
});

afterEach(() => {
  here.close();
  there.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = <T>(sql: string, ...p: unknown[]) => here.sqlite.prepare(sql).all(...p) as T[];

describe("a SQLite connection remembering sessions and calls", () => {
  it("answers 409 to a result the other connection stored first, and keeps the first result", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    const c = a.call(teamId, s.id, "read_discharge", { station: "07374000" });
    b.result(teamId, s.id, c.call_id, 1250);
    expect(() => a.result(teamId, s.id, c.call_id, 99)).toThrow(
      new ConflictError(`call '${c.call_id}' already has a result; a result is stored once`),
    );
    expect(rows("SELECT result_raw FROM calls WHERE id = ?", c.call_id)).toStrictEqual([{ result_raw: "1250" }]);
    expect(rows("SELECT direction, value FROM crossings WHERE call_id = ? ORDER BY id", c.call_id)).toStrictEqual([
      { direction: "param", value: null },
      { direction: "return", value: 1250 },
    ]);
  });

  it("answers 404 for the session to a call and to a result once the other connection archived it, writing nothing", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date("2026-01-01T00:00:00Z"));
    const c = a.call(teamId, s.id, "read_discharge", { station: "07374000" });
    archiveSessions(there, "2026-02-01T00:00:00Z", join(dir, "archive.db"));
    const gone = new NotFoundError(`no session '${s.id}'`);
    expect(() => a.call(teamId, s.id, "read_discharge", { station: "07374000" })).toThrow(gone);
    expect(() => a.result(teamId, s.id, c.call_id, 1250)).toThrow(gone);
    expect(rows("SELECT count(*) AS n FROM calls")).toStrictEqual([{ n: 0 }]);
    expect(rows("SELECT count(*) AS n FROM crossings")).toStrictEqual([{ n: 0 }]);
  });

  it("answers 404 for the call, not the session, to a result for a call the session does not have", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    const other = a.sessions.create(teamId, { context: "" }, new Date());
    const c = a.call(teamId, s.id, "read_discharge", { station: "07374000" });
    expect(() => a.result(teamId, other.id, c.call_id, 1250)).toThrow(
      new NotFoundError(`no call '${c.call_id}' in session '${other.id}'`),
    );
    expect(rows("SELECT result_raw FROM calls WHERE id = ?", c.call_id)).toStrictEqual([{ result_raw: null }]);
  });

  it("numbers calls from both connections on one session without a gap, in the order they were stored", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    const seqs: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const l = i % 3 === 0 ? b : a;
      const c = l.call(teamId, s.id, "read_discharge", { station: `s${i}` });
      l.result(teamId, s.id, c.call_id, 1000 + i);
      seqs.push(c.seq);
    }
    expect(seqs).toStrictEqual([1, 2, 3, 4, 5, 6]);
    expect(rows("SELECT seq, args_raw FROM calls WHERE session_id = ? ORDER BY seq", s.id)).toStrictEqual(
      [0, 1, 2, 3, 4, 5].map((i) => ({ seq: i + 1, args_raw: `{"station":"s${i}"}` })),
    );
    expect(rows("SELECT call_count FROM sessions WHERE id = ?", s.id)).toStrictEqual([{ call_count: 6 }]);
  });

  it("sees a carry-over source the other connection stored in the same session", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    const first = a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 });
    expect(first.ok).toBe(true);
    const read = b.call(teamId, s.id, "read_discharge", { station: "07374000" });
    b.result(teamId, s.id, read.call_id, 1250);
    const next = a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 });
    expect([next.ok, next.violations[0]?.code]).toStrictEqual([false, "unconverted_carry_over"]);
  });

  it("sees an output written on this connection by a statement of its own, outside the store", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    expect(a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 }).ok).toBe(true);
    here.sqlite
      .prepare(
        `INSERT INTO crossings (team_id, session_id, call_id, seq, tool, direction, param, raw, value, unit, value_si, dimension,
         outcome) VALUES (?, ?, 'c0', 1, 'read_discharge', 'return', 'return', '1250', 1250, 'cfs', 35.39605824, '[length]^3 [time]^-1', 'ok')`,
      )
      .run(teamId, s.id);
    const next = a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 });
    expect([next.ok, next.violations[0]?.code]).toStrictEqual([false, "unconverted_carry_over"]);
  });

  it("forgets an output whose transaction rolled back: the next call has no carry-over source", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    expect(a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 }).ok).toBe(true);
    const read = a.call(teamId, s.id, "read_discharge", { station: "07374000" });
    expect(() =>
      atomic(here.sqlite, () => {
        a.result(teamId, s.id, read.call_id, 1250);
        throw new Error("the caller gave up");
      }),
    ).toThrow("the caller gave up");
    expect(a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 }).ok).toBe(true);
    expect(
      here.sqlite.transaction(() => {
        a.result(teamId, s.id, read.call_id, 1250);
        return a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 }).ok;
      })(),
    ).toBe(false);
  });

  it("forgets an output written in a transaction begun outside the store that rolled back", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    expect(a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 }).ok).toBe(true);
    const read = a.call(teamId, s.id, "read_discharge", { station: "07374000" });
    expect(() =>
      here.sqlite.transaction(() => {
        a.result(teamId, s.id, read.call_id, 1250);
        expect(a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 }).ok).toBe(false);
        throw new Error("the caller gave up");
      })(),
    ).toThrow("the caller gave up");
    expect(a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 }).ok).toBe(true);
  });

  it("finds the first of 300 outputs, past what is remembered of a session", () => {
    const s = a.sessions.create(teamId, { context: "" }, new Date());
    for (let i = 0; i < 300; i += 1) {
      const c = a.call(teamId, s.id, "read_discharge", { station: `s${i}` });
      a.result(teamId, s.id, c.call_id, i === 0 ? 1250 : 2000 + i);
    }
    const next = a.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 1 });
    expect([next.ok, next.violations[0]?.code]).toStrictEqual([false, "unconverted_carry_over"]);
    const last = a.call(teamId, s.id, "runoff_depth", { discharge: 2299, area: 1 });
    expect([last.ok, last.violations[0]?.code]).toStrictEqual([false, "unconverted_carry_over"]);
    expect(a.call(teamId, s.id, "runoff_depth", { discharge: 2300, area: 1 }).ok).toBe(true);
  });
});

describe("a library session declaring its tools", () => {
  it("declares its own version again after the other connection re-declared the tool, and names it in the call", async () => {
    const read = quantityTool({ name: "read_stage", params: { station: {} }, returns: { unit: "ft" } }, () => 12.5);
    const s = openSession({ ledger: { store: here, teamId } });
    await withSession(s, () => read.invoke({ station: "a" }));
    b.tools.put(teamId, "read_stage", { params: { station: {} }, returns: { unit: "m" } }, b.datums(teamId));
    await withSession(s, () => read.invoke({ station: "b" }));
    expect(rows("SELECT seq, tool_version FROM calls WHERE session_id = ? ORDER BY seq", s.id)).toStrictEqual([
      { seq: 1, tool_version: 1 },
      { seq: 2, tool_version: 3 },
    ]);
    expect(rows("SELECT version, declaration FROM tools WHERE name = 'read_stage' ORDER BY version")).toStrictEqual([
      { version: 1, declaration: '{"params":{"station":{}},"returns":{"unit":"ft"}}' },
      { version: 2, declaration: '{"params":{"station":{}},"returns":{"unit":"m"}}' },
      { version: 3, declaration: '{"params":{"station":{}},"returns":{"unit":"ft"}}' },
    ]);
    // The result of the second call is labelled by the declaration the call was checked against: feet, not metres.
    expect(
      rows("SELECT unit FROM crossings WHERE session_id = ? AND direction = 'return' ORDER BY id", s.id),
    ).toStrictEqual([{ unit: "ft" }, { unit: "ft" }]);
  });

  it("uses the version this connection's own re-declaration made, between two calls of one session", async () => {
    const read = quantityTool({ name: "read_flow", params: { station: {} }, returns: { unit: "cfs" } }, () => 1250);
    const s = openSession({ ledger: { store: here, teamId } });
    await withSession(s, () => read.invoke({ station: "a" }));
    a.tools.put(teamId, "read_flow", { params: { station: {} }, returns: { unit: "m**3/s" } }, a.datums(teamId));
    await withSession(s, () => read.invoke({ station: "b" }));
    expect(rows("SELECT seq, tool_version FROM calls WHERE session_id = ? ORDER BY seq", s.id)).toStrictEqual([
      { seq: 1, tool_version: 1 },
      { seq: 2, tool_version: 3 },
    ]);
  });
});

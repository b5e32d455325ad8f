// The session list driven by a filter's index: newest first, each session once however often it matched, and pages
// that together hold every matching session exactly once.
import { describe, expect, it } from "vitest";
import { fixedClock } from "../../../src/clock.js";
import { Ledger } from "../../../src/store/sqlite/ledger.js";
import { listSessions } from "../../../src/store/sqlite/queries.js";
import { ensureDefaultTeam } from "../../../src/store/sqlite/teams.js";
import { createTestDb } from "../../helpers/db.js";
import type { SessionFilter } from "../../../src/store/model.js";

function setup() {
  const store = createTestDb();
  const team = ensureDefaultTeam(store.db);
  const clock = fixedClock("2026-11-01T00:00:00Z");
  const ledger = new Ledger(store, clock);
  ledger.tools.put(team, "read_q", { params: { station: {} }, returns: { unit: "cfs" } }, ledger.datums(team));
  ledger.tools.put(team, "runoff", { params: { discharge: { unit: "m**3/s" } } }, ledger.datums(team));
  const ids: string[] = [];
  for (let i = 0; i < 7; i += 1) {
    const s = ledger.sessions.create(team, { labels: { run: i % 2 ? "odd" : "even" } }, clock.now());
    ids.push(s.id);
    // Every session reads twice; the even ones send the cfs reading on unconverted, twice (two carry-overs).
    for (const station of ["A", "B"]) {
      const c = ledger.call(team, s.id, "read_q", { station });
      ledger.result(team, s.id, c.call_id, 1250);
    }
    if (i % 2 === 0) for (let k = 0; k < 2; k += 1) ledger.call(team, s.id, "runoff", { discharge: 1250 });
    clock.advance(3_600_000);
  }
  const page = (f: Omit<SessionFilter, "limit">, limit: number) => {
    const out: string[][] = [];
    let cursor: readonly [string, string] | null = null;
    for (;;) {
      const rows = listSessions(store.sqlite, team, { ...f, limit, cursor });
      const items = rows.slice(0, limit);
      out.push(items.map((r) => r.id));
      if (rows.length <= limit) return out;
      const last = items[items.length - 1]!;
      cursor = [last.createdAt, last.id];
    }
  };
  return { ids, page };
}

describe("the session list by filter", () => {
  it("lists each session once, newest first, though its tool and code matched several times", () => {
    const { ids, page } = setup();
    const newest = [...ids].reverse();
    expect(page({ tool: "read_q" }, 50)).toEqual([newest]);
    expect(page({ code: "unconverted_carry_over" }, 50)).toEqual([newest.filter((_, i) => (6 - i) % 2 === 0)]);
    expect(page({ labels: [{ key: "run", value: "odd" }], tool: "read_q" }, 50)).toEqual([
      newest.filter((_, i) => (6 - i) % 2 === 1),
    ]);
  });

  it("pages through every match exactly once, two at a time, whichever filter drives", () => {
    const { ids, page } = setup();
    const newest = [...ids].reverse();
    expect(page({ tool: "read_q" }, 2)).toEqual([
      newest.slice(0, 2),
      newest.slice(2, 4),
      newest.slice(4, 6),
      newest.slice(6),
    ]);
    const even = newest.filter((_, i) => (6 - i) % 2 === 0);
    expect(page({ code: "unconverted_carry_over", tool: "runoff" }, 2)).toEqual([even.slice(0, 2), even.slice(2)]);
    expect(page({ labels: [{ key: "run", value: "even" }], since: "2026-11-01T01:00:00Z" }, 2)).toEqual([
      even.slice(0, 2),
      even.slice(2, 3),
    ]);
  });
});

// listSessions walks a filter's index by session id (or scans newest first without one): every form must
// answer exactly the rows and the order a plain filter over every session gives, page after page.
import { beforeAll, describe, expect, it } from "vitest";
import { openDb, type LedgerDb } from "../../../src/store/sqlite/db.js";
import { newId } from "../../../src/store/common/ids.js";
import { listSessions } from "../../../src/store/sqlite/queries.js";
import { createTeam } from "../../../src/store/sqlite/teams.js";
import type { SessionFilter } from "../../../src/store/model.js";

const N = 6_000;
type Row = { id: string; at: string; labels: Record<string, string>; tools: string[]; codes: string[] };
let db: LedgerDb;
let team: string;
const rows: Row[] = [];

beforeAll(() => {
  db = openDb(":memory:");
  team = createTeam(db.db, "list").id;
  const other = createTeam(db.db, "other").id;
  const s = db.sqlite;
  const session = s.prepare("INSERT INTO sessions (id, team_id, labels, created_at) VALUES (?, ?, ?, ?)");
  const label = s.prepare("INSERT INTO session_labels (session_id, team_id, key, value) VALUES (?, ?, ?, ?)");
  const call = s.prepare(
    "INSERT INTO calls (id, team_id, session_id, seq, tool, guarded, args_raw, ok, created_at) VALUES (?, ?, ?, ?, ?, 1, '{}', 1, ?)",
  );
  const crossing =
    s.prepare(`INSERT INTO crossings (team_id, session_id, call_id, seq, tool, direction, param, raw, outcome, violation, created_at)
                              VALUES (?, ?, ?, 1, ?, 'param', 'p', '1', 'refused', ?, ?)`);
  s.transaction(() => {
    for (let i = 0; i < N; i += 1) {
      // Every third pair of sessions shares a millisecond, so the id breaks ties in the order.
      const t = Date.parse("2026-01-01T00:00:00Z") + Math.floor(i / 2) * 60_000;
      const at = new Date(t).toISOString();
      const id = newId(t);
      const labels: Record<string, string> = { all: "yes", ...(i % 7 === 0 ? { rare: "seven" } : {}) };
      const tools = i % 3 === 0 ? ["common_tool"] : i % 500 === 0 ? ["rare_tool"] : [];
      const codes = i % 4 === 0 ? ["missing_unit"] : [];
      const team_ = i === 17 ? other : team;
      session.run(id, team_, JSON.stringify(labels), at);
      for (const [k, v] of Object.entries(labels)) label.run(id, team_, k, v);
      tools.forEach((tool, seq) => {
        const callId = newId(t);
        call.run(callId, team_, id, seq + 1, tool, at);
        for (const code of codes) crossing.run(team_, id, callId, tool, code, at);
      });
      if (team_ === team) rows.push({ id, at, labels, tools, codes: tools.length > 0 ? codes : [] });
    }
  })();
});

/** Every page of a filter, following the cursor as the routes do. */
function allPages(f: Omit<SessionFilter, "limit" | "cursor">, limit: number): string[] {
  const out: string[] = [];
  let cursor: readonly [string, string] | null = null;
  for (;;) {
    const page = listSessions(db.sqlite, team, { ...f, limit, cursor });
    const items = page.slice(0, limit);
    out.push(...items.map((r) => r.id));
    if (page.length <= limit) return out;
    const last = items[items.length - 1]!;
    cursor = [last.createdAt, last.id];
  }
}

function expected(f: Omit<SessionFilter, "limit" | "cursor">): string[] {
  return rows
    .filter(
      (r) =>
        (f.labels ?? []).every((l) => r.labels[l.key] === l.value) &&
        (f.tool === undefined || r.tools.includes(f.tool)) &&
        (f.code === undefined || r.codes.includes(f.code)) &&
        (f.since === undefined || r.at >= f.since) &&
        (f.until === undefined || r.at < f.until),
    )
    .sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))
    .map((r) => r.id);
}

describe("the session list's two plans", () => {
  const cases: [string, Omit<SessionFilter, "limit" | "cursor">][] = [
    ["a label on every session (scanned newest first)", { labels: [{ key: "all", value: "yes" }] }],
    ["a label on one session in seven (drives the query)", { labels: [{ key: "rare", value: "seven" }] }],
    ["a common label and a rare tool", { labels: [{ key: "all", value: "yes" }], tool: "rare_tool" }],
    ["a common tool and a code", { tool: "common_tool", code: "missing_unit" }],
    [
      "a rare label, a tool and a time window",
      {
        labels: [{ key: "rare", value: "seven" }],
        tool: "common_tool",
        since: "2026-01-01T10:00:00.000Z",
        until: "2026-01-02T12:00:00.000Z",
      },
    ],
    ["a label nobody has", { labels: [{ key: "all", value: "no" }] }],
  ];
  for (const [name, f] of cases) {
    it(`answers exactly the matching sessions, newest first, across pages: ${name}`, () => {
      const want = expected(f);
      expect(allPages(f, 500)).toEqual(want);
      expect(listSessions(db.sqlite, team, { ...f, limit: 50 }).map((r) => r.id)).toEqual(want.slice(0, 51));
    });
  }

  it("never answers another team's session", () => {
    expect(allPages({ labels: [{ key: "all", value: "yes" }] }, 1000)).toHaveLength(N - 1);
  });
});

import { describe, expect, it } from "vitest";
import { claimHistory, DEMOTED_CLAIMS_SQL, LIVE_CLAIMS_SQL } from "../../../src/store/sqlite/claim-history.js";
import { ClaimStore } from "../../../src/store/sqlite/claims.js";
import { parseLedgerText } from "../../../src/store/common/claims-jsonl.js";
import { createTeam, ensureDefaultTeam } from "../../../src/store/sqlite/teams.js";
import { createTestDb } from "../../helpers/db.js";
import { CLM1 } from "../../helpers/gated.js";
import { overlayHistory } from "../../../src/store/common/claim-history.js";

const MARCH = new Date("2026-03-02T09:00:00Z");
const APRIL = new Date("2026-04-01T09:00:00Z");

function setup() {
  const store = createTestDb();
  const team = ensureDefaultTeam(store.db);
  return { store, team, claims: new ClaimStore(store.sqlite) };
}

const codeOf = (fn: () => unknown): { code?: string; details?: unknown } => {
  try {
    fn();
  } catch (e) {
    return e as { code?: string; details?: unknown };
  }
  throw new Error("expected a throw");
};

describe("creating and demoting claims", () => {
  it("stores a live claim with its key normalised and one created event", () => {
    const { claims, team } = setup();
    const c = claims.create(
      team,
      { id: "CLM-7", text: "Crest 17.1 ft", key: "  Crest   STAGE ", value: "17.1 ft", status: "live" },
      MARCH,
    );
    expect(c).toMatchObject({
      id: "CLM-7",
      key: "crest stage",
      value: "17.1 ft",
      status: "live",
      watch: null,
      created_at: "2026-03-02T09:00:00.000Z",
    });
    expect(claims.events(team, "CLM-7").map((e) => [e.kind, e.status])).toEqual([["created", "live"]]);
  });

  it("generates a sortable id when none is given", () => {
    const { claims, team } = setup();
    expect(claims.create(team, { text: "x", status: "live" }, MARCH).id).toMatch(/^[0-9A-Z]{26}$/);
  });

  it("refuses a repeated id with conflict, and lets another team use the same id", () => {
    const { claims, team, store } = setup();
    claims.create(team, { id: "CLM-1", text: "a", status: "live" }, MARCH);
    expect(codeOf(() => claims.create(team, { id: "CLM-1", text: "b", status: "live" }, MARCH)).code).toBe("conflict");
    const other = createTeam(store.db, "other").id;
    expect(claims.create(other, { id: "CLM-1", text: "b", status: "live" }, MARCH).text).toBe("b");
    expect(claims.get(team, "CLM-1").text).toBe("a");
  });

  it("refuses a backreference watch with invalid_request naming the field, storing nothing", () => {
    const { claims, team } = setup();
    const e = codeOf(() => claims.create(team, { id: "C", text: "t", status: "demoted", watch: "(a)\\1" }, MARCH));
    expect(e.code).toBe("invalid_request");
    expect(e.details).toEqual([
      { path: "watch", message: expect.stringContaining("backreferences (\\1) are not supported") },
    ]);
    expect(claims.find(team, "C")).toBeNull();
  });

  it("demotes by appending an event, keeping the created one, and keeps the watch when a later demotion omits it", () => {
    const { claims, team } = setup();
    claims.create(team, { id: "CLM-1", text: CLM1.text, status: "live" }, MARCH);
    claims.demote(team, "CLM-1", { reason: CLM1.reason, demoted_by: CLM1.demoted_by, watch: CLM1.watch }, APRIL);
    const again = claims.demote(team, "CLM-1", { reason: "still wrong", demoted_by: "review/second.py" }, APRIL);
    expect(again).toMatchObject({
      status: "demoted",
      reason: "still wrong",
      demoted_by: "review/second.py",
      watch: "2\\.08x",
      updated_at: "2026-04-01T09:00:00.000Z",
    });
    expect(claims.events(team, "CLM-1").map((e) => [e.kind, e.status, e.watch])).toEqual([
      ["created", "live", null],
      ["demoted", "demoted", "2\\.08x"],
      ["demoted", "demoted", "2\\.08x"],
    ]);
  });

  it("answers not_found for another team's claim", () => {
    const { claims, team, store } = setup();
    claims.create(team, { id: "CLM-1", text: "a", status: "live" }, MARCH);
    const other = createTeam(store.db, "other").id;
    expect(codeOf(() => claims.demote(other, "CLM-1", { reason: "r", demoted_by: "d" }, APRIL)).code).toBe("not_found");
  });
});

describe("superseding", () => {
  it("marks a live claim superseded and a demoted one still demoted, both naming the replacement", () => {
    const { claims, team } = setup();
    claims.create(team, { id: "OLD-LIVE", text: "a", status: "live" }, MARCH);
    claims.create(team, { ...CLM1 }, MARCH);
    claims.create(team, { id: "NEW", text: "b", status: "live", supersedes: ["OLD-LIVE", "CLM-1"] }, APRIL);
    expect(claims.get(team, "OLD-LIVE")).toMatchObject({ status: "superseded", superseded_by: "NEW" });
    expect(claims.get(team, "CLM-1")).toMatchObject({ status: "demoted", superseded_by: "NEW", watch: "2\\.08x" });
    expect(claims.get(team, "NEW").supersedes).toEqual(["OLD-LIVE", "CLM-1"]);
  });

  it("refuses to supersede an unknown id or itself, listing each", () => {
    const { claims, team } = setup();
    const e = codeOf(() =>
      claims.create(team, { id: "NEW", text: "b", status: "live", supersedes: ["NOPE", "NEW"] }, APRIL),
    );
    expect(e.code).toBe("invalid_request");
    expect(e.details).toEqual([
      { path: "supersedes", message: "no claim 'NOPE' in this team's ledger to supersede" },
      { path: "supersedes", message: "a claim cannot supersede itself ('NEW')" },
    ]);
    expect(claims.find(team, "NEW")).toBeNull();
  });
});

describe("listing", () => {
  it("filters by status and by a case-insensitive substring of id, text or key, with % taken literally", () => {
    const { claims, team } = setup();
    claims.create(team, { id: "A", text: "Crest 17.1 ft", key: "crest", status: "live" }, MARCH);
    claims.create(team, { id: "B", text: "Gain 100% sure", status: "demoted", reason: "r", demoted_by: "d" }, MARCH);
    claims.create(team, { id: "C", text: "Gain 100 fold", status: "live" }, MARCH);
    expect(claims.list(team, { status: "demoted", limit: 50 }).items.map((c) => c.id)).toEqual(["B"]);
    expect(claims.list(team, { q: "CREST", limit: 50 }).items.map((c) => c.id)).toEqual(["A"]);
    expect(claims.list(team, { q: "100%", limit: 50 }).items.map((c) => c.id)).toEqual(["B"]);
    expect(claims.list(team, { q: "gain", status: "live", limit: 50 }).items.map((c) => c.id)).toEqual(["C"]);
  });

  it("pages oldest first with a cursor until next_cursor is null", () => {
    const { claims, team } = setup();
    for (let i = 0; i < 5; i += 1)
      claims.create(team, { id: `C${i}`, text: "t", status: "live" }, new Date(MARCH.getTime() + i * 1000));
    const p1 = claims.list(team, { limit: 2 });
    const p2 = claims.list(team, { limit: 2, after: p1.next_cursor });
    const p3 = claims.list(team, { limit: 2, after: p2.next_cursor });
    expect([p1, p2, p3].map((p) => p.items.map((c) => c.id))).toEqual([["C0", "C1"], ["C2", "C3"], ["C4"]]);
    expect(p3.next_cursor).toBeNull();
  });
});

const FILE = [
  `\uFEFF${JSON.stringify(CLM1)}`,
  "{not json",
  "",
  "[1, 2]",
  JSON.stringify({ id: "CLM-2", status: "retired", text: "x" }),
  JSON.stringify({ status: "live", text: "no id" }),
  JSON.stringify({
    id: "CLM-3",
    status: "demoted",
    text: "Beats it twice over",
    watch: "(beats) it \\1",
    reason: "r",
    demoted_by: "d",
  }),
  JSON.stringify({
    id: "CLM-4",
    status: "live",
    text: "Crest is 17.1 ft",
    key: "Crest Stage",
    value: "17.1 ft",
    extra_field: "ignored",
  }),
  JSON.stringify({ id: "CLM-4", status: "live", text: "again" }),
].join("\n");

describe("importing JSON Lines", () => {
  it("imports good lines, skips each malformed one with its line and reason, and reports a backreference watch", () => {
    const { claims, team } = setup();
    const r = claims.importText(team, FILE, MARCH);
    expect(r.imported).toBe(3);
    expect(r.skipped.map((s) => s.line)).toEqual([2, 4, 5, 6, 9]);
    expect(r.skipped[0]?.reason).toMatch(/^not valid JSON \(.*\); each line must be one JSON object$/);
    expect(r.skipped[1]?.reason).toBe("not a JSON object (received an array); each line must be one claim object");
    expect(r.skipped[2]?.reason).toBe('status: status must be "live" or "demoted" (or "superseded")');
    expect(r.skipped[3]?.reason).toBe("id is missing");
    expect(r.skipped[4]?.reason).toBe('the id "CLM-4" was already given on line 8; each claim appears once');
    expect(r.warnings).toEqual([
      {
        line: 7,
        id: "CLM-3",
        field: "watch",
        reason: expect.stringContaining("backreferences (\\1) are not supported"),
      },
    ]);
    expect(claims.get(team, "CLM-3")).toMatchObject({ status: "demoted", watch: "(beats) it \\1" });
    expect(claims.get(team, "CLM-4")).toMatchObject({ key: "crest stage", value: "17.1 ft" });
  });

  it("re-imports its own export unchanged, and into a fresh ledger gives the same export", () => {
    const { claims, team } = setup();
    claims.importText(team, FILE, MARCH);
    claims.create(team, { id: "CLM-5", text: "replaces 4", status: "live", supersedes: ["CLM-4"] }, APRIL);
    const exported = claims.exportText(team);
    expect(
      exported
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).id),
    ).toEqual(["CLM-1", "CLM-3", "CLM-4", "CLM-5"]);
    expect(claims.importText(team, exported, APRIL)).toEqual({
      imported: 0,
      updated: 0,
      unchanged: 4,
      skipped: [],
      warnings: [expect.objectContaining({ id: "CLM-3" })],
    });
    const fresh = setup();
    const again = fresh.claims.importText(fresh.team, exported, APRIL);
    expect(again.imported).toBe(4);
    expect(fresh.claims.exportText(fresh.team)).toBe(exported);
    expect(fresh.claims.get(fresh.team, "CLM-4")).toMatchObject({ status: "superseded", superseded_by: "CLM-5" });
  });

  it("turns a changed status into an event and refuses changed content", () => {
    const { claims, team } = setup();
    claims.create(team, { id: "CLM-1", text: CLM1.text, status: "live" }, MARCH);
    const r = claims.importText(team, `${JSON.stringify(CLM1)}\n${JSON.stringify({ ...CLM1, id: "CLM-9" })}\n`, APRIL);
    expect(r).toMatchObject({ imported: 1, updated: 1, unchanged: 0 });
    expect(claims.events(team, "CLM-1").map((e) => e.kind)).toEqual(["created", "demoted"]);
    const changed = claims.importText(team, JSON.stringify({ ...CLM1, text: "Thompson beats greedy by 3x" }), APRIL);
    expect(changed.skipped).toEqual([
      {
        line: 1,
        reason:
          "claim 'CLM-1' is already in the ledger with a different text; claims are immutable, so give the changed claim its own id and name 'CLM-1' in supersedes",
      },
    ]);
  });

  it("keeps a supersedes reference to an unknown id and warns about it", () => {
    const { claims, team } = setup();
    const r = claims.importText(
      team,
      JSON.stringify({ id: "N", status: "live", text: "t", supersedes: "GHOST" }),
      MARCH,
    );
    expect(r.imported).toBe(1);
    expect(r.warnings).toEqual([
      {
        line: 1,
        id: "N",
        field: "supersedes",
        reason: "no claim 'GHOST' in the ledger or the file; the reference is kept but supersedes nothing yet",
      },
    ]);
  });

  it("skips a line whose value is nested too deep to store, importing the other lines", () => {
    const { claims, team } = setup();
    const deep = `{"id":"DEEP","status":"live","text":"t","value":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    const r = claims.importText(
      team,
      `${JSON.stringify({ id: "OK", status: "live", text: "fine" })}\n${deep}\n`,
      MARCH,
    );
    expect(r).toEqual({
      imported: 1,
      updated: 0,
      unchanged: 0,
      warnings: [],
      skipped: [{ line: 2, reason: "objects and arrays are nested deeper than 128 levels; send a flatter claim" }],
    });
    expect(claims.find(team, "DEEP")).toBeNull();
  });

  it("skips a line holding an escaped lone surrogate, which would be stored as text that is not Unicode", () => {
    const { claims, team } = setup();
    const bad = '{"id":"LONE","status":"live","text":"ab\\ud800cd"}';
    const r = claims.importText(team, `${JSON.stringify({ id: "OK", status: "live", text: "fine" })}\n${bad}\n`, MARCH);
    expect(r.skipped).toEqual([
      {
        line: 2,
        reason:
          "the text at text is not valid Unicode: it holds a lone surrogate (such as an escaped \\ud800 without its pair); send the characters themselves, or a complete surrogate pair",
      },
    ]);
    expect(claims.find(team, "LONE")).toBeNull();
  });

  it("parses text without a store: never throws, whatever the input", () => {
    for (const t of ["", "\n\n", "null", "{}", "\u0000", "1\n2"]) expect(() => parseLedgerText(t)).not.toThrow();
    expect(parseLedgerText("{}").skipped).toEqual([{ line: 1, reason: "id is missing; status is missing" }]);
    expect(parseLedgerText('{"id": 7, "status": "live"}').skipped).toEqual([
      { line: 1, reason: "id must be a string, received number 7" },
    ]);
  });
});

describe("the ClaimHistory port", () => {
  it("answers the claims whose latest event is demoted, with their watch", () => {
    const { claims, team, store } = setup();
    claims.create(team, { ...CLM1 }, MARCH);
    claims.create(team, { id: "CLM-2", text: "live one", key: "k", value: 1, status: "live" }, MARCH);
    claims.create(team, { id: "CLM-3", text: "was demoted", status: "demoted", reason: "r", demoted_by: "d" }, MARCH);
    claims.importText(team, JSON.stringify({ id: "CLM-3", status: "live", text: "was demoted" }), APRIL);
    const h = claimHistory(store.sqlite, team);
    expect(h.demotedClaims()).toEqual([
      {
        id: "CLM-1",
        text: CLM1.text,
        key: null,
        value: null,
        reason: CLM1.reason,
        demoted_by: CLM1.demoted_by,
        watch: "2\\.08x",
      },
    ]);
    claims.demote(team, "CLM-2", { reason: "wrong", demoted_by: "me", watch: "live one" }, APRIL);
    expect(h.demotedClaims().map((d) => d.id)).toEqual(["CLM-1", "CLM-2"]);
  });

  it("answers live claims by normalised key only, leaving out superseded and demoted ones", () => {
    const { claims, team, store } = setup();
    claims.create(team, { id: "A", text: "a", key: "Crest Stage", value: "17.1 ft", status: "live" }, MARCH);
    claims.create(team, { id: "B", text: "b", key: "crest stage", value: "18 ft", status: "live" }, MARCH);
    claims.create(
      team,
      { id: "C", text: "c", key: "crest stage", value: "19 ft", status: "live", supersedes: ["B"] },
      MARCH,
    );
    claims.create(team, { id: "D", text: "d", key: "other", value: 1, status: "live" }, MARCH);
    const h = claimHistory(store.sqlite, team);
    expect(h.liveClaims(["crest stage"]).map((c) => [c.id, c.value])).toEqual([
      ["A", "17.1 ft"],
      ["C", "19 ft"],
    ]);
    expect(h.liveClaims([])).toEqual([]);
  });

  it("uses the team-key and team-status indexes for the ledger queries", () => {
    const { store } = setup();
    const plan = (sql: string, ...params: unknown[]) =>
      (store.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((r) => r.detail)
        .join("\n");
    expect(plan(LIVE_CLAIMS_SQL, "t", "[]")).toMatch(
      /SEARCH c USING INDEX claims_team_key_idx \(team_id=\? AND key=\?\)/,
    );
    expect(plan(DEMOTED_CLAIMS_SQL, "t")).toMatch(
      /SEARCH e USING INDEX claim_events_team_status_idx \(team_id=\? AND status=\?\)/,
    );
    expect(plan(DEMOTED_CLAIMS_SQL, "t")).toMatch(/USING (COVERING )?INDEX claim_events_team_claim_idx/);
  });

  it("overlays file lines for one evaluation without storing them, a line replacing the stored claim of its id", () => {
    const { claims, team, store } = setup();
    claims.create(team, { id: "CLM-1", text: CLM1.text, status: "live", key: "thompson gain", value: "2.08x" }, MARCH);
    const lines = parseLedgerText(
      [
        JSON.stringify(CLM1),
        JSON.stringify({ id: "L", status: "live", text: "l", key: "Thompson Gain", value: "1x" }),
      ].join("\n"),
    ).claims.map((c) => c.claim);
    const h = overlayHistory(claimHistory(store.sqlite, team), lines);
    expect(h.demotedClaims().map((d) => d.id)).toEqual(["CLM-1"]);
    expect(h.liveClaims(["thompson gain"]).map((c) => c.id)).toEqual(["L"]);
    expect(claims.get(team, "CLM-1").status).toBe("live");
  });
});

// The chain's fast paths give the answers of the plain definitions: the canonical form built by concatenation is
// byte for byte RFC 8785 over the row object, and the streaming verify on SQLite names what a lookup walk names for
// edits only a join can get wrong (an entry naming a row twice, a row digest written in upper case).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/provenance/canonical-json.js";
import { chainOf } from "../../../src/store/chain-access.js";
import { CHAIN_TABLES } from "../../../src/store/common/chain-tables.js";
import { canonicalRow, rowDigestOf } from "../../../src/store/common/chain.js";
import { CHAIN_NAMES, unitDigests } from "../../../src/store/sqlite/chain-rows.js";
import type { LedgerStore } from "../../../src/store/port.js";
import { openSqliteStore, type SqliteStore } from "../../../src/store/sqlite/store.js";
import { freshTeam, settableClock } from "../contract/engines.js";

/** RFC 8785 over `{row, table}` built as an object, each value normalised as the design notes say. */
function generic(table: keyof typeof CHAIN_TABLES, values: readonly unknown[]): string {
  const row: Record<string, unknown> = {};
  CHAIN_TABLES[table].columns.forEach(([name, kind], i) => {
    const v = values[i];
    row[name] =
      v === null || v === undefined ? null : kind === "bool" ? v === 1 || v === true : kind === "num" ? Number(v) : v;
  });
  return canonicalJson({ row, table });
}

describe("the ledger chain's canonical form", () => {
  it("is byte for byte RFC 8785 over the row object, for unicode, controls, awkward numbers, null and booleans", () => {
    const texts = ["é 😀 \u2028 \u0000 \u001f \u007f", '"quoted" \\ back/slash', "", "日本語\t\n\r"];
    const numbers = [1e21, 0.1, -0, 1e-7, 123456789012345680000, 5e-324, -1.5, 2 ** 53 + 2, 0];
    for (const [k, text] of texts.entries())
      for (const [j, num] of numbers.entries()) {
        const calls = ["c1", "t", text, num, "tool", j % 2 ? null : num, k % 2, text, j % 2 === 0, null, "2026", null];
        expect(canonicalRow("calls", calls)).toBe(generic("calls", calls));
        const runs = ["r", "t", text, "done", num, null, "{}", text, "2026-03-02T09:00:00.000Z"];
        expect(canonicalRow("runs", runs)).toBe(generic("runs", runs));
      }
    expect(canonicalRow("tools", ["t1", "team", "é", -0, "{}", "2026"])).toBe(
      '{"row":{"created_at":"2026","declaration":"{}","id":"t1","name":"é","team_id":"team","version":0},"table":"tools"}',
    );
  });
});

describe("SQLite store: the streaming verify", () => {
  let store: LedgerStore;
  beforeAll(async () => {
    store = await openSqliteStore(":memory:", { clock: settableClock("2026-03-02T09:00:00.000Z") });
  });
  afterAll(() => store.close());
  const sql = () => (store as unknown as SqliteStore).db.sqlite;

  async function ledger() {
    const teamId = await freshTeam(store);
    await store.tools.put(teamId, "read_discharge", { params: { site: {} }, returns: { unit: "cfs" } });
    const s = await store.sessions.create(teamId, { context: "What is the discharge at 07374000?" });
    const read = await store.calls.call(teamId, s.id, "read_discharge", { site: "07374000" });
    await store.calls.result(teamId, s.id, read.call_id, "1250 cfs");
    return teamId;
  }

  it("names an entry whose row digest was rewritten in upper case as a changed row (the bytes are alike)", async () => {
    const teamId = await ledger();
    sql()
      .prepare("UPDATE ledger_entries SET row_digest = upper(hex(row_digest)) WHERE team_id = ? AND seq = 3")
      .run(teamId);
    const [e] = sql().prepare("SELECT tbl, row_id FROM ledger_entries WHERE team_id = ? AND seq = 3").all(teamId) as {
      tbl: string;
      row_id: string;
    }[];
    expect(await (await chainOf(store)).verify(teamId)).toEqual({
      ok: false,
      count: 2,
      first_bad: { table: e!.tbl, id: e!.row_id, seq: 3, reason: "changed: the row differs from the row chained" },
    });
  });

  it("names an entry that names the same row as an earlier one, at its own position", async () => {
    const teamId = await ledger();
    const head = sql().prepare("SELECT seq, digest FROM ledger_heads WHERE team_id = ?").get(teamId) as {
      seq: number;
      digest: string;
    };
    sql()
      .prepare(
        `INSERT INTO ledger_entries (team_id, seq, tbl, row_id, row_digest, prev, digest, fp, at)
         SELECT team_id, ?, tbl, row_id, row_digest, ?, digest, fp, at FROM ledger_entries WHERE team_id = ? AND seq = 2`,
      )
      .run(head.seq + 1, head.digest, teamId);
    const [e] = sql().prepare("SELECT tbl, row_id FROM ledger_entries WHERE team_id = ? AND seq = 2").all(teamId) as {
      tbl: string;
      row_id: string;
    }[];
    expect(await (await chainOf(store)).verify(teamId)).toEqual({
      ok: false,
      count: head.seq,
      first_bad: {
        table: e!.tbl,
        id: e!.row_id,
        seq: head.seq + 1,
        reason: "forged digest: the entry's digest is not the digest of its row and the entry before it",
      },
    });
  });
  it("makes each row's canonical text in SQL (json_quote) with the same bytes as from its values, awkward ones too", async () => {
    const teamId = await ledger();
    const texts = [
      "é 😀 \u2028 \u0000 \u001f \u007f",
      '"quoted" \\ back/slash',
      "",
      "日本語\t\n\r",
      "\ud7ff\ue000\uffff",
    ];
    const numbers = [1e21, 0.1 + 0.2, -0, 1e-7, 5e-324, -1.5, 2 ** 53 + 2, 123.456];
    const ids = sql().prepare("SELECT id FROM crossings WHERE team_id = ? ORDER BY id").pluck().all(teamId) as number[];
    // More crossings of the team, each given an awkward raw text, magnitude and series flag.
    for (let i = 0; i < texts.length * numbers.length; i += 1)
      sql()
        .prepare(
          `INSERT INTO crossings (team_id, session_id, call_id, seq, tool, direction, param, raw, value, unit, value_si,
             dimension, is_series, outcome, created_at)
           SELECT team_id, session_id, call_id, seq + ?, tool, direction, param, ?, ?, unit, value_si, dimension, ?,
             outcome, created_at FROM crossings WHERE id = ?`,
        )
        .run(100 + i, texts[i % texts.length], numbers[i % numbers.length], i % 2, ids[0]);
    const ti = CHAIN_NAMES.indexOf("crossings");
    const [part] = unitDigests(sql(), teamId, { tis: [ti], lo: 0, hi: null });
    const cols = CHAIN_TABLES.crossings.columns.map((c) => c[0]).join(", ");
    const rows = sql().prepare(`SELECT ${cols} FROM crossings WHERE team_id = ?`).raw().all(teamId) as unknown[][];
    expect(part!.rows.keys).toEqual(rows.map((r) => r[0]));
    expect(rows.length).toBe(ids.length + texts.length * numbers.length);
    const made = rows.map((_, j) => Buffer.from(part!.rows.digests.subarray(j * 32, j * 32 + 32)).toString("hex"));
    expect(made).toEqual(rows.map((r) => rowDigestOf("crossings", r)));
  });
});

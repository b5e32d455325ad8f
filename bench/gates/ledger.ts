// bench:gates, ledger case: one evaluation of 50 facts whose sources are ledger locators (sessions, calls, crossings)
// against a ledger of 1,000,000 crossings, beside the same result with URL sources, in the same run on one file database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/clock.js";
import { openDb } from "../../src/store/db.js";
import { newId } from "../../src/store/ids.js";
import { RunStore } from "../../src/store/runs.js";
import { ensureDefaultTeam } from "../../src/store/teams.js";

const CROSSINGS = Number(process.env.BENCH_LEDGER_CROSSINGS ?? 1_000_000);
const CALLS_PER_SESSION = 25;
const CLAIMS = 50;
const PROBES = Number(process.env.BENCH_PROBES ?? 30);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Each call stores a parameter crossing and a return crossing (a discharge in cfs); answers the session ids. */
function fill(sqlite: import("better-sqlite3").Database, teamId: string): string[] {
  const sessions = Math.ceil(CROSSINGS / (2 * CALLS_PER_SESSION));
  const ids: string[] = [];
  const session = sqlite.prepare("INSERT INTO sessions (id, team_id, call_count, created_at) VALUES (?, ?, ?, ?)");
  const call =
    sqlite.prepare(`INSERT INTO calls (id, team_id, session_id, seq, tool, tool_version, guarded, args_raw, ok,
    violations, result_raw, result_ok, created_at) VALUES (?, ?, ?, ?, 'read_discharge', 1, 1, '{}', 1, '[]', '1', 1, ?)`);
  const crossing =
    sqlite.prepare(`INSERT INTO crossings (team_id, session_id, call_id, seq, tool, direction, param, raw, value,
    unit, value_si, dimension, is_series, quality, source, observed_at, observed_utc, outcome, created_at)
    VALUES (?, ?, ?, ?, 'read_discharge', ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, 'ok', ?)`);
  const at = "2026-03-14T18:00:00.000Z";
  sqlite.transaction(() => {
    for (let s = 0; s < sessions; s += 1) {
      const sid = newId(Date.parse(at));
      ids.push(sid);
      session.run(sid, teamId, CALLS_PER_SESSION, at);
      for (let q = 1; q <= CALLS_PER_SESSION; q += 1) {
        const cid = newId(Date.parse(at));
        call.run(cid, teamId, sid, q, at);
        crossing.run(
          teamId,
          sid,
          cid,
          q,
          "param",
          "site",
          `"s${q}"`,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          at,
        );
        const v = 1000 + ((s * CALLS_PER_SESSION + q) % 9000);
        const src = `usgs:${String(s).padStart(8, "0")}:00060`;
        const obs = "2026-03-14T10:15:00-05:00";
        crossing.run(
          teamId,
          sid,
          cid,
          q,
          "return",
          "return",
          String(v),
          v,
          "ft^3/s",
          v * 0.028316846592,
          "[length]^3 [time]^-1",
          "approved",
          src,
          obs,
          "2026-03-14T15:15:00.000Z",
          at,
        );
      }
    }
  })();
  return ids;
}

/** 50 facts: a third cite a session, a third a call, a third a crossing; each restates a stored value in m^3/s. */
function result(sessions: readonly string[], crossingOf: (sid: string, seq: number) => number, ledger: boolean) {
  const claims = Array.from({ length: CLAIMS }, (_, k) => {
    const s = Math.floor((k * sessions.length) / CLAIMS);
    const sid = sessions[s]!;
    const seq = 1 + (k % CALLS_PER_SESSION);
    const v = 1000 + ((s * CALLS_PER_SESSION + seq) % 9000);
    const source = !ledger
      ? `https://waterdata.example.org/site/${s}`
      : k % 3 === 0
        ? `ledger:sessions/${sid}`
        : k % 3 === 1
          ? `ledger:sessions/${sid}/calls/${seq}`
          : `ledger:crossings/${crossingOf(sid, seq)}`;
    return {
      id: `F${k}`,
      kind: "fact",
      text: `Discharge at site ${s}.`,
      value: `${(v * 0.028316846592).toPrecision(4)} m^3/s`,
      source,
      confidence: 0.9,
      verified: true,
    };
  });
  return { result: { output: claims.map((c) => `${c.text} ${c.value}`).join(" "), claims } };
}

/** Runs the case and prints its table; answers the added milliseconds (median with ledger sources minus without). */
export function ledgerCase(): number {
  const dir = mkdtempSync(join(tmpdir(), "bench-gates-ledger-"));
  try {
    const store = openDb(join(dir, "ledger.db"));
    const teamId = ensureDefaultTeam(store.db);
    let t0 = performance.now();
    const sessions = fill(store.sqlite, teamId);
    const fillMs = performance.now() - t0;
    const count = (store.sqlite.prepare("SELECT count(*) AS n FROM crossings").get() as { n: number }).n;
    const byCall = store.sqlite.prepare(
      "SELECT id FROM crossings WHERE session_id = ? AND seq = ? AND direction = 'return'",
    );
    const crossingOf = (sid: string, seq: number) => (byCall.get(sid, seq) as { id: number }).id;
    const withLedger = result(sessions, crossingOf, true);
    const withUrls = result(sessions, crossingOf, false);
    const runs = new RunStore(store.sqlite);
    const gate = (input: unknown) => runs.evaluate(teamId, input, { clock: systemClock, record: false }).evaluation;
    const check = gate(withLedger);
    const resolved = check.sources.filter((s) => s.status === "resolved").length;
    if (resolved !== CLAIMS || check.gates.evidence.status !== "passed")
      throw new Error(
        `expected ${CLAIMS} resolved sources, got ${resolved}: ${JSON.stringify(check.gates.evidence.findings[0])}`,
      );
    gate(withUrls);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < PROBES; i += 1) {
      // Interleaved, so load drift on the shared machine hits both alike.
      t0 = performance.now();
      gate(withLedger);
      a.push(performance.now() - t0);
      t0 = performance.now();
      gate(withUrls);
      b.push(performance.now() - t0);
    }
    const added = median(a) - median(b);
    console.log(
      `\nledger-sourced claims: ${CLAIMS} facts (${Math.ceil(CLAIMS / 3)} sessions, ${Math.floor(CLAIMS / 3)} calls, ` +
        `${Math.floor(CLAIMS / 3)} crossings) against ${count.toLocaleString("en")} crossings (filled in ${(fillMs / 1000).toFixed(1)} s), ${PROBES} probes\n`,
    );
    console.log("| sources | evaluation median ms |");
    console.log("|---|---|");
    console.log(`| 50 ledger locators, resolved | ${median(a).toFixed(2)} |`);
    console.log(`| 50 URLs (judged by spelling) | ${median(b).toFixed(2)} |`);
    console.log(`\nresolution adds ${added.toFixed(2)} ms (target <= 10 ms)`);
    store.close();
    return added;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

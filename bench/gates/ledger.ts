// bench:gates, ledger case: one evaluation of 50 facts whose sources are ledger locators (sessions, calls, crossings)
// against a ledger of 1,000,000 crossings, beside the same result with URL sources, in the same run on one file database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/clock.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { newId } from "../../src/store/common/ids.js";
import { RunStore } from "../../src/store/sqlite/runs.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";

const CROSSINGS = Number(process.env.BENCH_LEDGER_CROSSINGS ?? 1_000_000);
const CALLS_PER_SESSION = 25;
const CLAIMS = 50;
const PROBES = Number(process.env.BENCH_PROBES ?? 30);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Each call stores a parameter crossing and a return crossing (a discharge in cfs); answers the session ids. */
export function fill(sqlite: import("better-sqlite3").Database, teamId: string, crossings = CROSSINGS): string[] {
  const sessions = Math.ceil(crossings / (2 * CALLS_PER_SESSION));
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

/** The session indexes one evaluation cites: spread over the ledger, shifted by `shift` (0 for the warm probe). */
export function picks(sessions: number, shift: number): number[] {
  return Array.from({ length: CLAIMS }, (_, k) => (Math.floor((k * sessions) / CLAIMS) + shift) % sessions);
}

/** 50 facts: a third cite a session, a third a call, a third a crossing; each restates a stored value in m^3/s. */
export function result(
  sessions: readonly string[],
  chosen: readonly number[],
  crossingOf: (sid: string, seq: number) => number,
  ledger: boolean,
) {
  const claims = chosen.map((s, k) => {
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

/** Milliseconds of wall and CPU time (user + system, this process) that `f` took. */
function timed(f: () => void): { wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  f();
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  return { wall, cpu: (u.user + u.system) / 1000 };
}

type Series = { wall: number[]; cpu: number[] };
const series = (): Series => ({ wall: [], cpu: [] });
const add = (s: Series, t: { wall: number; cpu: number }): void => {
  s.wall.push(t.wall);
  s.cpu.push(t.cpu);
};

/** What the case measured: the added milliseconds (median with ledger sources minus with URLs), warm and fresh. */
export type LedgerCaseFigures = { warm: { wall: number; cpu: number }; fresh: { wall: number; cpu: number } };

/**
 * Runs the case and prints its table. Two variants, interleaved probe by probe so load drift hits all alike:
 * warm, the same evaluation every probe (the case: its pages stay cached between probes), and fresh, an
 * evaluation citing 50 sessions no earlier probe cited (so no page the previous probe read can hide the cost).
 * Each has its own URL-sourced twin, judged by spelling only.
 */
export function ledgerCase(): LedgerCaseFigures {
  const dir = mkdtempSync(join(tmpdir(), "bench-gates-ledger-"));
  try {
    const store = openDb(join(dir, "ledger.db"));
    const teamId = ensureDefaultTeam(store.db);
    const t0 = performance.now();
    const sessions = fill(store.sqlite, teamId);
    // At rest, as a service's file is between its routine checkpoints: the fill's one transaction otherwise leaves every
    // page in a WAL as large as the file, and each read would look its page up in the WAL index first.
    store.sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const fillMs = performance.now() - t0;
    const count = (store.sqlite.prepare("SELECT count(*) AS n FROM crossings").get() as { n: number }).n;
    const byCall = store.sqlite.prepare(
      "SELECT id FROM crossings WHERE session_id = ? AND seq = ? AND direction = 'return'",
    );
    const crossingOf = (sid: string, seq: number) => (byCall.get(sid, seq) as { id: number }).id;
    const make = (shift: number, ledger: boolean) =>
      result(sessions, picks(sessions.length, shift), crossingOf, ledger);
    const warm = { ledger: make(0, true), urls: make(0, false) };
    // Probe i cites the sessions shifted by i + 1: distinct from every other probe's while the ledger holds more than
    // 50 * (PROBES + 1) sessions (1,000,000 crossings hold 20,000).
    const fresh = Array.from({ length: PROBES + 1 }, (_, i) => ({
      ledger: make(i + 1, true),
      urls: make(i + 1, false),
    }));
    const runs = new RunStore(store.sqlite);
    const gate = (input: unknown) => runs.evaluate(teamId, input, { clock: systemClock, record: false }).evaluation;
    for (const input of [warm.ledger, fresh[PROBES]!.ledger]) {
      const check = gate(input);
      const resolved = check.sources.filter((s) => s.status === "resolved").length;
      if (resolved !== CLAIMS || check.gates.evidence.status !== "passed")
        throw new Error(
          `expected ${CLAIMS} resolved sources, got ${resolved}: ${JSON.stringify(check.gates.evidence.findings[0])}`,
        );
    }
    gate(warm.urls);
    gate(fresh[PROBES]!.urls);
    const m = { warm: series(), warmUrls: series(), fresh: series(), freshUrls: series() };
    for (let i = 0; i < PROBES; i += 1) {
      add(
        m.warm,
        timed(() => gate(warm.ledger)),
      );
      add(
        m.warmUrls,
        timed(() => gate(warm.urls)),
      );
      add(
        m.fresh,
        timed(() => gate(fresh[i]!.ledger)),
      );
      add(
        m.freshUrls,
        timed(() => gate(fresh[i]!.urls)),
      );
    }
    const med = (s: Series) => ({ wall: median(s.wall), cpu: median(s.cpu) });
    const added = (a: Series, b: Series) => ({ wall: med(a).wall - med(b).wall, cpu: med(a).cpu - med(b).cpu });
    const figures = { warm: added(m.warm, m.warmUrls), fresh: added(m.fresh, m.freshUrls) };
    console.log(
      `\nledger-sourced claims: ${CLAIMS} facts (${Math.ceil(CLAIMS / 3)} sessions, ${Math.floor(CLAIMS / 3)} calls, ` +
        `${Math.floor(CLAIMS / 3)} crossings) against ${count.toLocaleString("en")} crossings (filled in ${(fillMs / 1000).toFixed(1)} s), ${PROBES} probes\n`,
    );
    const row = (what: string, s: Series) => `| ${what} | ${med(s).wall.toFixed(2)} | ${med(s).cpu.toFixed(2)} |`;
    console.log("| sources | evaluation median ms | CPU median ms |");
    console.log("|---|---|---|");
    console.log(row("warm: 50 ledger locators, resolved (the same evaluation each probe)", m.warm));
    console.log(row("warm: 50 URLs (judged by spelling)", m.warmUrls));
    console.log(row("fresh: 50 ledger locators, resolved (50 sessions no earlier probe cited)", m.fresh));
    console.log(row("fresh: 50 URLs (judged by spelling)", m.freshUrls));
    const say = (what: string, f: { wall: number; cpu: number }) =>
      `${what}: resolution adds ${f.wall.toFixed(2)} ms (CPU ${f.cpu.toFixed(2)} ms)`;
    console.log(`\n${say("warm", figures.warm)} (target <= 10 ms)\n${say("fresh", figures.fresh)}`);
    store.close();
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The bench:ui ledger: 100,000 sessions and 1,000,000 crossings (with their calls, labels, audits, evaluations and
// claims) spread over the year before NOW, written straight into a migrated SQLite file in one transaction.
import { existsSync } from "node:fs";
import { GATE_NAMES } from "../../src/gates/outcome-kit.js";
import { openDb, type LedgerDb } from "../../src/store/sqlite/db.js";
import { newId } from "../../src/store/common/ids.js";
import { createTeam, createToken, findTeamByName } from "../../src/store/sqlite/teams.js";

/** The bench's "now": every row is written in the 365 days before it. */
export const NOW = "2026-12-01T00:00:00.000Z";
export const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100_000);
/** Ten crossings a session: 3 calls, each with 2 parameters and a return, and a third parameter on the first call. */
export const CROSSINGS_PER_SESSION = 10;
export const TOOLS = [
  "read_discharge",
  "read_stage",
  "runoff_depth",
  "flood_volume",
  "rating_curve",
  "usgs_reading",
  "ea_reading",
  "unit_probe",
];
const CODES = [
  "unconverted_carry_over",
  "dimensionality_error",
  "datum_mismatch",
  "unsourced_input",
  "missing_unit",
  "timezone_error",
];
const DAY = 86_400_000;

/** What the benchmark needs to know about the ledger it built. */
export type BenchLedger = {
  store: LedgerDb;
  token: string;
  teamId: string;
  sessionId: string;
  evaluationId: string;
  claimId: string;
};

// A small deterministic generator, so every run builds the same ledger.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function report(released: boolean, r: () => number) {
  const gates = Object.fromEntries(
    GATE_NAMES.map((g, i) => {
      const status = !released && i === 3 ? "blocked" : r() < 0.25 ? "not_applicable" : "passed";
      const findings =
        status === "blocked"
          ? [{ code: "PROVENANCE_MISSING", message: "a fact has no source", severity: "error" }]
          : [];
      return [g, { status, score: status === "not_applicable" ? null : status === "passed" ? 100 : 0, findings }];
    }),
  );
  return {
    status: released ? "released" : "blocked",
    blocked_by: released ? [] : ["provenance"],
    overall_score: released ? 92 : 40,
    gates,
    findings: [],
    sources: [],
  };
}

/** Opens the bench ledger at `file`, building it first when the file does not exist. */
export function benchLedger(file: string, log: (s: string) => void): BenchLedger {
  const fresh = !existsSync(file);
  const store = openDb(file);
  const team = findTeamByName(store.db, "bench") ?? createTeam(store.db, "bench");
  const token = createToken(store.db, team.id, "bench").token;
  const sqlite = store.sqlite;
  if (fresh) {
    const started = Date.now();
    const r = rng(20261201);
    const end = Date.parse(NOW);
    const p = (sql: string) => sqlite.prepare(sql);
    const insSession = p(
      "INSERT INTO sessions (id, team_id, context, enforcement, labels, call_count, violation_count, blocked_count, created_at) VALUES (?, ?, ?, 'enforce', ?, 3, ?, ?, ?)",
    );
    const insLabel = p("INSERT INTO session_labels (session_id, team_id, key, value) VALUES (?, ?, ?, ?)");
    const insCall = p(
      "INSERT INTO calls (id, team_id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, created_at) VALUES (?, ?, ?, ?, ?, 1, 1, '{}', ?, '[]', ?)",
    );
    const insCrossing =
      p(`INSERT INTO crossings (team_id, session_id, call_id, seq, tool, direction, param, raw, value, unit, value_si, dimension, is_series, outcome, violation, created_at)
                           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'm^3/s', ?, 'L3T-1', 0, ?, ?, ?)`);
    const insAudit = p(
      "INSERT INTO audits (id, team_id, session_id, answer, context, ok, created_at) VALUES (?, ?, ?, ?, '', ?, ?)",
    );
    const insItem = p(
      "INSERT INTO audit_items (audit_id, team_id, position, text, value, unit, status, explanation) VALUES (?, ?, ?, ?, ?, 'cfs', ?, 'bench')",
    );
    const insRun = p(
      "INSERT INTO runs (id, team_id, task, status, overall_score, report, input, created_at) VALUES (?, ?, ?, ?, ?, ?, '{}', ?)",
    );
    const insRunClaim = p(
      "INSERT INTO run_claims (run_id, team_id, task, key, value, text, claim_id, released, created_at) VALUES (?, ?, ?, ?, ?, '', 'F1', ?, ?)",
    );
    const insClaim = p("INSERT INTO claims (id, team_id, text, key, created_at) VALUES (?, ?, ?, ?, ?)");
    const insEvent = p(
      "INSERT INTO claim_events (team_id, claim_id, kind, status, reason, demoted_by, watch, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    sqlite.transaction(() => {
      for (let i = 0; i < SESSIONS; i += 1) {
        const t = end - 365 * DAY + Math.floor((i / SESSIONS) * 365 * DAY);
        const at = new Date(t).toISOString();
        const id = newId(t);
        const labels = { run: r() < 0.5 ? "nightly" : "adhoc", model: `m${1 + Math.floor(r() * 5)}` };
        let violations = 0;
        let blocked = 0;
        const calls: [string, number, string, boolean, string | null][] = [];
        for (let seq = 1; seq <= 3; seq += 1) {
          const refused = r() < 0.1;
          const code = refused ? CODES[Math.floor(r() * CODES.length)]! : null;
          if (refused) {
            violations += 1;
            blocked += 1;
          }
          calls.push([newId(t), seq, TOOLS[Math.floor(r() * TOOLS.length)]!, refused, code]);
        }
        insSession.run(id, team.id, `bench session ${i}`, JSON.stringify(labels), violations, blocked, at);
        for (const [k, v] of Object.entries(labels)) insLabel.run(id, team.id, k, v);
        for (const [callId, seq, tool, refused, code] of calls) {
          insCall.run(callId, team.id, id, seq, tool, refused ? 0 : 1, at);
          const params = seq === 1 ? 3 : 2;
          for (let k = 0; k < params; k += 1) {
            const v = Math.round(r() * 5000) / 10;
            const outcome = k === 0 && refused ? "refused" : r() < 0.2 ? "converted" : "ok";
            insCrossing.run(
              team.id,
              id,
              callId,
              seq,
              tool,
              "param",
              `p${k}`,
              String(v),
              v,
              v,
              outcome,
              outcome === "refused" ? code : null,
              at,
            );
          }
          const v = Math.round(r() * 5000) / 10;
          insCrossing.run(team.id, id, callId, seq, tool, "return", "return", String(v), v, v, "ok", null, at);
        }
        if (i % 10 === 0) {
          const auditId = newId(t);
          insAudit.run(auditId, team.id, id, "The flow was 1250 cfs and 77 people", 0, at);
          for (const [k, st] of ["sourced", "sourced", "derived", "unsourced"].entries())
            insItem.run(auditId, team.id, k, `${k} cfs`, k, st);
        }
        if (i % 20 === 0) {
          const released = r() < 0.8;
          const task = `task-${i % 50}`;
          const runId = newId(t);
          const rep = report(released, r);
          insRun.run(runId, team.id, task, rep.status, rep.overall_score, JSON.stringify(rep), at);
          insRunClaim.run(
            runId,
            team.id,
            task,
            "crest stage",
            JSON.stringify(`${(17 + r() * 0.4).toFixed(2)} ft`),
            released ? 1 : 0,
            at,
          );
        }
        if (i % 100 === 0) {
          const claimId = `CLM-${i / 100}`;
          insClaim.run(claimId, team.id, `Bench claim ${i / 100}`, i % 200 === 0 ? "crest stage" : `key ${i}`, at);
          insEvent.run(team.id, claimId, "created", "live", null, null, null, at);
          if (i % 300 === 0) insEvent.run(team.id, claimId, "demoted", "demoted", "bench", "review", "17\\.9 ft", at);
        }
      }
    })();
    sqlite.exec("ANALYZE");
    log(`built ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const pick = (sql: string) => (sqlite.prepare(sql).get(team.id) as { id: string }).id;
  return {
    store,
    token,
    teamId: team.id,
    sessionId: pick("SELECT id FROM sessions WHERE team_id = ? ORDER BY created_at DESC LIMIT 1"),
    evaluationId: pick("SELECT id FROM runs WHERE team_id = ? ORDER BY created_at DESC LIMIT 1"),
    claimId: pick("SELECT id FROM claims WHERE team_id = ? AND key = 'crest stage' LIMIT 1"),
  };
}

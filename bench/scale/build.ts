// Builds a ledger for bench:scale through the store's own write paths (Ledger.call/result, AuditStore via the audit
// core, RunStore.evaluate, ClaimStore): sessions of about 10 crossings over a year, three teams, a hundred tools.
import { fixedClock } from "../../src/clock.js";
import type { ToolDeclarationInput } from "../../src/guard/declaration.js";
import { atomicGroup } from "../../src/store/sqlite/atomic.js";
import { ClaimStore } from "../../src/store/sqlite/claims.js";
import type { LedgerDb } from "../../src/store/sqlite/db.js";
import { Ledger } from "../../src/store/sqlite/ledger.js";
import { RunStore } from "../../src/store/sqlite/runs.js";
import { createTeam, createToken } from "../../src/store/sqlite/teams.js";

/** Rates of the things a session can go wrong with, per session (RESULTS.md, corpus replay: would-block calls in
 * 362 of 2,144 un-enforced runs, about 17 %; carry-overs the most common, then unit strings, then bad arguments). */
export const RATES = { carryOver: 0.1, unitParse: 0.05, invalidArguments: 0.02, audited: 0.05 };

/** What the measurements need to know of a built ledger. */
export type Built = {
  crossings: number;
  sessions: number;
  evaluations: number;
  demoted: number;
  teamId: string;
  token: string;
  /** A label, a tool and a violation code that occur, a time window, a magnitude that crossed. */
  probe: { label: string; tool: string; code: string; since: string; until: string; value: number; unit: string };
  /** The task with the most earlier runs (50 keyed claims each), for the evaluation probe. */
  bigTask: string;
  bigTaskRuns: number;
  sampleSession: string;
  buildSeconds: number;
};

const YEAR_MS = 365 * 86_400_000;
const TEAMS = ["hydrology", "operations", "research"];
const TOOLS_PER_TEAM = [34, 33, 33];

/** A small deterministic generator, so both ledgers of a run are built alike. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The claims of one evaluation: `n` keyed facts whose values never drift, so the runs are released. */
export function keyedResult(n: number, tag: string): Record<string, unknown> {
  return {
    output: `Report ${tag}: the river crested at the gauge.`,
    claims: Array.from({ length: n }, (_, i) => ({
      id: `F${i + 1}`,
      kind: "fact",
      text: `Fact ${i + 1} of the report.`,
      key: `measure ${i + 1}`,
      value: `${(i + 1) * 1.5} ft`,
      source: "https://waterdata.usgs.gov/monitoring-location/07374000",
      confidence: 0.9,
      verified: true,
    })),
  };
}

/** Builds `crossings` crossings (about one session per 10) and the evaluations, claims and audits that go with them. */
export function buildLedger(store: LedgerDb, crossings: number, log: (line: string) => void = () => {}): Built {
  const started = Date.now();
  // The build's random inserts (the magnitude index) touch pages all over a large file: a page cache of 1 GiB keeps
  // them in memory instead of re-reading them. Put back afterwards, so the measurements see the store's own setting.
  const cacheSize = store.sqlite.pragma("cache_size", { simple: true }) as number;
  store.sqlite.pragma("cache_size = -1048576");
  try {
    return build(store, crossings, log, started);
  } finally {
    store.sqlite.pragma(`cache_size = ${cacheSize}`);
  }
}

function build(store: LedgerDb, crossings: number, log: (line: string) => void, started: number): Built {
  const rand = seeded(20261201);
  const start = Date.parse("2025-12-01T00:00:00Z");
  const clock = fixedClock("2025-12-01T00:00:00Z");
  const ledger = new Ledger(store, clock);
  const teams = TEAMS.map((name) => createTeam(store.db, `scale-${name}`).id);
  const token = createToken(store.db, teams[0]!, "bench scale").token;
  // Each team: read tools of discharge (cfs) and area (km^2), and runoff tools taking both in SI.
  const toolsOf = teams.map((teamId, t) => {
    const datums = ledger.datums(teamId);
    const reads: string[] = [];
    const areas: string[] = [];
    const calcs: string[] = [];
    for (let i = 0; i < TOOLS_PER_TEAM[t]!; i += 1) {
      const kind = i % 3;
      const name = `${["read_discharge", "read_area", "runoff_depth"][kind]!}_${i}`;
      const decl: ToolDeclarationInput =
        kind === 0
          ? { params: { station: {} }, returns: { unit: "cfs" } }
          : kind === 1
            ? { params: { station: {} }, returns: { unit: "km**2" } }
            : { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };
      ledger.tools.put(teamId, name, decl, datums);
      [reads, areas, calcs][kind]!.push(name);
    }
    return { reads, areas, calcs };
  });
  // A session stores 9.6 crossings on average (a refused call stores no result), so the year is spread over that many
  // sessions, and sessions are written until the crossings reach the target.
  const nSessions = Math.max(1, Math.round(crossings / 9.6));
  const step = YEAR_MS / nSessions;
  let stored = 0;
  let sessions = 0;
  let sample = "";
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const BATCH = 500;
  while (stored < crossings) {
    atomicGroup(store.sqlite, () => {
      for (let b = 0; b < BATCH && stored < crossings; b += 1, sessions += 1) {
        const t = sessions % 3;
        const teamId = teams[t]!;
        const tools = toolsOf[t]!;
        const now = new Date(start + sessions * step);
        clock.advance(now.getTime() - clock.now().getTime());
        const labels = {
          project: `p${Math.floor(rand() * 20)}`,
          env: rand() < 0.7 ? "prod" : "staging",
          week: `w${Math.floor((sessions * step) / (7 * 86_400_000))}`,
        };
        const s = ledger.sessions.create(teamId, { context: "What is the runoff depth over the basin?", labels }, now);
        if (t === 0 && !sample) sample = s.id;
        const q = 1000 + Math.floor(rand() * 9000) / 4;
        const area = 100 + Math.floor(rand() * 50_000);
        const r1 = ledger.call(teamId, s.id, pick(tools.reads), { station: `0${7374000 + (sessions % 5000)}` });
        ledger.result(teamId, s.id, r1.call_id, q);
        const r2 = ledger.call(teamId, s.id, pick(tools.areas), { station: `0${7374000 + (sessions % 5000)}` });
        ledger.result(teamId, s.id, r2.call_id, area);
        stored += 4;
        const u = rand();
        for (const calc of [pick(tools.calcs), pick(tools.calcs)]) {
          const args =
            u < RATES.carryOver
              ? { discharge: q, area } // the cfs reading sent on as m^3/s: a carry-over refusal
              : u < RATES.carryOver + RATES.unitParse
                ? { discharge: `${q} cfz`, area }
                : u < RATES.carryOver + RATES.unitParse + RATES.invalidArguments
                  ? { discharge: `${q} cfs` }
                  : { discharge: `${q} cfs`, area };
          const c = ledger.call(teamId, s.id, calc, args);
          stored += Object.keys(args).length || 1;
          if (c.ok) {
            ledger.result(teamId, s.id, c.call_id, 0.1 + rand());
            stored += 1;
          }
        }
      }
    });
    if (sessions % 50_000 < BATCH) {
      const s = (Date.now() - started) / 1000;
      log(
        `  ${sessions.toLocaleString("en")} sessions, ${stored.toLocaleString("en")} crossings, ${s.toFixed(0)} s, ` +
          `${Math.round(stored / s).toLocaleString("en")} crossings/s`,
      );
    }
  }
  const teamId = teams[0]!;

  // Demoted claims with watch patterns, then evaluations: 1 per 100 crossings over 1 task per 100 evaluations; the
  // big task gets 50 keyed claims in each of its runs (1,000 runs at 10,000,000 crossings).
  const claims = new ClaimStore(store.sqlite);
  const nDemoted = Math.max(1, Math.round(crossings / 1000));
  // Grouped as the sessions are: a commit per block of writes instead of one per claim or evaluation.
  const inGroups = (n: number, size: number, each: (i: number) => void) => {
    for (let from = 0; from < n; from += size)
      atomicGroup(store.sqlite, () => {
        for (let i = from; i < Math.min(n, from + size); i += 1) each(i);
      });
  };
  // Claims and evaluations are spread over the same year as the sessions, as a team writes them: written one second
  // apart after the sessions, 100,000 evaluations put about 40,000 on the day the bench then measures.
  const claimClock = fixedClock(new Date(start).toISOString());
  inGroups(nDemoted, 500, (i) => {
    claimClock.advance(YEAR_MS / nDemoted);
    const id = `CLM-${i + 1}`;
    claims.create(teamId, { id, text: `Gauge ${i} gains ${i}.5x over the baseline`, status: "live" }, claimClock.now());
    claims.demote(
      teamId,
      id,
      { reason: "never reproduced", demoted_by: "review", watch: `gauge ${i} gains ${i}\\.5x` },
      claimClock.now(),
    );
  });
  const runs = new RunStore(store.sqlite);
  const nEvaluations = Math.max(1, Math.round(crossings / 100));
  const nTasks = Math.max(1, Math.round(nEvaluations / 100));
  const bigTaskRuns = Math.max(1, Math.round(crossings / 10_000));
  const runClock = fixedClock(new Date(start).toISOString());
  const runStep = YEAR_MS / Math.max(nEvaluations, bigTaskRuns);
  inGroups(bigTaskRuns, 100, (i) => {
    runClock.advance(runStep);
    runs.evaluate(teamId, { task: { id: "big-task" }, result: keyedResult(50, `big ${i}`) }, { clock: runClock });
  });
  inGroups(nEvaluations - bigTaskRuns, 500, (i) => {
    runClock.advance(runStep);
    const task = `task-${(i + bigTaskRuns) % nTasks}`;
    runs.evaluate(teamId, { task: { id: task }, result: keyedResult(5, task) }, { clock: runClock });
    if ((i + 1) % 10_000 === 0) log(`  ${(i + 1 + bigTaskRuns).toLocaleString("en")} evaluations`);
  });
  const evaluations = Math.max(nEvaluations, bigTaskRuns);
  return {
    crossings: stored,
    sessions,
    evaluations,
    demoted: nDemoted,
    teamId,
    token,
    probe: {
      label: "project:p7",
      tool: toolsOf[0]!.calcs[0]!,
      code: "unconverted_carry_over",
      since: new Date(start + YEAR_MS / 2).toISOString(),
      until: new Date(start + YEAR_MS / 2 + 7 * 86_400_000).toISOString(),
      value: 1250,
      unit: "cfs",
    },
    bigTask: "big-task",
    bigTaskRuns,
    sampleSession: sample,
    buildSeconds: (Date.now() - started) / 1000,
  };
}

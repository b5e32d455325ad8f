// bench:guard — one guarded call in process (parse "1250 cfs", convert, carry-over and sourced look-ups, record the
// crossings in one SQLite transaction) at session lengths 1k, 10k and 100k, beside a bare prepared insert of the same
// rows (one transaction each) on the same database file in the same run; then revision detection on vs off, and the
// library's group commit.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/clock.js";
import { hash } from "node:crypto";
import { canonicalRow, chainSettings, linkBytes, printRowBytes } from "../../src/store/common/chain.js";
import type { ChainTableName } from "../../src/store/common/chain-tables.js";
import { sqliteChain } from "../../src/store/sqlite/chain.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { Ledger } from "../../src/store/sqlite/ledger.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";
import { CHAIN_PART_LABELS, CHAIN_PARTS, type ChainPart, withoutChainPart } from "./chain-parts.js";
import { type CommitTimes, timedCommits, walFrames } from "./commit-share.js";
import { libraryCallUs, median } from "./library.js";

const LENGTHS = (process.env.BENCH_LENGTHS ?? "1000,10000,100000").split(",").map(Number);
const PROBES = 2_000;

const dir = mkdtempSync(join(tmpdir(), "bench-guard-"));
const store = openDb(join(dir, "ledger.db"));
const teamId = ensureDefaultTeam(store.db);
const ledger = new Ledger(store, systemClock);
const datums = ledger.datums(teamId);
ledger.tools.put(teamId, "read_discharge", { params: { station: {} }, returns: { unit: "cfs" } }, datums);
ledger.tools.put(teamId, "read_area", { params: {}, returns: { unit: "km**2" } }, datums);
ledger.tools.put(
  teamId,
  "runoff_depth",
  { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2", sourced: true } } },
  datums,
);

const bare = store.sqlite.prepare(
  `INSERT INTO crossings (team_id, session_id, call_id, seq, tool, direction, param, raw, value, unit, value_si, dimension, is_series, outcome, created_at)
   VALUES (?, ?, ?, ?, 'runoff_depth', 'param', ?, ?, ?, ?, ?, '[length]^3 [time]^-1', 0, 'converted', ?)`,
);
const bareCall = store.sqlite.prepare(
  `INSERT INTO calls (id, team_id, session_id, seq, tool, tool_version, guarded, args_raw, ok, violations, created_at) VALUES (?, ?, ?, ?, 'runoff_depth', 3, 1, ?, 1, '[]', ?)`,
);
const bareBump = store.sqlite.prepare(
  "UPDATE sessions SET call_count = call_count + 1 WHERE id = ? RETURNING call_count",
);

function fill(n: number): string {
  const s = ledger.sessions.create(teamId, { context: "What is the runoff depth?" }, new Date());
  store.sqlite.transaction(() => {
    const area = ledger.call(teamId, s.id, "read_area", {});
    ledger.result(teamId, s.id, area.call_id, 29000);
    for (let i = 1; i < n; i += 1) {
      const c = ledger.call(teamId, s.id, "read_discharge", { station: `s${i}` });
      ledger.result(teamId, s.id, c.call_id, 5000 + i * 0.37);
    }
  })();
  return s.id;
}

function timeIt(fn: (i: number) => void, n: number): number {
  for (let i = 0; i < 200; i += 1) fn(i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1) fn(i);
  return Number(process.hrtime.bigint() - t0) / 1e3 / n;
}

let k = 0;
const rows: { n: number; guarded: number; bare: number }[] = [];
for (const n of LENGTHS) {
  const sessionId = fill(n);
  const guarded = timeIt(() => {
    const a = ledger.call(teamId, sessionId, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
    if (!a.ok) throw new Error(`unexpected refusal: ${a.violations[0]?.message}`);
  }, PROBES);
  const bareUs = timeIt(() => {
    const now = new Date().toISOString();
    store.sqlite
      .transaction(() => {
        const seq = (bareBump.get(sessionId) as { call_count: number }).call_count;
        const id = `bare${n}_${k++}`;
        bareCall.run(id, teamId, sessionId, seq, '{"discharge":"1250 cfs","area":29000}', now);
        bare.run(teamId, sessionId, id, seq, "discharge", '"1250 cfs"', 35.39605824, "m^3/s", 35.39605824, now);
        bare.run(teamId, sessionId, id, seq, "area", "29000", 29000, "km^2", 2.9e10, now);
      })
      .immediate();
  }, PROBES);
  rows.push({ n, guarded, bare: bareUs });
  console.log(
    `session of ${n.toLocaleString("en")} calls: guarded call ${guarded.toFixed(1)} us, bare insert ${bareUs.toFixed(1)} us, ratio ${(guarded / bareUs).toFixed(2)}x`,
  );
}
const first = rows[0]!;
const last = rows[rows.length - 1]!;
console.log(`\n| session length | guarded call (us) | bare insert (us) | guarded / bare |`);
console.log(`|---|---|---|---|`);
for (const r of rows)
  console.log(
    `| ${r.n.toLocaleString("en")} | ${r.guarded.toFixed(1)} | ${r.bare.toFixed(1)} | ${(r.guarded / r.bare).toFixed(2)}x |`,
  );
console.log(
  `\n100k / 1k guarded: ${(last.guarded / first.guarded).toFixed(2)}x (target <= 1.5x); worst guarded / bare: ${Math.max(...rows.map((r) => r.guarded / r.bare)).toFixed(2)}x (target <= 5x)`,
);

// Revision detection (issue 11) for a guarded call whose result is not a reading: a call and its numeric result, each
// committed as the service commits them, with SessionStore.detectRevisions switched on and off call by call (ABBA, so
// drift and the other processes on the machine hit both alike), and the median per call of each. A reading (source and
// observation time, a new one each call, so the look-up runs and finds nothing) is measured the same way, to show what
// the switch turns off when it has work to do. The noise floor is the same comparison between two halves of "off".
const REVISION_PAIRS = Number(process.env.BENCH_REVISION_PAIRS ?? 4_000);
const revisionSession = ledger.sessions.create(teamId, { context: "revision detection" }, new Date());
let observed = Date.parse("2026-03-14T15:15:00Z");
const notReading = () => 1250;
const reading = () => ({
  value: 1250,
  unit: "cfs",
  quality: "P",
  source: "usgs:07374000:00060",
  observed_at: new Date((observed += 900_000)).toISOString(),
});
type Sample = { wall: number; cpu: number };
/** Microseconds of wall and CPU time of one call and its result, with detection `on` or off. */
function callAndResult(on: boolean, result: () => unknown): Sample {
  ledger.sessions.detectRevisions = on;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const c = ledger.call(teamId, revisionSession.id, "read_discharge", { station: "07374000" });
  ledger.result(teamId, revisionSession.id, c.call_id, result());
  const wall = Number(process.hrtime.bigint() - t0) / 1e3;
  const u = process.cpuUsage(c0);
  ledger.sessions.detectRevisions = true;
  return { wall, cpu: u.user + u.system };
}
/** Detection on and off, alternating call by call; `off` also split into two halves for the noise floor. */
function detectionCase(result: () => unknown) {
  const on: Sample[] = [];
  const off: Sample[] = [];
  for (let i = 0; i < 200; i += 1) callAndResult(i % 2 === 0, result); // warm-up
  for (let i = 0; i < REVISION_PAIRS; i += 1) {
    for (const o of i % 2 === 0 ? [true, false] : [false, true]) (o ? on : off).push(callAndResult(o, result));
  }
  const med = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
  const halves = [off.filter((_, i) => i % 2 === 0), off.filter((_, i) => i % 2 === 1)] as const;
  return {
    off: { wall: med(off, "wall"), cpu: med(off, "cpu") },
    on: { wall: med(on, "wall"), cpu: med(on, "cpu") },
    ratio: { wall: med(on, "wall") / med(off, "wall"), cpu: med(on, "cpu") / med(off, "cpu") },
    floor: {
      wall: med(halves[0], "wall") / med(halves[1], "wall"),
      cpu: med(halves[0], "cpu") / med(halves[1], "cpu"),
    },
  };
}
const detection = { plain: detectionCase(notReading), reading: detectionCase(reading) };
console.log(
  `\nrevision detection, one call and its result (each committed), ${REVISION_PAIRS.toLocaleString("en")} calls each way, alternating:`,
);
console.log(
  "| result | off: wall / CPU us | on: wall / CPU us | on / off wall | on / off CPU | noise floor (off / off) wall, CPU |",
);
console.log("|---|---|---|---|---|---|");
for (const [what, x] of [
  ["not a reading (1250)", detection.plain],
  ["a reading (source, observed_at)", detection.reading],
] as const)
  console.log(
    `| ${what} | ${x.off.wall.toFixed(1)} / ${x.off.cpu.toFixed(1)} | ${x.on.wall.toFixed(1)} / ${x.on.cpu.toFixed(1)} | ` +
      `${x.ratio.wall.toFixed(3)}x | ${x.ratio.cpu.toFixed(3)}x | ${x.floor.wall.toFixed(3)}x, ${x.floor.cpu.toFixed(3)}x |`,
  );

// The library: AGENTS store-backed sessions calling at once share group commits; one agent alone commits each write.
const AGENTS = Number(process.env.BENCH_AGENTS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PER_ROUND = 4_000;
const batched: { wall: number; cpu: number }[] = [];
const unchained: { wall: number; cpu: number }[] = [];
const PARTS = CHAIN_PARTS;
const partial = new Map<ChainPart, { wall: number; cpu: number }[]>(PARTS.map((p) => [p, []]));
const alone: { wall: number; cpu: number }[] = [];
const bareRounds: number[] = [];
const libSession = ledger.sessions.create(teamId, { context: "bare inserts" }, new Date());
// AGENT_LEDGER_SYNC=full: the same library calls on a file opened with synchronous = FULL (an fsync per commit).
const fullStore = openDb(join(dir, "full.db"), { sync: "full" });
const fullBatched: { wall: number; cpu: number }[] = [];
const fullAlone: { wall: number; cpu: number }[] = [];
await libraryCallUs(store, AGENTS, 50); // warm-up: declarations stored, statements prepared
await libraryCallUs(fullStore, AGENTS, 50);
for (let r = 0; r < ROUNDS; r += 1) {
  // Interleaved, so load drift on the shared machine hits every figure alike.
  batched.push(await libraryCallUs(store, AGENTS, PER_ROUND / AGENTS));
  // Issue 29: the same batched calls with the ledger chain off (AGENT_LEDGER_CHAIN=off), interleaved.
  chainSettings.enabled = false;
  unchained.push(await libraryCallUs(store, AGENTS, PER_ROUND / AGENTS));
  chainSettings.enabled = true;
  // The chain's cost with one part of the append left out (bench/guard/chain-parts.ts), interleaved too.
  for (const part of PARTS)
    partial.get(part)!.push(await withoutChainPart(part, () => libraryCallUs(store, AGENTS, PER_ROUND / AGENTS)));
  alone.push(await libraryCallUs(store, 1, PER_ROUND / 4));
  fullBatched.push(await libraryCallUs(fullStore, AGENTS, PER_ROUND / AGENTS));
  fullAlone.push(await libraryCallUs(fullStore, 1, PER_ROUND / 8));
  bareRounds.push(
    timeIt(() => {
      const now = new Date().toISOString();
      store.sqlite
        .transaction(() => {
          const seq = (bareBump.get(libSession.id) as { call_count: number }).call_count;
          const id = `lib_${k++}`;
          bareCall.run(id, teamId, libSession.id, seq, '{"discharge":"1250 cfs","area":29000}', now);
          bare.run(teamId, libSession.id, id, seq, "discharge", '"1250 cfs"', 35.39605824, "m^3/s", 35.39605824, now);
          bare.run(teamId, libSession.id, id, seq, "area", "29000", 29000, "km^2", 2.9e10, now);
        })
        .immediate();
    }, PER_ROUND / 4),
  );
}
const wall = (xs: { wall: number }[]) => xs.map((x) => x.wall);
const cpu = (xs: { cpu: number }[]) => xs.map((x) => x.cpu);
/** The chain's cost (%) by wall and CPU time when the rounds `on` ran with it, against the chain-off rounds. */
const costOf = (on: { wall: number; cpu: number }[]) => ({
  wall: (1 - median(wall(unchained)) / median(wall(on))) * 100,
  cpu: (1 - median(cpu(unchained)) / median(cpu(on))) * 100,
});
const chainCost = costOf(batched);
const summary = {
  bench: "guard",
  batched_us: Number(median(wall(batched)).toFixed(1)),
  per_call_commit_us: Number(median(wall(alone)).toFixed(1)),
  bare_insert_us: Number(median(bareRounds).toFixed(1)),
  // Issue 11: detection on / off for a result that is not a reading (median CPU per call and result).
  revision_detection_ratio: Number(detection.plain.ratio.cpu.toFixed(3)),
  // Issue 29: the throughput the chain costs the batched call (1 - off time / on time), by wall and by CPU time.
  chain_cost_wall_pct: Number(chainCost.wall.toFixed(1)),
  chain_cost_cpu_pct: Number(chainCost.cpu.toFixed(1)),
};
console.log(`\nlibrary guarded call (invoke: call and result, each committed before it answers), ${ROUNDS} rounds:`);
const show = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
console.log(`| what | median wall us | median CPU us | rounds, wall us |`);
console.log(`|---|---|---|---|`);
console.log(
  `| ${AGENTS} agents at once (group commit) | ${summary.batched_us} | ${median(cpu(batched)).toFixed(1)} | ${show(wall(batched))} |`,
);
console.log(
  `| ${AGENTS} agents at once, chain off | ${median(wall(unchained)).toFixed(1)} | ${median(cpu(unchained)).toFixed(1)} | ${show(wall(unchained))} |`,
);
console.log(
  `| one agent alone (a commit per write) | ${summary.per_call_commit_us} | ${median(cpu(alone)).toFixed(1)} | ${show(wall(alone))} |`,
);
console.log(`| bare insert, own transaction | ${summary.bare_insert_us} | - | ${show(bareRounds)} |`);
const fb = median(wall(fullBatched));
const fa = median(wall(fullAlone));
console.log(
  `| AGENT_LEDGER_SYNC=full, ${AGENTS} agents at once | ${fb.toFixed(1)} | ${median(cpu(fullBatched)).toFixed(1)} | ${show(wall(fullBatched))} |`,
);
console.log(
  `| AGENT_LEDGER_SYNC=full, one agent alone | ${fa.toFixed(1)} | ${median(cpu(fullAlone)).toFixed(1)} | ${show(wall(fullAlone))} |`,
);
console.log(
  `\nfull / normal: ${(fb / summary.batched_us).toFixed(2)}x batched, ${(fa / summary.per_call_commit_us).toFixed(2)}x alone`,
);
console.log(
  `ledger chain's cost to the batched call's throughput: ${summary.chain_cost_wall_pct} % by wall time, ${summary.chain_cost_cpu_pct} % by CPU time (target <= 10 %)`,
);
{
  console.log("the chain's cost with a part of the append left out or reshaped (a broken chain; a benchmark only):");
  for (const part of PARTS) {
    const c = costOf(partial.get(part)!);
    console.log(`  ${CHAIN_PART_LABELS[part]}: ${c.wall.toFixed(1)} % by wall time, ${c.cpu.toFixed(1)} % by CPU time`);
  }
}
// What the chain's pages cost at COMMIT (bench/guard/commit-share.ts): the COMMITs timed, chain on and off, in rounds
// of their own (the timer wraps every statement's run, so it stays out of the figures above), and the WAL frames a
// call writes either way.
{
  const COMMIT_ROUNDS = 3;
  const calls = PER_ROUND;
  const times = { on: [] as CommitTimes[], off: [] as CommitTimes[] };
  for (let r = 0; r < COMMIT_ROUNDS; r += 1)
    for (const on of r % 2 === 0 ? [true, false] : [false, true]) {
      chainSettings.enabled = on;
      times[on ? "on" : "off"].push(await timedCommits(store, () => libraryCallUs(store, AGENTS, calls / AGENTS)));
      chainSettings.enabled = true;
    }
  const frames = { on: 0, off: 0 };
  // Whole calls per agent: libraryCallUs makes ceil(perAgent) calls each, so the count is the calls it really made.
  const framePerAgent = Math.ceil(1000 / AGENTS);
  for (const on of [true, false]) {
    chainSettings.enabled = on;
    const written = await walFrames(store, () => libraryCallUs(store, AGENTS, framePerAgent));
    frames[on ? "on" : "off"] = written / (framePerAgent * AGENTS);
    chainSettings.enabled = true;
  }
  const perCall = (xs: CommitTimes[], k: "us" | "checkpointUs") => median(xs.map((x) => x[k] / calls));
  const line = (on: "on" | "off") =>
    `chain ${on}: ${perCall(times[on], "us").toFixed(1)} us a call (checkpoints ${perCall(times[on], "checkpointUs").toFixed(1)}), ${frames[on].toFixed(2)} WAL frames a call`;
  const extraUs = perCall(times.on, "us") - perCall(times.off, "us");
  const extraFrames = frames.on - frames.off;
  console.log(
    `COMMIT of the batched call, ${COMMIT_ROUNDS} rounds each way: ${line("on")}; ${line("off")}; ` +
      `the chain's pages: ${extraFrames.toFixed(2)} frames and ${extraUs.toFixed(1)} us a call at COMMIT`,
  );
}
// The floor of any append that hashes each row's canonical form: the rows one library call chains (the call, its two
// crossings, its result and the result's crossing) made canonical and hashed, with nothing read or written; and the
// same rows as the append prints them (fingerprints too) and links them.
{
  const chain = sqliteChain(store.sqlite);
  const callId = store.sqlite
    .prepare(
      "SELECT id FROM calls WHERE team_id = ? AND tool = 'runoff_depth' AND result_at IS NOT NULL ORDER BY rowid DESC LIMIT 1",
    )
    .pluck()
    .get(teamId) as string;
  const crossings = store.sqlite
    .prepare("SELECT id, direction FROM crossings WHERE call_id = ? ORDER BY id")
    .all(callId) as { id: number; direction: string }[];
  const crossing = (x: { id: number }): [ChainTableName, unknown[]] => [
    "crossings",
    chain.row(teamId, "crossings", x.id)!,
  ];
  const rows: [ChainTableName, unknown[]][] = [
    ["calls", chain.row(teamId, "calls", callId)!],
    ...crossings.filter((x) => x.direction === "param").map(crossing),
    ["results", chain.row(teamId, "results", callId)!],
    ...crossings.filter((x) => x.direction !== "param").map(crossing),
  ];
  const hashed = timeIt(() => {
    for (const [table, values] of rows) hash("sha256", canonicalRow(table, values), "binary");
  }, 20_000);
  let prev: Buffer = Buffer.alloc(32);
  const appended = timeIt(() => {
    for (const [table, values] of rows) prev = linkBytes(prev, printRowBytes(table, values).rowDigest);
  }, 20_000);
  const off = median(cpu(unchained));
  const share = (us: number) => `${((us / (off + us)) * 100).toFixed(1)} %`;
  console.log(
    `floor of a hashed append, the ${rows.length} rows a call chains (chain off: ${off.toFixed(1)} CPU us a call): ` +
      `canonical text and SHA-256 ${hashed.toFixed(1)} us (${share(hashed)} of throughput); ` +
      `with fingerprints and links, as appended, ${appended.toFixed(1)} us (${share(appended)})`,
  );
}
fullStore.close();
store.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(summary));

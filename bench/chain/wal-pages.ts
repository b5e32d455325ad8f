// bench:chain:pages — which pages the batched library call writes to the WAL, by table and index, with the ledger
// chain on and off: 32 agents in group commits on a fresh file, the log emptied first and held by a reader for the
// run (bench/guard/commit-share.ts), then every frame's page number looked up in `dbstat`. The chain's pages are paid
// at each COMMIT (written to the log) and again at the checkpoint that copies them back.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chainSettings } from "../../src/store/common/chain.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { withHeldLog } from "../guard/commit-share.js";
import { libraryCallUs } from "../guard/library.js";

const AGENTS = 32;
const PER_AGENT = Number(process.env.BENCH_CALLS ?? 31);

const dir = mkdtempSync(join(tmpdir(), "bench-wal-pages-"));
const file = join(dir, "ledger.db");
const store = openDb(file);
await libraryCallUs(store, AGENTS, 200); // a file of some size, so that a group commit splits pages as it would

/** Frames a group commit writes per b-tree (table or index), over the run's commits. */
async function pagesOf(on: boolean): Promise<{ frames: number; commits: number; by: Map<string, number> }> {
  chainSettings.enabled = on;
  let wal: Buffer;
  try {
    wal = await withHeldLog(
      store,
      () => libraryCallUs(store, AGENTS, PER_AGENT),
      (path) => readFileSync(path),
    );
  } finally {
    chainSettings.enabled = true;
  }
  const pageSize = wal.readUInt32BE(8);
  const names = new Map<number, string>();
  for (const r of store.sqlite.prepare("SELECT name, pageno FROM dbstat").all() as { name: string; pageno: number }[])
    names.set(r.pageno, r.name);
  const by = new Map<string, number>();
  let frames = 0;
  let commits = 0;
  // Each frame: page number, then the database size after a commit (0 for a frame that does not end one).
  for (let o = 32; o + 24 + pageSize <= wal.length; o += 24 + pageSize) {
    const name = names.get(wal.readUInt32BE(o)) ?? "(a page freed since)";
    by.set(name, (by.get(name) ?? 0) + 1);
    frames += 1;
    if (wal.readUInt32BE(o + 4) !== 0) commits += 1;
  }
  return { frames, commits, by };
}

const on = await pagesOf(true);
const off = await pagesOf(false);
const calls = AGENTS * PER_AGENT;
console.log(`${calls} library calls (${AGENTS} agents), WAL frames per group commit, node ${process.version}\n`);
console.log(`| b-tree | chain on | chain off | the chain's |\n|---|---|---|---|`);
const names = [...new Set([...on.by.keys(), ...off.by.keys()])].sort(
  (a, b) => (on.by.get(b) ?? 0) / on.commits - (on.by.get(a) ?? 0) / on.commits,
);
for (const n of names) {
  const a = (on.by.get(n) ?? 0) / on.commits;
  const b = (off.by.get(n) ?? 0) / off.commits;
  console.log(`| ${n} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(a - b).toFixed(2)} |`);
}
const per = (x: { frames: number; commits: number }) =>
  `${(x.frames / x.commits).toFixed(1)} (${(x.frames / calls).toFixed(2)} a call)`;
console.log(`| all | ${per(on)} | ${per(off)} | ${((on.frames - off.frames) / calls).toFixed(2)} a call |`);
store.close();
rmSync(dir, { recursive: true, force: true });

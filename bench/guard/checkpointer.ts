// bench:guard:checkpointer — the batched library call on two file stores in one run: one with SQLite's own
// checkpoints inside its commits (the library's default), one with serve's WAL checkpointer thread
// (`checkpointInBackground`, src/store/sqlite/checkpointer.ts), each with the ledger chain on and off, interleaved;
// prints the medians and the chain's cost to each (issue 29: how much of the chain's in-process cost is its share of
// the checkpoints).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chainSettings } from "../../src/store/common/chain.js";
import { checkpointInBackground, openDb } from "../../src/store/sqlite/db.js";
import { libraryCallUs } from "./library.js";

const dir = mkdtempSync(join(tmpdir(), "bench-guard-checkpointer-"));
const plain = openDb(join(dir, "plain.db"));
const threaded = openDb(join(dir, "threaded.db"));
const cp = checkpointInBackground(threaded)!;
const AGENTS = 32;
const PER = 4000 / AGENTS;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
await libraryCallUs(plain, AGENTS, 50);
await libraryCallUs(threaded, AGENTS, 50);
type Us = { wall: number; cpu: number };
const arms: Record<"plainOn" | "plainOff" | "cpOn" | "cpOff", Us[]> = {
  plainOn: [],
  plainOff: [],
  cpOn: [],
  cpOff: [],
};
for (let r = 0; r < ROUNDS; r += 1) {
  arms.plainOn.push(await libraryCallUs(plain, AGENTS, PER));
  arms.cpOn.push(await libraryCallUs(threaded, AGENTS, PER));
  chainSettings.enabled = false;
  arms.plainOff.push(await libraryCallUs(plain, AGENTS, PER));
  arms.cpOff.push(await libraryCallUs(threaded, AGENTS, PER));
  chainSettings.enabled = true;
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const at = (a: Us[], f: keyof Us) => med(a.map((x) => x[f]));
const cost = (on: Us[], off: Us[], f: keyof Us) => (100 * (1 - at(off, f) / at(on, f))).toFixed(1);
console.log(`${ROUNDS} interleaved rounds of ${AGENTS} agents, ${PER * AGENTS} calls each, node ${process.version}\n`);
console.log("| checkpoints | chain on, us a call (wall / CPU) | chain off | chain's cost, wall / CPU |");
console.log("| --- | --- | --- | --- |");
const row = (label: string, on: Us[], off: Us[]) =>
  console.log(
    `| ${label} | ${at(on, "wall").toFixed(1)} / ${at(on, "cpu").toFixed(1)} | ${at(off, "wall").toFixed(1)} / ` +
      `${at(off, "cpu").toFixed(1)} | ${cost(on, off, "wall")} / ${cost(on, off, "cpu")} % |`,
  );
row("SQLite's own, inside commits", arms.plainOn, arms.plainOff);
row("serve's checkpointer thread", arms.cpOn, arms.cpOff);
console.log(`\nthe thread's checkpoints: ${cp.checkpoints()}, ${cp.closes()} of them followed by a close of the log`);
await cp.stop();
plain.close();
threaded.close();
rmSync(dir, { recursive: true, force: true });

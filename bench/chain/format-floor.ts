// bench:chain:format — the hashing floor of the chain format that docs/DESIGN-NOTES.md ("Ledger chain", session 18)
// names as the way to the append's 10 % target, against today's. The five rows one guarded call chains (the call, two
// crossings, the result, the result's crossing), in group commits of 32 calls:
//   today   each row's canonical JSON text, its SHA-256, its fingerprints and its link, as the append does it;
//   values  each row's values written into one buffer per group, nothing else;
//   encode  each row's values written into one buffer per group (a tag, then UTF-8 text or a double), with each
//           value's 16-bit fingerprint taken over the bytes just written;
//   block   encode, then one SHA-256 over the group's buffer and the previous digest: the group's one link.
// Each mode runs in a process of its own (`node --import tsx bench/chain/format-floor.ts MODE`), so one's compiled
// code does not slow another's; `npm run bench:chain:format` runs the four, one after another, RUNS times.
import { execFileSync } from "node:child_process";
import { hash } from "node:crypto";
import { linkBytes, printRowBytes } from "../../src/store/common/chain.js";
import type { ChainTableName } from "../../src/store/common/chain-tables.js";
import { encodeRow } from "./binary-encoding.js";

const GROUP = 32;
const N = 20_000;
const RUNS = 2;
const team = "team_7f3c2a1b9d";
const sess = "ses_01J8ZK3QW4X5Y6Z7A8B9C0D1E2";
const call = "call_01J8ZK3QW4X5Y6Z7A8B9C0D1E3";
const at = "2026-12-04T00:30:00.000Z";
// A crossing's chained columns (chain-tables.ts order): the datum, crs, tz, quality, source and observation times unset.
const cross = (id: number, p: string, raw: string, v: number, u: string, si: number, dir: string) => [
  ...[id, team, sess, call, 3, "runoff_depth", dir, p, raw, v, u, si, "x", 0],
  ...new Array<null>(7).fill(null),
  ...["converted", null, at, null],
];
const ROWS: [ChainTableName, unknown[]][] = [
  [
    "calls",
    [call, team, sess, 3, "runoff_depth", 1, 1, '{"discharge":"1250 cfs","area":29000}', 1, "[]", at, "sha256:abc"],
  ],
  ["crossings", cross(1, "discharge", '"1250 cfs"', 1250, "cfs", 35.39605824, "in")],
  ["crossings", cross(2, "area", "29000", 29000, "km**2", 2.9e10, "in")],
  ["results", [call, team, '{"value":1.05}', 1, "[]", at]],
  ["crossings", cross(3, "result", "1.05", 1.05, "mm/day", 1.2e-8, "out")],
];

/** Writes a group's rows and their fingerprints into `buf` from `pos`; the end. */
function encodeGroup(buf: Buffer, pos: number): number {
  const fps = Buffer.allocUnsafe(GROUP * ROWS.length * 64);
  let end = pos;
  let fpAt = 0;
  for (let c = 0; c < GROUP; c += 1)
    for (const [, v] of ROWS) {
      end = encodeRow(buf, end, v, fps, fpAt);
      fpAt += v.length * 2;
    }
  return end;
}

const MODES: Record<string, { label: string; run: () => void }> = {
  today: {
    label: "today: canonical JSON, SHA-256 and link per row",
    run: () => {
      let prev: Buffer = Buffer.alloc(32);
      for (let c = 0; c < GROUP; c += 1)
        for (const [t, v] of ROWS) {
          const { rowDigest } = printRowBytes(t, v);
          prev = linkBytes(prev, rowDigest);
        }
    },
  },
  values: {
    label: "binary values only",
    run: () => {
      const buf = Buffer.allocUnsafe(GROUP * 4096);
      let pos = 0;
      for (let c = 0; c < GROUP; c += 1) for (const [, v] of ROWS) pos = encodeRow(buf, pos, v, null, 0);
    },
  },
  encode: {
    label: "binary values and fingerprints, no hash",
    run: () => {
      encodeGroup(Buffer.allocUnsafe(GROUP * 4096), 0);
    },
  },
  block: {
    label: "binary values, fingerprints, one SHA-256 per group",
    run: () => {
      const buf = Buffer.allocUnsafe(32 + GROUP * 4096);
      buf.fill(0, 0, 32); // the previous group's digest
      hash("sha256", buf.subarray(0, encodeGroup(buf, 32)), "binary");
    },
  },
};

const mode = process.argv[2];
if (mode !== undefined && !MODES[mode])
  throw new Error(`bench:chain:format has no mode '${mode}': send one of ${Object.keys(MODES).join(", ")}, or none`);
if (mode !== undefined) {
  const { run } = MODES[mode]!;
  for (let i = 0; i < N / 10; i += 1) run();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i += 1) run();
  console.log((Number(process.hrtime.bigint() - t0) / 1e3 / N / GROUP).toFixed(2));
} else {
  const times: Record<string, number[]> = {};
  for (let r = 0; r < RUNS; r += 1)
    for (const m of Object.keys(MODES)) {
      const out = execFileSync(process.execPath, ["--import", "tsx", process.argv[1]!, m], { encoding: "utf8" });
      (times[m] ??= []).push(Number(out.trim()));
    }
  const runs = Array.from({ length: RUNS }, (_, r) => `run ${r + 1}`);
  console.log(`the ${ROWS.length} rows of a guarded call, ${GROUP} calls a group, node ${process.version}\n`);
  console.log(`| hashing | us a call, ${runs.join(" | ")} |\n|---|${runs.map(() => "---|").join("")}`);
  for (const [m, { label }] of Object.entries(MODES))
    console.log(`| ${label} | ${times[m]!.map((x) => x.toFixed(2)).join(" | ")} |`);
}

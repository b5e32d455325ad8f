// bench:http:parts — the chain's append over HTTP taken apart (issue 29): ten `serve` processes on SQLite files, the
// whole chain, no entry rows written, the rows' hashing left out (constant digests), neither, the entries as one block
// row per group commit, the planned format (binary values hashed once per group commit, a block row) with its
// per-column fingerprints, one check a row (in JavaScript or a native CRC-32), or neither, and the chain off, each
// part left out or reshaped by bench/http/chain-part-preload.ts. Alternating rounds of the same per-session guarded
// calls; medians of the rate and of the server's CPU per request, and each one's cost against the chain-off server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHAIN_PART_LABELS, CHAIN_PARTS } from "../guard/chain-parts.js";
import { measuredRow } from "../proc-cpu.js";
import { freePort, perSession, prepare, run, start, TOKEN } from "./load.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SECONDS = 4;
const CONNECTIONS = 50;
const dir = mkdtempSync(join(tmpdir(), "bench-http-parts-"));

const PRELOAD = ["--import", "./bench/http/chain-part-preload.ts"];
/** A server of the run: its label, the arguments before the CLI's, its environment. */
type Mode = [string, string[], Record<string, string>];
const modes: Mode[] = [
  ["whole chain", [], {}],
  ...CHAIN_PARTS.map((part): Mode => [CHAIN_PART_LABELS[part], PRELOAD, { BENCH_CHAIN_PART: part }]),
  ["chain off", [], { AGENT_LEDGER_CHAIN: "off" }],
];
const ports: number[] = [];
for (const _ of modes) ports.push(await freePort());
const servers = await Promise.all(
  modes.map(([, pre, env], i) =>
    start(
      [...pre, "src/cli/main.ts", "serve"],
      { PORT: String(ports[i]), AGENT_LEDGER_DB: join(dir, `${i}.db`), AGENT_LEDGER_ADMIN_TOKEN: TOKEN, ...env },
      /listening on/,
    ),
  ),
);
try {
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const sessions = await Promise.all(urls.map((u) => prepare(u, CONNECTIONS)));
  const load = (i: number, duration: number) => run({ ...perSession(urls[i]!, sessions[i]!, CONNECTIONS), duration });
  for (let i = 0; i < modes.length; i += 1) await load(i, 3);
  const out: { rate: number; cpu: number }[][] = modes.map(() => []);
  for (let r = 0; r < ROUNDS; r += 1)
    for (let i = 0; i < modes.length; i += 1) {
      const [res, cpu] = await measuredRow(
        [servers[i]!.pid],
        () => false,
        () => load(i, SECONDS),
      );
      out[i]!.push({ rate: res.requests.average, cpu: cpu.server });
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rate = (i: number) => med(out[i]!.map((x) => x.rate));
  const cpu = (i: number) => med(out[i]!.map((x) => x.cpu));
  const off = modes.length - 1;
  console.log(
    `${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections, one session each, node ${process.version}\n`,
  );
  console.log("| append | median req/s | median server CPU us/req | cost by rate | cost by CPU |");
  console.log("|---|---|---|---|---|");
  for (let i = 0; i < modes.length; i += 1)
    console.log(
      `| ${modes[i]![0]} | ${rate(i).toFixed(0)} | ${cpu(i)} | ${((1 - rate(i) / rate(off)) * 100).toFixed(1)} % ` +
        `| ${((1 - cpu(off) / cpu(i)) * 100).toFixed(1)} % |`,
    );
} finally {
  for (const s of servers) s.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}

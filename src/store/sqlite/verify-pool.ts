// A server's verifies off its event loop (docs/DESIGN-NOTES.md "Ledger chain", "A served verify"): a whole-chain
// verify of a large team walks and hashes for seconds, and on the loop it held every other team's requests that long.
// One worker thread, started on first use and kept, verifies one job at a time through read connections of its own;
// it holds the process open only while it has a job. A job the worker cannot answer (it could not load, it failed,
// the job threw) answers null, and the caller verifies on the loop, so a verdict or an error is the loop's own.
import { Worker } from "node:worker_threads";
import type { ChainVerdict } from "../common/chain-verify.js";

/** One verify: a team of a database file, with the port's options as the worker can take them (paths, not handles). */
export type VerifyJob = {
  n: number;
  file: string;
  teamId: string;
  since?: string;
  archive?: string;
  /** The team size from which the worker verifies on two threads (verifySettings.besideFrom on the loop's side). */
  besideFrom: number;
};

/** The worker's answer. */
export type VerifyReply = { n: number; ok: true; verdict: ChainVerdict } | { n: number; ok: false; message: string };

let worker: Worker | null = null;
let usable = true;
let sent = 0;
const waiting = new Map<number, (v: ChainVerdict | null) => void>();

/** What the pool has done in this process, for tests and benchmarks. */
export const verifyPoolStats = { answered: 0 };

/** Settles every job in flight with null (their callers verify on the loop). */
function failAll(): void {
  worker = null;
  for (const done of waiting.values()) done(null);
  waiting.clear();
}

function started(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL("./verify-worker.cjs", import.meta.url));
  w.on("message", (m: VerifyReply) => {
    const done = waiting.get(m.n);
    waiting.delete(m.n);
    if (waiting.size === 0) w.unref();
    if (m.ok) verifyPoolStats.answered += 1;
    done?.(m.ok ? m.verdict : null);
  });
  w.on("error", () => {
    usable = false;
    failAll();
  });
  w.on("exit", failAll);
  worker = w;
  return w;
}

/** A team's verdict from the worker thread, or null when it cannot give one (the caller then verifies on the loop). */
export function verifyElsewhere(job: Omit<VerifyJob, "n">): Promise<ChainVerdict | null> {
  if (!usable) return Promise.resolve(null);
  return new Promise((resolve) => {
    const w = started();
    const n = ++sent;
    waiting.set(n, resolve);
    w.ref();
    w.postMessage({ ...job, n } satisfies VerifyJob);
  });
}

/** Stops the worker (its jobs in flight answer null); the next verify starts another. For tests. */
export async function stopVerifyWorker(): Promise<void> {
  const w = worker;
  worker = null;
  await w?.terminate();
}

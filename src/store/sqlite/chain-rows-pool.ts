// The thread that hashes a team's chained rows while the caller walks its entries (a whole-chain verify of a large
// team, docs/DESIGN-NOTES.md "Ledger chain"). One worker, started on first use and kept; it holds the process open
// only while it has a job. A worker that cannot start or fails answers null, and the caller reads the rows itself.
import { Worker } from "node:worker_threads";
import type { RowsPart, RowsUnit } from "./chain-rows.js";

/** What the worker is asked: a team's rows in a database file. */
export type RowsJob = {
  n: number;
  file: string;
  teamId: string;
  units: RowsUnit[];
  claim: Int32Array;
};

/** The worker's answer: the team's head as it read it, and every chained table's rows hashed. */
export type RowsReply =
  | { n: number; ok: true; head: { seq: number; digest: string } | null; parts: RowsPart[] }
  | { n: number; ok: false; message: string };

type Answer = { head: { seq: number; digest: string } | null; parts: RowsPart[] } | null;

let worker: Worker | null = null;
let usable = true;
let sent = 0;
const waiting = new Map<number, (a: Answer) => void>();

/** Settles every job in flight with null (the caller then reads the rows itself). */
function failAll(): void {
  worker = null;
  for (const done of waiting.values()) done(null);
  waiting.clear();
}

function started(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL("./chain-rows-worker.cjs", import.meta.url));
  w.on("message", (m: RowsReply) => {
    const done = waiting.get(m.n);
    waiting.delete(m.n);
    if (waiting.size === 0) w.unref();
    done?.(m.ok ? { head: m.head, parts: m.parts } : null);
  });
  w.on("error", () => {
    usable = false;
    failAll();
  });
  w.on("exit", failAll);
  worker = w;
  return w;
}

/**
 * Units of a team's rows of the file hashed on the worker thread, those it takes from the front of `claim` (shared
 * with the caller, who takes from the back); null when the worker cannot give them.
 */
export function rowsElsewhere(job: Omit<RowsJob, "n">): Promise<Answer> {
  if (!usable) return Promise.resolve(null);
  return new Promise((resolve) => {
    const w = started();
    const n = ++sent;
    waiting.set(n, resolve);
    w.ref();
    w.postMessage({ ...job, n } satisfies RowsJob);
  });
}

/**
 * Starts the worker ahead of a verify that will need it (the `verify` command, while it opens the ledger), so its
 * start-up, about a third of a second, is not paid inside the first team's verify. It holds the process open only
 * while it has a job.
 */
export function startRowsWorker(): void {
  if (usable) started().unref();
}

// A server's verifies off its event loop (docs/DESIGN-NOTES.md "Ledger chain", "A served verify"): a whole-chain
// verify of a large team walks and hashes for seconds, and on the loop it held every other team's requests that long.
// One worker thread, started on first use and kept, verifies through read connections of its own; it holds the
// process open only while it has a job. A job the worker cannot answer (it could not load, it failed, the job threw)
// answers null, and the caller verifies on the loop, so a verdict or an error is the loop's own.
import type { ChainVerdict } from "../common/chain-verify.js";
import { WorkerLink } from "./worker-link.js";

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

const link = new WorkerLink<Omit<VerifyJob, "n">, { verdict: ChainVerdict }, ChainVerdict>(
  new URL("./verify-worker.cjs", import.meta.url),
  (reply) => reply.verdict,
);

/** What the pool has done in this process, for tests and benchmarks. */
export const verifyPoolStats = {
  get answered(): number {
    return link.answered;
  },
};

/** A team's verdict from the worker thread, or null when it cannot give one (the caller then verifies on the loop). */
export function verifyElsewhere(job: Omit<VerifyJob, "n">): Promise<ChainVerdict | null> {
  return link.ask(job);
}

/** Stops the worker (its jobs in flight answer null); the next verify starts another. For tests. */
export function stopVerifyWorker(): Promise<void> {
  return link.stop();
}

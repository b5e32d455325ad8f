// The verify worker's body: verifies one team of a database file at a time, through read connections of its own, and
// answers the verdict. A large team is verified on two threads here too: this one walks, a rows worker of its own
// hashes (chain-verify-large.ts).
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import Database from "better-sqlite3";
import type { ChainVerdict } from "../common/chain-verify.js";
import { verifyLedger } from "./chain-verify-large.js";
import type { VerifyJob } from "./verify-pool.js";
import { giveBack, takeReader } from "./verify-readers.js";
import type { WorkerReply } from "./worker-link.js";

type VerifyReply = WorkerReply<{ verdict: ChainVerdict }>;

// As the gates worker: on Linux a thread's nice value is its own (and a thread it starts inherits it), so a verify
// takes what the request thread leaves instead of a core from it. Elsewhere it is not tried (it could lower the
// whole process).
if (process.platform === "linux") {
  try {
    setPriority(0, 10);
  } catch {
    // Not permitted here: the verify runs at the process's priority.
  }
}

/** One job's verdict, read in this thread's own snapshot. */
async function run(job: VerifyJob): Promise<ChainVerdict> {
  const db = takeReader(job.file);
  const archive = job.archive ? new Database(job.archive, { readonly: true, fileMustExist: true }) : undefined;
  try {
    const options = { ...(job.since === undefined ? {} : { since: job.since }), ...(archive ? { archive } : {}) };
    return await verifyLedger(db, job.teamId, options, job.besideFrom, { reader: true });
  } finally {
    archive?.close();
    giveBack(db);
  }
}

parentPort?.on("message", (job: VerifyJob) => {
  run(job).then(
    (verdict) => parentPort?.postMessage({ n: job.n, ok: true, verdict } satisfies VerifyReply),
    (e: unknown) =>
      parentPort?.postMessage({
        n: job.n,
        ok: false,
        message: e instanceof Error ? e.message : String(e),
      } satisfies VerifyReply),
  );
});

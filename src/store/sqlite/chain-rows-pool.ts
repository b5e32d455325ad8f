// The thread that hashes a team's chained rows while the caller walks its entries (a whole-chain verify of a large
// team, docs/DESIGN-NOTES.md "Ledger chain"). One worker, started on first use and kept; it holds the process open
// only while it has a job. A worker that cannot start or fails answers null, and the caller reads the rows itself.
import type { RowsPart, RowsUnit } from "./chain-rows.js";
import { WorkerLink, type WorkerReply } from "./worker-link.js";

/** What the worker is asked: a team's rows in a database file. */
export type RowsJob = {
  n: number;
  file: string;
  teamId: string;
  units: RowsUnit[];
  claim: Int32Array;
};

/** The worker's answer: the team's head as it read it, and every chained table's rows hashed. */
type Answer = { head: { seq: number; digest: string } | null; parts: RowsPart[] };

/** What the worker posts back. */
export type RowsReply = WorkerReply<Answer>;

const link = new WorkerLink<Omit<RowsJob, "n">, Answer, Answer>(
  new URL("./chain-rows-worker.cjs", import.meta.url),
  (reply) => ({ head: reply.head, parts: reply.parts }),
);

/**
 * Units of a team's rows of the file hashed on the worker thread, those it takes from the front of `claim` (shared
 * with the caller, who takes from the back); null when the worker cannot give them.
 */
export function rowsElsewhere(job: Omit<RowsJob, "n">): Promise<Answer | null> {
  return link.ask(job);
}

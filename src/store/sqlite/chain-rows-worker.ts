// The chain rows worker's body: hashes units of a team's chained rows (chain-rows.ts), taken from the front of a
// claim it shares with the caller, through a connection of its own in one read transaction, and answers them with
// the team's head as it read it, so the caller can tell whether it read the same committed state as its own walk.
import { parentPort } from "node:worker_threads";
import type { RowsJob, RowsReply } from "./chain-rows-pool.js";
import { claimUnits } from "./chain-rows.js";
import { giveBack, takeReader } from "./verify-readers.js";

/** One job: the head, then units of the team's rows until none is left, in one read transaction. */
function run(job: RowsJob): Extract<RowsReply, { ok: true }> {
  const db = takeReader(job.file);
  try {
    return db.transaction(() => {
      // The head as SqliteChain.head reads it (its digest is hex text), so the two compare as they are.
      const h = db.prepare("SELECT seq, digest FROM ledger_heads WHERE team_id = ?").raw().get(job.teamId) as
        | [number, string]
        | undefined;
      const parts = claimUnits(db, job.teamId, job.units, job.claim, false);
      return { n: job.n, ok: true as const, head: h ? { seq: h[0], digest: h[1] } : null, parts };
    })();
  } finally {
    giveBack(db);
  }
}

parentPort?.on("message", (job: RowsJob) => {
  try {
    const reply = run(job);
    // The digests' memory is handed over, not copied.
    parentPort?.postMessage(
      reply,
      reply.parts.map((p) => p.rows.digests.buffer as ArrayBuffer),
    );
  } catch (e) {
    parentPort?.postMessage({ n: job.n, ok: false, message: e instanceof Error ? e.message : String(e) });
  }
});

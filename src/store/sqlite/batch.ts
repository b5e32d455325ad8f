// Group commit: writes that arrive in the same turn of the event loop share one transaction and one commit.
import type { Database } from "better-sqlite3";
import { beginImmediate, commitOrRollback, type JobOutcome, rollback, runEach, runOptimistic } from "./atomic.js";
import { afterHold, writesHeld } from "./write-hold.js";

type Job = { fn: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void; alone: boolean };

/**
 * Runs write jobs in batches, in one IMMEDIATE transaction each. A job that throws is rolled back alone: jobs run
 * bare, and when one throws after writing, the batch is undone and run again with a savepoint per job
 * (`runOptimistic`). Every promise settles only after the batch has committed, so nothing is acknowledged before it
 * is durable in the database. A job may run twice, so it must not act outside the database before it answers.
 */
export class WriteBatcher {
  private queue: Job[] = [];
  private scheduled = false;

  constructor(
    private readonly sqlite: Database,
    private readonly maxBatch = 512,
  ) {}

  /**
   * Queues `fn` for the next batch; answers its value once the batch is committed. `alone`: a large write (a call of
   * hundreds of crossings, tens of milliseconds) is committed in a batch of its own, on a later turn than the jobs
   * queued before it, so small writes that happen to arrive beside it are not held for its whole transaction.
   */
  run<T>(fn: () => T, options: { alone?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, alone: options.alone === true });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * `run`, except that with no other job queued (and no transaction open on the handle) the job runs now, in a batch of
   * its own, rather than on the next turn: for a caller that acts as soon as its job has run (the MCP proxy sends an
   * accepted call upstream from inside it, CallOptions.decided), the turn would only delay the upstream's start.
   */
  runNow<T>(fn: () => T, options: { alone?: boolean } = {}): Promise<T> {
    if (this.queue.length > 0 || this.sqlite.inTransaction || writesHeld(this.sqlite)) return this.run(fn, options);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, alone: options.alone === true });
      this.flush();
    });
  }

  private flush(): void {
    if (writesHeld(this.sqlite)) {
      // The checkpointer is closing the log (write-hold.ts): the jobs wait, and `scheduled` stays set so that no
      // other flush is planned meanwhile.
      afterHold(this.sqlite, () => this.flush());
      return;
    }
    this.scheduled = false;
    const next = this.queue.findIndex((j, i) => j.alone || i >= this.maxBatch);
    const jobs = this.queue.splice(0, next === 0 ? 1 : next < 0 ? this.maxBatch : next);
    if (this.queue.length) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (this.sqlite.inTransaction) {
      // Someone holds a synchronous transaction open on this handle; try again on the next turn.
      this.queue.unshift(...jobs);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
      return;
    }
    let outcomes: JobOutcome[];
    try {
      beginImmediate(this.sqlite);
      const fns = jobs.map((j) => j.fn);
      const fast = runOptimistic(this.sqlite, fns);
      if (fast) outcomes = fast;
      else {
        // A job threw after writing: undo the whole group and run it again, each job in its own savepoint.
        rollback(this.sqlite);
        beginImmediate(this.sqlite);
        outcomes = runEach(this.sqlite, fns);
      }
      commitOrRollback(this.sqlite);
    } catch (e) {
      rollback(this.sqlite);
      for (const j of jobs) j.reject(e);
      return;
    }
    jobs.forEach((j, i) => {
      const o = outcomes[i]!;
      if (o.ok) j.resolve(o.value);
      else j.reject(o.error);
    });
  }
}

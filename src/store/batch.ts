// Group commit: writes that arrive in the same turn of the event loop share one transaction and one commit.
import type { Database } from "better-sqlite3";
import { atomic, beginImmediate, commitOrRollback } from "./atomic.js";

type Job = { fn: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void };

/**
 * Runs write jobs in batches. Each job runs in its own savepoint inside the batch's IMMEDIATE transaction, so a
 * job that throws is rolled back alone; every promise settles only after the batch has committed, so nothing is
 * acknowledged before it is durable in the database.
 */
export class WriteBatcher {
  private queue: Job[] = [];
  private scheduled = false;

  constructor(
    private readonly sqlite: Database,
    private readonly maxBatch = 512,
  ) {}

  /** Queues `fn` for the next batch; answers its value once the batch is committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const jobs = this.queue.splice(0, this.maxBatch);
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
    try {
      beginImmediate(this.sqlite);
    } catch (e) {
      for (const j of jobs) j.reject(e);
      return;
    }
    const settle: (() => void)[] = [];
    for (const j of jobs) {
      try {
        const value = atomic(this.sqlite, j.fn);
        settle.push(() => j.resolve(value));
      } catch (e) {
        settle.push(() => j.reject(e));
      }
    }
    try {
      commitOrRollback(this.sqlite);
    } catch (e) {
      for (const j of jobs) j.reject(e);
      return;
    }
    for (const s of settle) s();
  }
}

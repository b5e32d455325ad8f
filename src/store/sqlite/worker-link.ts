// One worker thread that a module asks jobs of (the chain rows worker, the verify worker): started on first use and
// kept, holding the process open only while it has a job. A job its worker cannot answer (the worker failed or
// exited, or answered not ok) settles as null, and its caller does the work itself; a worker that fails to start
// turns the link off for the process.
import { Worker } from "node:worker_threads";

/** What a worker posts back for job `n`: its answer's fields when ok. */
export type WorkerReply<R extends object> =
  | ({ ok: true } & R & { n: number })
  | { n: number; ok: false; message: string };

/** A link to one worker thread, asked jobs of type J and answering A. */
export class WorkerLink<J extends object, R extends object, A> {
  private worker: Worker | null = null;
  private usable = true;
  private sent = 0;
  private readonly waiting = new Map<number, { w: Worker; done: (a: A | null) => void }>();
  /** Jobs the worker answered ok, for tests and benchmarks. */
  answered = 0;

  /** `url`: the worker's entry; `read`: the answer from an ok reply. */
  constructor(
    private readonly url: URL,
    private readonly read: (reply: R) => A,
  ) {}

  /** The worker's answer to `job`, or null when it cannot give one. */
  ask(job: J): Promise<A | null> {
    if (!this.usable) return Promise.resolve(null);
    return new Promise((resolve) => {
      const w = this.started();
      const n = ++this.sent;
      this.waiting.set(n, { w, done: resolve });
      w.ref();
      w.postMessage({ ...job, n });
    });
  }

  /** Stops the worker (its jobs in flight settle as null); the next job starts another. */
  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  /** Settles the jobs sent to `w` as null. */
  private failJobsOf(w: Worker): void {
    if (this.worker === w) this.worker = null;
    for (const [n, job] of this.waiting)
      if (job.w === w) {
        this.waiting.delete(n);
        job.done(null);
      }
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // No inherited execArgv: the entry registers tsx itself, and a process's `--import` of TypeScript would not load here.
    const w = new Worker(this.url, { execArgv: [] });
    w.on("message", (m: WorkerReply<R>) => {
      const job = this.waiting.get(m.n);
      this.waiting.delete(m.n);
      if (![...this.waiting.values()].some((j) => j.w === w)) w.unref();
      if (m.ok) this.answered += 1;
      job?.done(m.ok ? this.read(m) : null);
    });
    w.on("error", () => {
      this.usable = false;
      this.failJobsOf(w);
    });
    w.on("exit", () => this.failJobsOf(w));
    this.worker = w;
    return w;
  }
}

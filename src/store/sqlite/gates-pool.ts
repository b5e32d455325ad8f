// A small pool of gates workers (node:worker_threads): large evaluations are decided there, off the event loop. One
// worker per core but one (at least one), started on first use, each deciding one job at a time; a worker holds the
// process open only while it has a job. A worker that fails before it ever answered (it could not load) turns the
// pool off for the process: evaluations are then decided on the loop, as before.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Settings } from "../../gates/settings.js";
import type { EvaluationRows } from "../common/evaluation-rows.js";
import type { Evaluation } from "../model.js";

/** What the worker needs to decide one evaluation: everything it cannot read from the database file itself. */
export type GatesJob = {
  /** The database file; the worker reads it through a connection of its own. */
  file: string;
  teamId: string;
  input: unknown;
  /** Complete settings, the input's own merged over the store's. */
  settings: Settings;
  datums: string[];
  /** The evaluation's id and time, made on the loop (ids come from one monotonic factory per process). */
  id: string;
  at: number;
};

/** The worker's answer: the evaluation, the rows to write, and the history version the decision rests on. */
export type GatesAnswer = { evaluation: Evaluation; rows: EvaluationRows; version: string };

type Reply = { n: number; ok: true; answer: GatesAnswer } | { n: number; ok: false; message: string };
type Pending = { n: number; job: GatesJob; resolve: (a: GatesAnswer) => void; reject: (e: Error) => void };

/** The pool; `decide` rejects when the worker fails, and the caller then decides on the loop. */
export class GatesPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private started = 0;
  private sent = 0;
  private answered = false;
  /** False once a worker failed to load: every evaluation is decided on the loop. */
  usable = true;
  /** Jobs the workers answered, for tests and benchmarks. */
  decided = 0;

  constructor(private readonly size: number) {}

  /** Decides one job in a worker. */
  decide(job: GatesJob): Promise<GatesAnswer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ n: ++this.sent, job, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.usable) {
      const w = this.idle.pop() ?? (this.started < this.size ? this.spawn() : undefined);
      if (!w) return;
      const p = this.queue.shift()!;
      this.busy.set(w, p);
      w.ref();
      w.postMessage({ n: p.n, job: p.job });
    }
    if (!this.usable) for (const p of this.queue.splice(0)) p.reject(new Error("the gates workers are off"));
  }

  private spawn(): Worker {
    // No inherited execArgv: the entry registers tsx itself, and a process's `--import` of TypeScript would not load here.
    const w = new Worker(new URL("./gates-worker.mjs", import.meta.url), { execArgv: [] });
    this.started++;
    w.on("message", (m: Reply) => {
      const p = this.busy.get(w);
      this.busy.delete(w);
      w.unref();
      this.idle.push(w);
      this.answered = true;
      if (p && m.ok) {
        this.decided++;
        p.resolve(m.answer);
      } else if (p && !m.ok) p.reject(new Error(m.message));
      this.pump();
    });
    w.on("error", (e) => this.drop(w, e));
    w.on("exit", (code) => this.drop(w, new Error(`the gates worker exited with code ${code}`)));
    return w;
  }

  private drop(w: Worker, e: Error): void {
    const p = this.busy.get(w);
    if (!this.busy.delete(w) && !this.idle.includes(w)) return;
    const i = this.idle.indexOf(w);
    if (i >= 0) this.idle.splice(i, 1);
    this.started--;
    if (!this.answered) this.usable = false;
    p?.reject(e);
    this.pump();
  }
}

/** The process's pool. */
export const gatesPool = new GatesPool(Math.max(1, availableParallelism() - 1));

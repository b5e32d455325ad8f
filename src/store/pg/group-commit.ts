// Group commit on PostgreSQL: one-statement writes of different sessions that arrive while the instance's statements
// are in flight travel together as ONE statement (one parse of the message, one executor start-up, one commit), so the
// per-statement cost that dominates a guarded call is shared. Each row of the group keeps its own condition (the
// session's write count, the registry and tool versions), so a row whose session changed elsewhere writes nothing and
// its caller takes the locked path, as it would alone. Nothing is answered before the statement has committed.

import { sqlState } from "./tx.js";

/** True when PostgreSQL itself refused a statement (then it wrote nothing); false for a lost connection and the like. */
const refusedByServer = (e: unknown): boolean => sqlState(e) !== undefined;

/** The sessions with a grouped write queued or in flight, shared by the call and result groups of one store. */
export class SessionsInFlight {
  private readonly n = new Map<string, number>();

  /** True while `sessionId` has a write queued or in flight. */
  has(sessionId: string): boolean {
    return this.n.has(sessionId);
  }

  add(sessionId: string): void {
    this.n.set(sessionId, (this.n.get(sessionId) ?? 0) + 1);
  }

  delete(sessionId: string): void {
    const left = (this.n.get(sessionId) ?? 1) - 1;
    if (left <= 0) this.n.delete(sessionId);
    else this.n.set(sessionId, left);
  }
}

/** How one kind of write is sent: alone (the one-row statement) and as a group (the many-row statement). */
export type GroupShape<J, R> = {
  /** The write alone; its own errors are its caller's. */
  one(job: J): Promise<R>;
  /** The writes of `jobs` in one statement, answered in the jobs' order. */
  many(jobs: readonly J[]): Promise<R[]>;
};

type Queued<J, R> = { sessionId: string; job: J; resolve: (r: R) => void; reject: (e: unknown) => void };

/** Statements in flight per instance and kind: enough to keep the server's two cores busy while the next group fills. */
export const GROUP_IN_FLIGHT = 1;
/** Rows per group at most (a statement's parameters are arrays, so the bound is the server's work, not a limit). */
export const GROUP_MAX = 256;

/**
 * Sends the writes of one kind in groups: while GROUP_IN_FLIGHT statements are out, new writes wait and leave
 * together when one returns; otherwise the writes of one event-loop turn leave together. A group whose statement
 * PostgreSQL refuses wrote nothing (it is one statement), and each of its writes is then sent alone, so one bad write
 * fails alone; a group whose answer was lost fails whole.
 */
export class GroupCommit<J, R> {
  private queue: Queued<J, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly shape: GroupShape<J, R>,
    private readonly sessions: SessionsInFlight,
    private readonly inFlightMax = GROUP_IN_FLIGHT,
    private readonly maxRows = GROUP_MAX,
  ) {}

  /** Queues a write of `sessionId`; answers its result once its statement has committed. */
  run(sessionId: string, job: J): Promise<R> {
    this.sessions.add(sessionId);
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ sessionId, job, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.inFlight >= this.inFlightMax) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0 && this.inFlight < this.inFlightMax)
        void this.send(this.queue.splice(0, this.maxRows));
    });
  }

  private async send(group: Queued<J, R>[]): Promise<void> {
    this.inFlight += 1;
    // Session rows are locked in the group's order: in id order, two instances' groups cannot lock in a cycle.
    group.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
    let settled: PromiseSettledResult<R>[];
    if (group.length === 1) settled = await Promise.allSettled([this.shape.one(group[0]!.job)]);
    else {
      try {
        settled = (await this.shape.many(group.map((g) => g.job))).map((value) => ({ status: "fulfilled", value }));
      } catch (e) {
        // A statement PostgreSQL refused wrote nothing, so each write is sent alone and one bad write fails alone.
        // Any other failure (the connection lost on the way back) leaves the group's fate unknown: it may have
        // committed, and a write sent again would find its session moved on, be decided anew and stored twice. Each
        // member then gets the error, as a write sent alone would.
        settled = refusedByServer(e)
          ? await Promise.allSettled(group.map((g) => this.shape.one(g.job)))
          : group.map(() => ({ status: "rejected", reason: e }));
      }
    }
    this.inFlight -= 1;
    group.forEach((g, i) => {
      this.sessions.delete(g.sessionId);
      const s = settled[i]!;
      if (s.status === "fulfilled") g.resolve(s.value);
      else g.reject(s.reason);
    });
    this.schedule();
  }
}

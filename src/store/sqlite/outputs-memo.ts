// What one SQLite connection remembers of its sessions' outputs (the History port's rows), so a guarded call's
// carry-over and sourced look-ups read memory instead of three indexed queries. The memory is shared by every
// SessionStore on the connection and trusted only while nothing it cannot see has written: no other connection has
// committed (PRAGMA data_version), nothing on this connection wrote outside the remembered steps (total_changes), no
// rollback undid a remembered write (src/store/atomic.ts counts them), and the open transaction, if any, is one that
// atomic.ts began (a transaction begun elsewhere may roll back unseen, so inside one the memory is not used).
import type { Database, Statement } from "better-sqlite3";
import type { CrossingDraft } from "../../guard/verdict.js";
import type { PriorOutput } from "../../guard/history.js";
import { ownedTransaction, ownsTransaction, totalChanges, undoCount } from "./atomic.js";

/** Sessions with more outputs than this are not remembered: their look-ups stay on the indexes. */
export const REMEMBERED_OUTPUTS = 256;
const REMEMBERED_SESSIONS = 4_096;

/** A session's outputs in crossing-id order, or null when it has more than REMEMBERED_OUTPUTS. */
type Outputs = PriorOutput[] | null;

/** The stamp the memory was last known good at. */
type Stamp = { version: number; changes: number; undone: number };

/** One connection's remembered outputs, by session id. */
export class OutputsMemo {
  private readonly sessions = new Map<string, Outputs>();
  private stamp: Stamp = { version: -1, changes: -1, undone: -1 };
  /**
   * Grows each time the memory is found untrustworthy and forgotten: while it stays the same, nothing has written
   * to the database but the store's own remembered steps (which write calls, results and crossings only).
   */
  generation = 0;
  private readonly versionStmt: Statement;

  constructor(private readonly sqlite: Database) {
    this.versionStmt = sqlite.prepare("PRAGMA data_version").pluck();
  }

  /** The transaction (of atomic.ts) `version` was read in, and that read. */
  private read: { tx: number; version: number } = { tx: -1, version: -1 };

  /**
   * The connection's data_version now (it changes when another connection commits). Read once per transaction that
   * atomic.ts began: it holds the write lock (BEGIN IMMEDIATE), so no other connection commits until it ends.
   */
  dataVersion(): number {
    const tx = ownedTransaction(this.sqlite);
    if (tx !== null && tx === this.read.tx) return this.read.version;
    const version = this.versionStmt.get() as number;
    this.read = { tx: tx ?? -1, version };
    return version;
  }

  /**
   * Whether the memory may be used now, at `version` (the connection's data_version, read in this step); forgets
   * everything when something it cannot see may have written since it was last known good.
   */
  usable(version: number): boolean {
    if (this.sqlite.inTransaction && !ownsTransaction(this.sqlite)) {
      this.forgetAll();
      return false;
    }
    const s = this.stamp;
    const changes = totalChanges(this.sqlite);
    const undone = undoCount(this.sqlite);
    if (s.version !== version || s.changes !== changes || s.undone !== undone) {
      this.sessions.clear();
      this.generation += 1;
      this.stamp = { version, changes, undone };
    }
    return true;
  }

  /** Marks the memory good as of now: called at the end of a step whose every write the memory has taken in. */
  settle(): void {
    this.stamp.changes = totalChanges(this.sqlite);
  }

  /**
   * Takes in writes made since `before` (a total_changes reading) that hold no session output, such as the chain's
   * entries written as a group commits: a memory good before them stays good.
   */
  passOver(before: number): void {
    if (this.stamp.changes === before) this.stamp.changes = totalChanges(this.sqlite);
  }

  /** Forgets every session (and the stamp, so the next step starts afresh). */
  forgetAll(): void {
    this.sessions.clear();
    this.generation += 1;
    this.stamp = { version: -1, changes: -1, undone: -1 };
  }

  /** The remembered outputs of a session: an array, null for too many, undefined when not remembered. */
  get(sessionId: string): Outputs | undefined {
    return this.sessions.get(sessionId);
  }

  /** Remembers a session's outputs as read from the database (`read` has at most REMEMBERED_OUTPUTS + 1 rows). */
  keep(sessionId: string, read: PriorOutput[]): Outputs {
    if (this.sessions.size >= REMEMBERED_SESSIONS) this.sessions.clear();
    const outputs = read.length > REMEMBERED_OUTPUTS ? null : read;
    this.sessions.set(sessionId, outputs);
    return outputs;
  }

  /**
   * Takes in a crossing just written to a remembered session, as the database will answer it: only a scalar return
   * with a unit that was not refused is an output, and SQLite stores NaN as NULL and -0 as 0.
   */
  wrote(sessionId: string, call: { id: string; seq: number; tool: string }, c: CrossingDraft): void {
    const outputs = this.sessions.get(sessionId);
    if (!outputs) return;
    const value = stored(c.value);
    if (c.direction !== "return" || c.unit === null || value === null || c.outcome === "refused") return;
    if (outputs.length >= REMEMBERED_OUTPUTS) {
      this.sessions.set(sessionId, null);
      return;
    }
    outputs.push({
      callId: call.id,
      seq: call.seq,
      tool: call.tool,
      field: c.param,
      value,
      unit: c.unit,
      valueSi: stored(c.valueSi) as number,
      dimension: c.dimension as string,
      datum: c.datum,
      quality: c.quality,
    });
  }
}

/** A number as a REAL column gives it back. */
function stored(x: number | null): number | null {
  if (x === null || Number.isNaN(x)) return null;
  return x === 0 ? 0 : x;
}

const memos = new WeakMap<Database, OutputsMemo>();

/** The one memory of a connection. */
export function outputsMemo(sqlite: Database): OutputsMemo {
  let m = memos.get(sqlite);
  if (!m) memos.set(sqlite, (m = new OutputsMemo(sqlite)));
  return m;
}

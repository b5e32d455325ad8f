// All-or-nothing writes on prepared transaction statements: better-sqlite3's `transaction(fn)` builds its wrapper
// functions on every use (about 14 us), more than a guarded call's own inserts; these statements cost under 2 us.
import type { Database, Statement } from "better-sqlite3";

type Control = Record<"begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo" | "changes", Statement>;

/**
 * A handle's control statements, whether a group commit is running its jobs without savepoints, whether the open
 * transaction was begun here (`owned`), and how many times writes were undone here (`undone`): what a memory of the
 * database's rows (src/store/outputs-memo.ts) needs to know to be trusted.
 */
type HandleState = {
  c: Control;
  optimistic: boolean;
  poisoned: boolean;
  owned: boolean;
  undone: number;
  /** Transactions begun here, so a reader can tell one from the next. */
  begun: number;
  /** What must run just before the open transaction begun here commits (dropped when it rolls back). */
  hooks: (() => void)[];
};

const states = new WeakMap<Database, HandleState>();

/** The prepared transaction-control statements of one handle, with its group-commit state. */
function state(sqlite: Database): HandleState {
  let s = states.get(sqlite);
  if (!s) {
    const p = (sql: string) => sqlite.prepare(sql);
    s = {
      c: {
        begin: p("BEGIN IMMEDIATE"),
        commit: p("COMMIT"),
        rollback: p("ROLLBACK"),
        savepoint: p('SAVEPOINT "atomic"'),
        release: p('RELEASE "atomic"'),
        rollbackTo: p('ROLLBACK TO "atomic"'),
        changes: p("SELECT total_changes()").pluck(),
      },
      optimistic: false,
      poisoned: false,
      owned: false,
      undone: 0,
      begun: 0,
      hooks: [],
    };
    states.set(sqlite, s);
  }
  return s;
}

/**
 * Whether the open transaction on this handle was begun by this module (`atomic`, a group commit), whose every
 * rollback `undoCount` counts; false outside a transaction and in one begun elsewhere (better-sqlite3's
 * `transaction()`, drizzle's), whose rollback nothing here sees.
 */
export function ownsTransaction(sqlite: Database): boolean {
  const s = state(sqlite);
  if (!sqlite.inTransaction) s.owned = false;
  return s.owned;
}

/**
 * Which transaction begun here is open (a number that grows with each), or null when none is: every one is
 * BEGIN IMMEDIATE, so while it is open no other connection commits.
 */
export function ownedTransaction(sqlite: Database): number | null {
  return ownsTransaction(sqlite) ? state(sqlite).begun : null;
}

/**
 * Whether the open transaction was begun here and its jobs run bare (`runOptimistic`, `atomicGroup`): its writes are
 * kept or undone only as a whole, so a writer may hold work back until `beforeCommit`.
 */
export function inOptimisticGroup(sqlite: Database): boolean {
  const s = state(sqlite);
  return s.optimistic && ownsTransaction(sqlite);
}

/** Runs `fn` inside the open transaction begun here, just before it commits; dropped if it rolls back instead. */
export function beforeCommit(sqlite: Database, fn: () => void): void {
  state(sqlite).hooks.push(fn);
}

/** How many times this module rolled writes back on this handle (a transaction, or a savepoint inside one). */
export function undoCount(sqlite: Database): number {
  return state(sqlite).undone;
}

/** Rows inserted, updated or deleted on this handle since it opened (a failed statement leaves it unchanged). */
export function totalChanges(sqlite: Database): number {
  return state(sqlite).c.changes.get() as number;
}

/**
 * Runs `fn` so that its writes are all kept or none are: in a savepoint when a transaction is already open on the
 * handle (a group commit, a caller's transaction), else in its own IMMEDIATE transaction. `fn` must be synchronous.
 * Inside a group commit running without savepoints (`runOptimistic`), `fn` runs bare: if it throws after writing,
 * the group is marked, and the batch is rolled back and run again with a savepoint per job.
 */
export function atomic<T>(sqlite: Database, fn: () => T): T {
  const s = state(sqlite);
  const c = s.c;
  const nested = sqlite.inTransaction;
  if (nested && s.optimistic) {
    const before = c.changes.get() as number;
    try {
      return fn();
    } catch (e) {
      if (!sqlite.inTransaction || (c.changes.get() as number) !== before) s.poisoned = true;
      throw e;
    }
  }
  if (nested) c.savepoint.run();
  else begin(s);
  let value: T;
  try {
    value = fn();
  } catch (e) {
    s.undone += 1;
    // SQLite may already have rolled the whole transaction back (SQLITE_FULL, an interrupt): nothing left to undo.
    if (sqlite.inTransaction) {
      if (nested) {
        c.rollbackTo.run();
        c.release.run();
      } else c.rollback.run();
    }
    if (!nested || !sqlite.inTransaction) {
      s.owned = false;
      s.hooks = [];
    }
    throw e;
  }
  if (nested) c.release.run();
  else commit(sqlite, s);
  return value;
}

/** What one job of a group commit gave: its value, or what it threw. */
export type JobOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Runs the jobs of a group commit in the open transaction, without a savepoint each: a savepoint journals every page
 * a job touches, which cost a guarded call more than its inserts. A job that throws before writing anything needs no
 * undo. When one throws after writing (or a nested `atomic` did and was caught), answers null: the caller must roll
 * the transaction back and run the jobs again with `runEach`.
 */
export function runOptimistic(sqlite: Database, jobs: readonly (() => unknown)[]): JobOutcome[] | null {
  const s = state(sqlite);
  const out: JobOutcome[] = [];
  s.optimistic = true;
  s.poisoned = false;
  try {
    let before = s.c.changes.get() as number;
    for (const fn of jobs) {
      try {
        out.push({ ok: true, value: fn() });
      } catch (error) {
        if (!sqlite.inTransaction || (s.c.changes.get() as number) !== before) return null;
        out.push({ ok: false, error });
      }
      if (s.poisoned) return null;
      before = s.c.changes.get() as number;
    }
    return out;
  } finally {
    s.optimistic = false;
    s.poisoned = false;
  }
}

/** Runs each job in its own savepoint in the open transaction, so a job that throws is rolled back alone. */
export function runEach(sqlite: Database, jobs: readonly (() => unknown)[]): JobOutcome[] {
  return jobs.map((fn): JobOutcome => {
    try {
      return { ok: true, value: atomic(sqlite, fn) };
    } catch (error) {
      return { ok: false, error };
    }
  });
}

/**
 * Runs `fn` in one IMMEDIATE transaction whose nested `atomic` steps take no savepoint each (a bulk load of many
 * calls). All or nothing, as `atomic`; if a nested step threw after writing and `fn` went on, the transaction is
 * rolled back and `fn` runs again with a savepoint per step, so `fn` must not act outside the database.
 */
export function atomicGroup<T>(sqlite: Database, fn: () => T): T {
  if (sqlite.inTransaction) return atomic(sqlite, fn);
  const s = state(sqlite);
  begin(s);
  s.optimistic = true;
  s.poisoned = false;
  let value: T;
  let poisoned: boolean;
  try {
    value = fn();
  } catch (e) {
    rollback(sqlite);
    throw e;
  } finally {
    poisoned = s.poisoned;
    s.optimistic = false;
    s.poisoned = false;
  }
  if (poisoned) {
    rollback(sqlite);
    return atomic(sqlite, fn);
  }
  commitOrRollback(sqlite);
  return value;
}

function begin(s: HandleState): void {
  s.hooks = [];
  s.c.begin.run();
  s.owned = true;
  s.begun += 1;
}

function commit(sqlite: Database, s: HandleState): void {
  try {
    // A hook may add another (none does today); each runs once, in the order registered.
    for (let h = s.hooks.shift(); h; h = s.hooks.shift()) h();
    s.c.commit.run();
  } catch (e) {
    s.undone += 1;
    s.hooks = [];
    if (sqlite.inTransaction) s.c.rollback.run();
    s.owned = false;
    throw e;
  }
  s.owned = false;
}

/** Opens the IMMEDIATE transaction a group commit runs its jobs in. */
export function beginImmediate(sqlite: Database): void {
  begin(state(sqlite));
}

/** Rolls the open transaction back, when SQLite has not already. */
export function rollback(sqlite: Database): void {
  const s = state(sqlite);
  s.undone += 1;
  s.hooks = [];
  if (sqlite.inTransaction) s.c.rollback.run();
  s.owned = false;
}

/** Commits the open transaction; on failure rolls it back (when SQLite has not already) and rethrows. */
export function commitOrRollback(sqlite: Database): void {
  commit(sqlite, state(sqlite));
}

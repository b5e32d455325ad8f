// All-or-nothing writes on prepared transaction statements: better-sqlite3's `transaction(fn)` builds its wrapper
// functions on every use (about 14 us), more than a guarded call's own inserts; these statements cost under 2 us.
import type { Database, Statement } from "better-sqlite3";

type Control = Record<"begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo", Statement>;

const controls = new WeakMap<Database, Control>();

/** The prepared transaction-control statements of one handle. */
function control(sqlite: Database): Control {
  let c = controls.get(sqlite);
  if (!c) {
    const p = (sql: string) => sqlite.prepare(sql);
    c = {
      begin: p("BEGIN IMMEDIATE"),
      commit: p("COMMIT"),
      rollback: p("ROLLBACK"),
      savepoint: p('SAVEPOINT "atomic"'),
      release: p('RELEASE "atomic"'),
      rollbackTo: p('ROLLBACK TO "atomic"'),
    };
    controls.set(sqlite, c);
  }
  return c;
}

/**
 * Runs `fn` so that its writes are all kept or none are: in a savepoint when a transaction is already open on the
 * handle (a group commit, a caller's transaction), else in its own IMMEDIATE transaction. `fn` must be synchronous.
 */
export function atomic<T>(sqlite: Database, fn: () => T): T {
  const c = control(sqlite);
  const nested = sqlite.inTransaction;
  (nested ? c.savepoint : c.begin).run();
  let value: T;
  try {
    value = fn();
  } catch (e) {
    // SQLite may already have rolled the whole transaction back (SQLITE_FULL, an interrupt): nothing left to undo.
    if (sqlite.inTransaction) {
      if (nested) {
        c.rollbackTo.run();
        c.release.run();
      } else c.rollback.run();
    }
    throw e;
  }
  (nested ? c.release : c.commit).run();
  return value;
}

/** Opens the IMMEDIATE transaction a group commit runs its jobs in. */
export function beginImmediate(sqlite: Database): void {
  control(sqlite).begin.run();
}

/** Commits the open transaction; on failure rolls it back (when SQLite has not already) and rethrows. */
export function commitOrRollback(sqlite: Database): void {
  const c = control(sqlite);
  try {
    c.commit.run();
  } catch (e) {
    if (sqlite.inTransaction) c.rollback.run();
    throw e;
  }
}

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { atomic, atomicGroup } from "../../../src/store/sqlite/atomic.js";
import { WriteBatcher } from "../../../src/store/sqlite/batch.js";
import { openDb, type LedgerDb } from "../../../src/store/sqlite/db.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fileDb(): { store: LedgerDb; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "batch-"));
  dirs.push(dir);
  const file = join(dir, "ledger.db");
  return { store: openDb(file), file };
}

const names = (store: LedgerDb) =>
  (store.sqlite.prepare("SELECT name FROM teams ORDER BY name").pluck().all() as string[]).filter(
    (n) => n !== "default",
  );

describe("group commit without a savepoint per job", () => {
  it("rolls back a job that throws after writing, alone, and commits the rest of its batch", async () => {
    const { store } = fileDb();
    const b = new WriteBatcher(store.sqlite);
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    const runs = { a: 0, c: 0 };
    const a = b.run(() => {
      runs.a += 1;
      return Number(add.run("t-a", "a").lastInsertRowid);
    });
    const bad = b.run(() => {
      add.run("t-b", "b");
      throw new Error("failed after writing team b");
    });
    const c = b.run(() => {
      runs.c += 1;
      add.run("t-c", "c");
      return "c stored";
    });
    await expect(bad).rejects.toThrow("failed after writing team b");
    const rowid = await a;
    expect(await c).toBe("c stored");
    expect(names(store)).toEqual(["a", "c"]);
    // The batch was undone at b and run again with savepoints: a ran twice and answers its second run's row; c, queued
    // after b, ran once.
    expect(runs).toEqual({ a: 2, c: 1 });
    expect(store.sqlite.prepare("SELECT name FROM teams WHERE rowid = ?").pluck().get(rowid)).toBe("a");
    store.close();
  });

  it("keeps the other jobs of a batch on their first run when a job throws before writing anything", async () => {
    const { store } = fileDb();
    const b = new WriteBatcher(store.sqlite);
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    let runs = 0;
    const a = b.run(() => {
      runs += 1;
      add.run("t-a", "a");
    });
    const refused = b.run(() => {
      throw new Error("no session 'x'");
    });
    const dup = b.run(() => add.run("t-a2", "a")); // a UNIQUE violation: the failed statement writes nothing
    await expect(refused).rejects.toThrow("no session 'x'");
    await expect(dup).rejects.toThrow(/UNIQUE constraint failed: teams.name/);
    await a;
    expect(runs).toBe(1);
    expect(names(store)).toEqual(["a"]);
    store.close();
  });

  it("undoes a nested atomic that threw after writing even when its job caught the error", async () => {
    const { store } = fileDb();
    const b = new WriteBatcher(store.sqlite);
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    const done = b.run(() => {
      add.run("t-x", "x");
      try {
        atomic(store.sqlite, () => {
          add.run("t-y", "y");
          throw new Error("inner step failed");
        });
      } catch {
        // the job goes on without the inner step's writes
      }
      add.run("t-z", "z");
      return "job done";
    });
    const other = b.run(() => add.run("t-w", "w").changes);
    expect(await done).toBe("job done");
    expect(await other).toBe(1);
    expect(names(store)).toEqual(["w", "x", "z"]);
    store.close();
  });

  it("settles a job only after its batch is committed: another connection already reads its row", async () => {
    const { store, file } = fileDb();
    const b = new WriteBatcher(store.sqlite);
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    const reader = new Database(file, { readonly: true });
    const seen = await Promise.all(
      ["p", "q", "r"].map((n) =>
        b
          .run(() => add.run(`t-${n}`, n))
          .then(() => reader.prepare("SELECT count(*) FROM teams WHERE name = ?").pluck().get(n)),
      ),
    );
    expect(seen).toEqual([1, 1, 1]);
    reader.close();
    store.close();
  });
});

describe("atomicGroup (a bulk load without a savepoint per step)", () => {
  it("keeps every step of a group that succeeds, and none of a group that throws", () => {
    const { store } = fileDb();
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    atomicGroup(store.sqlite, () => {
      atomic(store.sqlite, () => add.run("t-a", "a"));
      atomic(store.sqlite, () => add.run("t-b", "b"));
    });
    expect(() =>
      atomicGroup(store.sqlite, () => {
        atomic(store.sqlite, () => add.run("t-c", "c"));
        throw new Error("the load stopped at c");
      }),
    ).toThrow("the load stopped at c");
    expect(names(store)).toEqual(["a", "b"]);
    store.close();
  });

  it("runs the group again with savepoints when a step threw after writing and the group went on", () => {
    const { store } = fileDb();
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    let runs = 0;
    const answer = atomicGroup(store.sqlite, () => {
      runs += 1;
      add.run(`t-x${runs}`, `x${runs}`);
      try {
        atomic(store.sqlite, () => {
          add.run(`t-y${runs}`, `y${runs}`);
          throw new Error("step failed");
        });
      } catch {
        // the load goes on without the step
      }
      return runs;
    });
    expect(answer).toBe(2);
    expect(names(store)).toEqual(["x2"]);
    store.close();
  });

  it("commits a large write alone, after the writes queued before it and before those queued after it", async () => {
    const { store } = fileDb();
    const b = new WriteBatcher(store.sqlite);
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    // Each job notes which answers were already out when it ran: a later batch runs after the earlier one answered.
    const answered: string[] = [];
    const seen: Record<string, string[]> = {};
    const job = (name: string, alone = false) =>
      b
        .run(
          () => {
            seen[name] = [...answered];
            add.run(`t-${name}`, name);
          },
          { alone },
        )
        .then(() => void answered.push(name));
    await Promise.all([job("a"), job("b"), job("large", true), job("c"), job("d")]);
    expect(seen).toEqual({ a: [], b: [], large: ["a", "b"], c: ["a", "b", "large"], d: ["a", "b", "large"] });
    expect(names(store)).toEqual(["a", "b", "c", "d", "large"]);
    store.close();
  });
});

describe("a job run now", () => {
  it("runs and commits before runNow returns when nothing is queued, and waits its turn behind queued jobs", async () => {
    const { store } = fileDb();
    const b = new WriteBatcher(store.sqlite);
    const add = store.sqlite.prepare("INSERT INTO teams (id, name) VALUES (?, ?)");
    const now = b.runNow(() => add.run("t-now", "now").changes);
    // Committed already: another connection sees the row before the promise settles.
    const other = new Database(store.file, { readonly: true });
    expect(other.prepare("SELECT name FROM teams WHERE id = 't-now'").pluck().get()).toBe("now");
    expect(store.sqlite.inTransaction).toBe(false);
    expect(await now).toBe(1);
    const queued = b.run(() => add.run("t-queued", "queued").changes);
    const behind = b.runNow(() => add.run("t-behind", "behind").changes);
    // A job is queued, so this one joins its batch on the next turn instead of running first.
    expect(other.prepare("SELECT count(*) FROM teams WHERE id IN ('t-queued', 't-behind')").pluck().get()).toBe(0);
    expect([await queued, await behind]).toEqual([1, 1]);
    expect(names(store)).toEqual(["behind", "now", "queued"]);
    other.close();
    store.close();
  });
});

import { describe, expect, it } from "vitest";
import type { LedgerDb } from "../../../src/store/sqlite/db.js";
import { seedDatabase } from "../../../src/store/sqlite/seed.js";
import { findTeamByName } from "../../../src/store/sqlite/teams.js";
import { createTestDb } from "../../helpers/db.js";

/** Every row of every table, so a second seed that changes anything shows up. */
function snapshot(store: LedgerDb): Record<string, unknown[]> {
  const tables = store.sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  return Object.fromEntries(
    tables.map(({ name }) => [name, store.sqlite.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()]),
  );
}

describe("seed", () => {
  it("creates the team default", () => {
    const store = createTestDb();
    const { teamId } = seedDatabase(store);
    expect(findTeamByName(store.db, "default")?.id).toBe(teamId);
  });

  it("changes nothing when run a second time", () => {
    const store = createTestDb();
    const first = seedDatabase(store);
    const before = snapshot(store);
    const second = seedDatabase(store);
    expect(second).toEqual(first);
    expect(snapshot(store)).toEqual(before);
  });
});

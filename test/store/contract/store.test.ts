// Store contract: opening, schema state, seeding; and the factory that picks the engine from AGENT_LEDGER_DB.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { openStore } from "../../../src/store/open.js";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, settableClock } from "./engines.js";
import { EXAMPLE_TOOLS } from "../../../src/store/common/example-tools.js";

describe.each(await enginesUnderTest())("$name store: schema and seed", (engine) => {
  let store: LedgerStore;
  beforeAll(async () => {
    store = await engine.open(settableClock());
  });
  afterAll(() => store.close());

  it("says which engine it is and counts its migrations", async () => {
    const info = await store.info();
    expect(info.engine).toBe(engine.name);
    expect(store.engine).toBe(engine.name);
    expect(info.migrations).toBeGreaterThan(0);
    expect(info.where).not.toMatch(/:[^:@/]+@/);
  });

  it("seeds the default team and the README's example once, however often it runs", async () => {
    const first = await store.seed();
    const again = await store.seed();
    expect(again).toEqual(first);
    expect(first.teamId).toBe(await store.teams.ensureDefault());
    const tools = await store.tools.list(first.teamId, { limit: 50 });
    expect(tools.map((t) => [t.row.name, t.row.version])).toEqual(
      Object.keys(EXAMPLE_TOOLS)
        .sort()
        .map((n) => [n, 1]),
    );
    const sessions = await store.sessions.list(first.teamId, {
      labels: [{ key: "example", value: "carry-over" }],
      limit: 10,
    });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      callCount: 4,
      violationCount: 1,
      blockedCount: 1,
      createdAt: "2026-03-02T09:00:00.000Z",
    });
  });
});

describe("openStore", () => {
  it("opens a SQLite store for a file path or :memory:", async () => {
    const store = await openStore(":memory:");
    expect([store.engine, store.where, store.applied > 0]).toEqual(["sqlite", ":memory:", true]);
    await store.close();
  });

  it("reads postgres:// and postgresql:// as PostgreSQL and any other scheme as a configuration error", () => {
    expect(loadConfig({ AGENT_LEDGER_DB: "postgres://u:p@h/db" }).dbEngine).toBe("postgres");
    expect(loadConfig({ AGENT_LEDGER_DB: "postgresql://h/db" }).dbEngine).toBe("postgres");
    expect(loadConfig({ AGENT_LEDGER_DB: "./data/x.db" }).dbEngine).toBe("sqlite");
    expect(() => loadConfig({ AGENT_LEDGER_DB: "mysql://root:secret@h/db" })).toThrow(
      'AGENT_LEDGER_DB must be a SQLite file path (or :memory:) or a postgres:// URL; no other database is supported (received "mysql://root:***@h/db")',
    );
  });
});

// The engines the store contract suite runs on, as drizzle runs one tests() suite per driver. Each suite file does
// `describe.each(await enginesUnderTest())(...)`; an engine this build cannot open is left out with one loud line.
import type { Clock } from "../../../src/clock.js";
import { openStore, StoreUnavailableError } from "../../../src/store/open.js";
import type { LedgerStore, StoreEngine } from "../../../src/store/port.js";
import { openSqliteStore } from "../../../src/store/sqlite/store.js";
import { createPgDatabase } from "../../helpers/pg.js";

/** A clock a test sets to an exact instant, so stored times are exact values. */
export type SettableClock = Clock & { set(iso: string): void; advance(ms: number): void };

/** A clock at `iso` that tests move by hand. */
export function settableClock(iso = "2026-03-02T09:00:00.000Z"): SettableClock {
  let t = Date.parse(iso);
  return {
    now: () => new Date(t),
    set: (at) => {
      t = Date.parse(at);
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/** One engine of the contract suite: `open` gives a new, migrated, empty store. */
export type EngineUnderTest = { name: StoreEngine; open(clock: Clock): Promise<LedgerStore> };

const ENGINES: readonly EngineUnderTest[] = [
  { name: "sqlite", open: async (clock) => openSqliteStore(":memory:", { clock }) },
  // One new database on the run's PostgreSQL server (embedded, or AGENT_LEDGER_TEST_PG_URL) per open.
  { name: "postgres", open: async (clock) => openStore(await createPgDatabase(), { clock }) },
];

let probed: Promise<EngineUnderTest[]> | undefined;

/** The engines this build can open; PostgreSQL joins as soon as openStore opens a postgres:// URL. */
export function enginesUnderTest(): Promise<EngineUnderTest[]> {
  probed ??= (async () => {
    const out: EngineUnderTest[] = [];
    for (const engine of ENGINES) {
      try {
        await (await engine.open(settableClock())).close();
        out.push(engine);
      } catch (e) {
        if (!(e instanceof StoreUnavailableError)) throw e;
        console.warn(`store contract suite: the ${engine.name} engine is not built in this version, so it is not run`);
      }
    }
    return out;
  })();
  return probed;
}

let teams = 0;

/** A fresh team in `store`, so tests sharing one store per file never see each other's rows. */
export async function freshTeam(store: LedgerStore, prefix = "t"): Promise<string> {
  teams += 1;
  return (await store.teams.create(`${prefix}${teams}`)).id;
}

/**
 * A fresh team with the tool read_discharge, `sessions` sessions, and per session `calls` calls answered "1250 cfs",
 * "1251 cfs" ...: 1 + sessions * (1 + calls * 4) chain entries.
 */
export async function teamWithCalls(store: LedgerStore, sessions: number, calls: number): Promise<string> {
  const teamId = await freshTeam(store);
  await store.tools.put(teamId, "read_discharge", { params: { site: {} }, returns: { unit: "cfs" } });
  for (let s = 0; s < sessions; s += 1) {
    const session = await store.sessions.create(teamId, { context: `site ${s}` });
    for (let c = 0; c < calls; c += 1) {
      const call = await store.calls.call(teamId, session.id, "read_discharge", { site: `0737400${s}` });
      await store.calls.result(teamId, session.id, call.call_id, `${1250 + c} cfs`);
    }
  }
  return teamId;
}

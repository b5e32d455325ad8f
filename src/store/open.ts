// The store factory: AGENT_LEDGER_DB (a file path or :memory:, or a postgres:// URL) picks the engine.
import type { UndeclaredTools } from "../guard/verdict.js";
import type { Clock } from "../clock.js";
import { type StoreEngineName, storeEngineOf } from "../config.js";
import type { LedgerStore } from "./port.js";
import { openSqliteStore } from "./sqlite/store.js";

/** How a store is opened besides its location. */
export type OpenStoreOptions = {
  /** Stamps every row the store writes (default: the machine's clock). */
  clock?: Clock;
  /** SQLite only: `full` fsyncs every commit (AGENT_LEDGER_SYNC); PostgreSQL commits durably anyway. */
  sync?: "normal" | "full";
  /** Calls of undeclared tools: accepted unguarded (default) or refused (AGENT_LEDGER_UNDECLARED_TOOLS). */
  undeclaredTools?: UndeclaredTools;
  /** The token key's text (AGENT_LEDGER_TOKEN_KEY); absent, the key file token.key (see token-key.ts). */
  tokenKey?: string;
};

/** The configured engine is not part of this build; the message says what to configure instead. */
export class StoreUnavailableError extends Error {
  readonly code = "store_unavailable";
  constructor(message: string) {
    super(message);
    this.name = "StoreUnavailableError";
  }
}

type Opener = (url: string, options: OpenStoreOptions) => Promise<LedgerStore>;

/** One opener per engine. The PostgreSQL one is loaded only when a postgres:// URL is configured. */
const OPENERS: Record<StoreEngineName, Opener> = {
  sqlite: async (file, options) => openSqliteStore(file, options),
  // Loaded only when a postgres:// URL is configured, so SQLite users never load pg.
  postgres: async (url, options) => (await import("./pg/store.js")).openPgStore(url, options),
};

/** Opens and migrates the store at `url`: a SQLite file path or ":memory:", or a postgres:// (postgresql://) URL. */
export function openStore(url: string, options: OpenStoreOptions = {}): Promise<LedgerStore> {
  return OPENERS[storeEngineOf(url)](url, options);
}

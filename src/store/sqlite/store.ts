// The LedgerStore over SQLite. Its repositories (repos.ts) load on first use (lazy-repos.ts): opening and migrating a
// file costs the schema alone, so `migrate`, `backup` and the CLI's --help start fast; the first query loads the rest.
import type { UndeclaredTools } from "../../guard/verdict.js";
import { systemClock, type Clock } from "../../clock.js";
import { checkpointInBackground, openDb, type LedgerDb } from "./db.js";
import type { LedgerStore, SeedSummary, StoreInfo } from "../port.js";
import { sqliteBenchRuns } from "./bench-runs.js";
import type { RevisionsRepo } from "../port.js";
import { sqliteRevisedSources } from "./revised-sources.js";
import { sqliteWatch } from "./watch.js";
import { RevisionStore } from "./revisions.js";
import { sqliteUpstreams } from "./upstreams.js";
import type { SqliteRepos } from "./repos.js";
import type { DashboardRepo } from "../dashboard.js";
import { StoreRepos } from "../common/store-repos.js";
import { lazyDashboard, lazyRepos, type LoadRepos } from "./lazy-repos.js";
import type { Checkpointer } from "./checkpointer.js";

/** How a SQLite store is built. */
export type SqliteStoreOptions = {
  /** Stamps every row this store writes (default: the machine's clock). */
  clock?: Clock;
  /** True when closing the store closes the database (a store opened from a file); false for a caller's handle. */
  ownsDb?: boolean;
  /** Calls of undeclared tools: accepted unguarded (default) or refused (AGENT_LEDGER_UNDECLARED_TOOLS). */
  undeclaredTools?: UndeclaredTools;
};

/** The revisions repository over the SQLite handle (the same RevisionStore the call path detects revisions with). */
function sqliteRevisions(db: LedgerDb, clock: Clock): RevisionsRepo {
  const r = new RevisionStore(db.sqlite);
  let revisedSources: ReturnType<typeof sqliteRevisedSources> | undefined;
  return {
    declare: async (teamId, crossingId, input) => r.declare(teamId, crossingId, input, clock.now()),
    get: async (teamId, id) => r.get(teamId, id),
    list: async (teamId, filter) => r.list(teamId, filter),
    claimsOf: async (teamId, crossingId, page) => r.claimsOf(teamId, crossingId, page),
    revisedSources: (teamId, match, limit) => {
      revisedSources ??= sqliteRevisedSources(db.sqlite);
      return revisedSources(teamId, match, limit);
    },
  };
}

/** The SQLite LedgerStore. `db` is the open handle, for the SQLite-only commands (backup, restore) and for tests. */
export class SqliteStore extends StoreRepos implements LedgerStore {
  readonly engine = "sqlite" as const;
  readonly where: string;
  readonly applied: number;
  readonly dashboard: DashboardRepo;
  private readonly ownsDb: boolean;
  private readonly loadRepos: LoadRepos;

  constructor(
    readonly db: LedgerDb,
    options: SqliteStoreOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    let loaded: SqliteRepos | undefined;
    let loading: Promise<SqliteRepos> | undefined;
    const load: LoadRepos = () =>
      loaded ??
      (loading ??= import("./repos.js").then((m) => {
        loaded = m.sqliteRepos(db, clock, options.undeclaredTools ?? "accept");
        return loaded;
      }));
    super({
      ...lazyRepos(load),
      revisions: sqliteRevisions(db, clock),
      benchRuns: sqliteBenchRuns(db.sqlite),
      upstreams: sqliteUpstreams(db.sqlite, clock),
      watch: sqliteWatch(db.sqlite),
    });
    this.ownsDb = options.ownsDb ?? false;
    this.where = db.file;
    this.applied = db.applied;
    this.dashboard = lazyDashboard(db);
    this.loadRepos = load;
  }

  async info(): Promise<StoreInfo> {
    const row = this.db.sqlite
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
      .get() as { n: number };
    const migrations =
      row.n === 0
        ? 0
        : (this.db.sqlite.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    return { engine: "sqlite", where: this.where, appliedNow: this.applied, migrations };
  }

  async seed(): Promise<SeedSummary> {
    return (await this.loadRepos()).seed();
  }

  private checkpointer: Checkpointer | null = null;

  /** True from `startBackground` until `close`: a serving process, whose long work goes off its event loop. */
  get serving(): boolean {
    return this.checkpointer !== null;
  }

  /**
   * Checkpoints the WAL on a worker thread from now until `close` (src/store/sqlite/checkpointer.ts), and verifies
   * the chain on the verify worker (src/store/sqlite/verify-pool.ts).
   */
  startBackground(): void {
    this.checkpointer ??= checkpointInBackground(this.db);
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    this.checkpointer = null;
    if (this.ownsDb) this.db.close();
  }
}

/** A store over a database the caller opened (and closes). */
export function sqliteStore(db: LedgerDb, options: Omit<SqliteStoreOptions, "ownsDb"> = {}): SqliteStore {
  return new SqliteStore(db, { ...options, ownsDb: false });
}

/** Opens (creating and migrating when needed) the SQLite file, or ":memory:"; closing the store closes the file. */
export function openSqliteStore(
  file: string,
  options: Omit<SqliteStoreOptions, "ownsDb"> & { sync?: "normal" | "full"; tokenKey?: string } = {},
): SqliteStore {
  return new SqliteStore(openDb(file, { sync: options.sync, tokenKey: options.tokenKey }), {
    clock: options.clock,
    ownsDb: true,
    undeclaredTools: options.undeclaredTools,
  });
}

/**
 * The SQLite handle under a store, for code not yet behind the port (the dashboard, the harness routes); any other
 * engine is refused with what to configure instead.
 */
export function sqliteHandleOf(store: LedgerStore, what: string): LedgerDb {
  if (store instanceof SqliteStore) return store.db;
  throw new Error(
    `${what} needs a SQLite store in this version, but AGENT_LEDGER_DB names a ${store.engine} database; ` +
      "set AGENT_LEDGER_DB to a SQLite file path",
  );
}

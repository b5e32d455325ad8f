// The LedgerStore over SQLite. Its repositories (repos.ts) load on first use: opening and migrating a file costs the
// schema alone, so `migrate`, `backup` and the CLI's --help start fast; the first query loads the rest once.
import type { UndeclaredTools } from "../../guard/verdict.js";
import { systemClock, type Clock } from "../../clock.js";
import { openDb, type LedgerDb } from "./db.js";
import type { LedgerStore, SeedSummary, StoreInfo } from "../port.js";
import { sqliteBenchRuns } from "./bench-runs.js";
import type { RevisionsRepo, WatchRepo } from "../port.js";
import { sqliteRevisedSources } from "./revised-sources.js";
import { sqliteWatch } from "./watch.js";
import { RevisionStore } from "./revisions.js";
import { sqliteUpstreams } from "./upstreams.js";
import type { SqliteRepos } from "./repos.js";
import type { BenchRunsRepo, UpstreamsRepo } from "../port.js";
import type { DashboardRepo } from "../dashboard.js";

/** How a SQLite store is built. */
export type SqliteStoreOptions = {
  /** Stamps every row this store writes (default: the machine's clock). */
  clock?: Clock;
  /** True when closing the store closes the database (a store opened from a file); false for a caller's handle. */
  ownsDb?: boolean;
  /** Calls of undeclared tools: accepted unguarded (default) or refused (AGENT_LEDGER_UNDECLARED_TOOLS). */
  undeclaredTools?: UndeclaredTools;
};

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * A repository whose methods load the implementation on first call. Every repository method is async, so a call
 * that waits for the load answers the same promise it would have answered anyway; once loaded, calls go straight
 * through. `then` is not a method, so awaiting the repository object itself never waits on a load.
 */
function lazyRepo<K extends keyof SqliteRepos>(
  repos: () => SqliteRepos | Promise<SqliteRepos>,
  key: K,
): SqliteRepos[K] {
  return new Proxy({} as SqliteRepos[K], {
    get(_target, method) {
      if (typeof method !== "string" || method === "then") return undefined;
      return (...args: unknown[]) => {
        const r = repos();
        const call = (loaded: SqliteRepos) => (loaded[key] as unknown as Record<string, AnyMethod>)[method]!(...args);
        return r instanceof Promise ? r.then(call) : call(r);
      };
    },
  });
}

/** The dashboard repository, loaded (with the page queries it holds) on its first call, like the other repositories. */
function lazyDashboard(db: LedgerDb): DashboardRepo {
  let loaded: Promise<DashboardRepo> | undefined;
  return new Proxy({} as DashboardRepo, {
    get(_target, method) {
      if (typeof method !== "string" || method === "then") return undefined;
      return (...args: unknown[]) => {
        loaded ??= import("./dashboard-repo.js").then((m) => m.sqliteDashboard(db));
        return loaded.then((r) => (r as unknown as Record<string, AnyMethod>)[method]!(...args));
      };
    },
  });
}

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
export class SqliteStore implements LedgerStore {
  readonly engine = "sqlite" as const;
  readonly where: string;
  readonly applied: number;
  readonly teams;
  readonly datums;
  readonly tools;
  readonly sessions;
  readonly calls;
  readonly crossings;
  readonly audits;
  readonly manifests;
  readonly packs;
  readonly claims;
  readonly evaluations;
  readonly dashboard: DashboardRepo;
  readonly revisions: RevisionsRepo;
  readonly benchRuns: BenchRunsRepo;
  readonly upstreams: UpstreamsRepo;
  readonly watch: WatchRepo;
  private readonly ownsDb: boolean;
  private loaded: SqliteRepos | undefined;
  private loading: Promise<SqliteRepos> | undefined;
  private readonly seedRepo: () => SqliteRepos | Promise<SqliteRepos>;

  constructor(
    readonly db: LedgerDb,
    options: SqliteStoreOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    this.ownsDb = options.ownsDb ?? false;
    this.where = db.file;
    this.applied = db.applied;
    const repos = (): SqliteRepos | Promise<SqliteRepos> => {
      if (this.loaded) return this.loaded;
      this.loading ??= import("./repos.js").then((m) => {
        this.loaded = m.sqliteRepos(db, clock, options.undeclaredTools ?? "accept");
        return this.loaded;
      });
      return this.loading;
    };
    this.teams = lazyRepo(repos, "teams");
    this.datums = lazyRepo(repos, "datums");
    this.tools = lazyRepo(repos, "tools");
    this.sessions = lazyRepo(repos, "sessions");
    this.calls = lazyRepo(repos, "calls");
    this.crossings = lazyRepo(repos, "crossings");
    this.audits = lazyRepo(repos, "audits");
    this.manifests = lazyRepo(repos, "manifests");
    this.packs = lazyRepo(repos, "packs");
    this.claims = lazyRepo(repos, "claims");
    this.evaluations = lazyRepo(repos, "evaluations");
    this.dashboard = lazyDashboard(db);
    this.revisions = sqliteRevisions(db, clock);
    this.benchRuns = sqliteBenchRuns(db.sqlite);
    this.upstreams = sqliteUpstreams(db.sqlite, clock);
    this.watch = sqliteWatch(db.sqlite);
    this.seedRepo = repos;
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
    return (await this.seedRepo()).seed();
  }

  async close(): Promise<void> {
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

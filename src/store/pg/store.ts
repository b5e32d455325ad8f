// The LedgerStore over PostgreSQL, the dashboard's repository included: drizzle's pg dialect and raw statements on one
// `pg` Pool. Any number of processes may serve one database: every decision locks what it decides over (a session row, an advisory lock per team and
// task, per team registry or ledger), and per-process caches check the team's counters in team_versions.
import type { UndeclaredTools } from "../../guard/verdict.js";
import { fixedClock, systemClock, type Clock } from "../../clock.js";
import { newId } from "../common/ids.js";
import type { LedgerStore, StoreInfo } from "../port.js";
import { SessionCache } from "./call-cache.js";
import { callGroups, storeCall, storeResult } from "./calls.js";
import { PgBenchRuns } from "./bench-runs.js";
import { pgClaims } from "./claims.js";
import { pgDashboard } from "./dashboard.js";
import { pgDatums } from "./datums.js";
import { pgEvaluations } from "./evaluations.js";
import { openPg, type PgLedgerDb } from "./open.js";
import { PgRegistryCache, PgToolCache } from "./registry.js";
import { pgRevisions } from "./revisions.js";
import { pgWatch } from "./watch.js";
import { pgAudits, pgCalls, pgCrossings, pgManifests, pgPacks, pgSessions, type SessionDeps } from "./sessions.js";
import { pgTeams } from "./teams.js";
import { pgTools } from "./tools.js";
import { pgUpstreams } from "./upstreams.js";
import { inTransaction, lockKey, queryOn } from "./tx.js";
import { pgAppend } from "./chain-append.js";
import { bindTokenKey, resolveTokenKey, tokenKeyFor } from "../common/token-key.js";
import type { SeedSummary } from "../model.js";
import { EXAMPLE_TOOLS } from "../common/example-tools.js";
import { StoreRepos } from "../common/store-repos.js";

/** How a PostgreSQL store is opened. */
export type PgStoreOptions = {
  clock?: Clock;
  /** Connections in the pool (default: the URL's `?pool=N`, else 25). */
  poolSize?: number;
  /** Calls of undeclared tools: accepted unguarded (default) or refused (AGENT_LEDGER_UNDECLARED_TOOLS). */
  undeclaredTools?: UndeclaredTools;
  /** The token key's text (AGENT_LEDGER_TOKEN_KEY); absent, the key file ./data/token.key (token-key.ts). */
  tokenKey?: string;
};

const EXAMPLE_AT = "2026-03-02T09:00:00Z";

/** The PostgreSQL LedgerStore. `db` is the open pool, for the copy command and tests. */
export class PgStore extends StoreRepos implements LedgerStore {
  readonly engine = "postgres" as const;
  readonly where: string;
  readonly applied: number;
  readonly dashboard;
  private readonly deps: SessionDeps;

  constructor(
    readonly db: PgLedgerDb,
    options: PgStoreOptions = {},
  ) {
    const clock = options.clock ?? systemClock;
    const { pool } = db;
    const registries = new PgRegistryCache();
    const toolCache = new PgToolCache();
    bindTokenKey(db.db, () => resolveTokenKey(db.url, options.tokenKey));
    const tools = pgTools(pool, registries, toolCache);
    const deps: SessionDeps = {
      pool,
      clock,
      registries,
      tools: toolCache,
      sessionCache: new SessionCache(),
      toolsRepo: tools,
      groups: callGroups(queryOn(pool), queryOn(db.groupPool), { pool, groupPool: db.groupPool }),
      undeclared: options.undeclaredTools ?? "accept",
    };
    super({
      teams: pgTeams(db.db, clock, () => tokenKeyFor(db.db)),
      datums: pgDatums(pool, registries),
      tools,
      sessions: pgSessions(deps),
      calls: pgCalls(deps),
      crossings: pgCrossings(deps),
      audits: pgAudits(deps),
      manifests: pgManifests(deps),
      packs: pgPacks(deps),
      claims: pgClaims(pool, clock),
      evaluations: pgEvaluations(pool, clock, registries),
      benchRuns: new PgBenchRuns(pool),
      revisions: pgRevisions(pool, clock),
      upstreams: pgUpstreams(pool, clock),
      watch: pgWatch(pool),
    });
    this.where = db.url;
    this.applied = db.applied;
    this.deps = deps;
    this.dashboard = pgDashboard(pool, this, () => tokenKeyFor(db.db));
  }

  async info(): Promise<StoreInfo> {
    const [r] = await queryOn(this.db.pool)<{ n: number }>("SELECT count(*) AS n FROM drizzle.__drizzle_migrations");
    return { engine: "postgres", where: this.where, appliedNow: this.applied, migrations: r?.n ?? 0 };
  }

  /** The default team, the example tools and the example session; instances seeding at once create them once. */
  async seed(): Promise<SeedSummary> {
    const teamId = await this.teams.ensureDefault();
    for (const [name, decl] of Object.entries(EXAMPLE_TOOLS)) {
      if (!(await this.tools.get(teamId, name))) await this.tools.put(teamId, name, decl);
    }
    const clock = fixedClock(EXAMPLE_AT);
    await inTransaction(this.db.pool, async (q) => {
      await q("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("seed", teamId)]);
      const seeded = await q(
        "SELECT 1 FROM session_labels WHERE team_id = $1 AND key = 'example' AND value = 'carry-over'",
        [teamId],
      );
      if (seeded.length > 0) return;
      const id = newId(Date.parse(EXAMPLE_AT));
      await q(
        "INSERT INTO sessions (id, team_id, context, enforcement, labels, created_at) VALUES ($1, $2, $3, 'enforce', $4, $5)",
        [
          id,
          teamId,
          "What is the runoff depth at site 07374000?",
          JSON.stringify({ example: "carry-over" }),
          EXAMPLE_AT.replace("Z", ".000Z"),
        ],
      );
      await q("INSERT INTO session_labels (session_id, team_id, key, value) VALUES ($1, $2, 'example', 'carry-over')", [
        id,
        teamId,
      ]);
      await pgAppend(q, teamId, [["sessions", id]]);
      const call = (tool: string, args: Record<string, unknown>) =>
        storeCall(q, this.deps, clock, teamId, id, tool, args, []);
      const result = (callId: string, value: unknown) =>
        storeResult(q, this.deps, clock, teamId, id, callId, value, []);
      const d = await call("read_discharge", { site: "07374000" });
      await result(d.call_id, 1250);
      const a = await call("read_drainage_area", { site: "07374000" });
      await result(a.call_id, 29000);
      await call("runoff_depth", { discharge: 1250, area: 29000 });
      const ok = await call("runoff_depth", { discharge: "1250 cfs", area: 29000 });
      await result(ok.call_id, 0.10545584248055172);
    });
    return { teamId };
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

/** Opens (migrating under the advisory lock) the PostgreSQL database at `url`. */
export async function openPgStore(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
  const db = await openPg(url, options.poolSize === undefined ? {} : { poolSize: options.poolSize });
  return new PgStore(db, options);
}

// The SQLite repositories that load on first call. Opening and migrating a file costs the schema alone, so `migrate`,
// `backup` and the CLI's --help never load repos.ts (the guard, the gates, mathjs) nor the dashboard's page queries.
// Every repository method is async, so a call that waits for the load answers the same promise it would have answered
// anyway; once loaded, calls go straight through. Each method is written out so that the port's types check it.
import type { DashboardRepo } from "../dashboard.js";
import type { LedgerDb } from "./db.js";
import type { SqliteRepos } from "./repos.js";

/** Loads the repositories once; the loaded value itself once it is there. */
export type LoadRepos = () => SqliteRepos | Promise<SqliteRepos>;

/** The aggregates of SqliteRepos (all but the seed), each loading repos.ts on its first call. */
export function lazyRepos(load: LoadRepos): Omit<SqliteRepos, "seed"> {
  const on = <T>(f: (r: SqliteRepos) => Promise<T>): Promise<T> => {
    const r = load();
    return r instanceof Promise ? r.then(f) : f(r);
  };
  return {
    teams: {
      create: (...a) => on((r) => r.teams.create(...a)),
      get: (...a) => on((r) => r.teams.get(...a)),
      byName: (...a) => on((r) => r.teams.byName(...a)),
      ensureDefault: (...a) => on((r) => r.teams.ensureDefault(...a)),
      createToken: (...a) => on((r) => r.teams.createToken(...a)),
      revokeToken: (...a) => on((r) => r.teams.revokeToken(...a)),
      authenticate: (...a) => on((r) => r.teams.authenticate(...a)),
      ensureAdminToken: (...a) => on((r) => r.teams.ensureAdminToken(...a)),
      rotateAdminToken: (...a) => on((r) => r.teams.rotateAdminToken(...a)),
    },
    datums: {
      registry: (...a) => on((r) => r.datums.registry(...a)),
      list: (...a) => on((r) => r.datums.list(...a)),
      offsets: (...a) => on((r) => r.datums.offsets(...a)),
      add: (...a) => on((r) => r.datums.add(...a)),
      addOffset: (...a) => on((r) => r.datums.addOffset(...a)),
      ensure: (...a) => on((r) => r.datums.ensure(...a)),
    },
    tools: {
      put: (...a) => on((r) => r.tools.put(...a)),
      get: (...a) => on((r) => r.tools.get(...a)),
      list: (...a) => on((r) => r.tools.list(...a)),
    },
    sessions: {
      create: (...a) => on((r) => r.sessions.create(...a)),
      get: (...a) => on((r) => r.sessions.get(...a)),
      list: (...a) => on((r) => r.sessions.list(...a)),
      teamOf: (...a) => on((r) => r.sessions.teamOf(...a)),
      report: (...a) => on((r) => r.sessions.report(...a)),
    },
    calls: {
      call: (...a) => on((r) => r.calls.call(...a)),
      result: (...a) => on((r) => r.calls.result(...a)),
      list: (...a) => on((r) => r.calls.list(...a)),
    },
    crossings: {
      ofSession: (...a) => on((r) => r.crossings.ofSession(...a)),
      search: (...a) => on((r) => r.crossings.search(...a)),
    },
    audits: {
      audit: (...a) => on((r) => r.audits.audit(...a)),
      list: (...a) => on((r) => r.audits.list(...a)),
    },
    manifests: {
      load: (...a) => on((r) => r.manifests.load(...a)),
    },
    packs: {
      record: (...a) => on((r) => r.packs.record(...a)),
      call: (...a) => on((r) => r.packs.call(...a)),
    },
    claims: {
      create: (...a) => on((r) => r.claims.create(...a)),
      demote: (...a) => on((r) => r.claims.demote(...a)),
      supersede: (...a) => on((r) => r.claims.supersede(...a)),
      get: (...a) => on((r) => r.claims.get(...a)),
      find: (...a) => on((r) => r.claims.find(...a)),
      events: (...a) => on((r) => r.claims.events(...a)),
      list: (...a) => on((r) => r.claims.list(...a)),
      importText: (...a) => on((r) => r.claims.importText(...a)),
      exportText: (...a) => on((r) => r.claims.exportText(...a)),
    },
    evaluations: {
      evaluate: (...a) => on((r) => r.evaluations.evaluate(...a)),
      get: (...a) => on((r) => r.evaluations.get(...a)),
      list: (...a) => on((r) => r.evaluations.list(...a)),
    },
  };
}

/** The dashboard repository, loaded (with the page queries it holds) on its first call. */
export function lazyDashboard(db: LedgerDb): DashboardRepo {
  let loaded: Promise<DashboardRepo> | undefined;
  const on = <T>(f: (r: DashboardRepo) => Promise<T>): Promise<T> => {
    loaded ??= import("./dashboard-repo.js").then((m) => m.sqliteDashboard(db));
    return loaded.then(f);
  };
  return {
    openSession: (...a) => on((r) => r.openSession(...a)),
    findSession: (...a) => on((r) => r.findSession(...a)),
    endSession: (...a) => on((r) => r.endSession(...a)),
    overview: (...a) => on((r) => r.overview(...a)),
    sessions: (...a) => on((r) => r.sessions(...a)),
    session: (...a) => on((r) => r.session(...a)),
    codeCounts: (...a) => on((r) => r.codeCounts(...a)),
    crossings: (...a) => on((r) => r.crossings(...a)),
    evaluations: (...a) => on((r) => r.evaluations(...a)),
    evaluation: (...a) => on((r) => r.evaluation(...a)),
    claims: (...a) => on((r) => r.claims(...a)),
    claim: (...a) => on((r) => r.claim(...a)),
    revisions: (...a) => on((r) => r.revisions(...a)),
  };
}

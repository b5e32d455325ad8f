// The repositories every LedgerStore holds, declared once: each engine's store class extends StoreRepos and hands its
// repositories in whole. The dashboard's repository is left to each class (PostgreSQL builds it over the finished store).
import type * as port from "../port.js";

/** The repositories of a store as its fields (the port's LedgerStore extends this), set from what the engine built. */
export abstract class StoreRepos {
  readonly teams: port.TeamsRepo;
  readonly datums: port.DatumsRepo;
  readonly tools: port.ToolsRepo;
  readonly sessions: port.SessionsRepo;
  readonly calls: port.CallsRepo;
  readonly crossings: port.CrossingsRepo;
  readonly audits: port.AuditsRepo;
  readonly manifests: port.ManifestsRepo;
  readonly packs: port.PacksRepo;
  readonly claims: port.ClaimsRepo;
  readonly evaluations: port.EvaluationsRepo;
  /** Revisions and crossing-to-claim links. */
  readonly revisions: port.RevisionsRepo;
  /** The revision watch's reads and state. */
  readonly watch: port.WatchRepo;
  /** The evaluation harness's graded runs (table bench_runs). */
  readonly benchRuns: port.BenchRunsRepo;
  /** The gateway's pinned upstream tool definitions and their drifts. */
  readonly upstreams: port.UpstreamsRepo;

  protected constructor(r: Repos) {
    this.teams = r.teams;
    this.datums = r.datums;
    this.tools = r.tools;
    this.sessions = r.sessions;
    this.calls = r.calls;
    this.crossings = r.crossings;
    this.audits = r.audits;
    this.manifests = r.manifests;
    this.packs = r.packs;
    this.claims = r.claims;
    this.evaluations = r.evaluations;
    this.revisions = r.revisions;
    this.watch = r.watch;
    this.benchRuns = r.benchRuns;
    this.upstreams = r.upstreams;
  }
}

/** The repositories an engine builds for its store: all of the port's but the dashboard's. */
export type Repos = Pick<StoreRepos, keyof StoreRepos>;

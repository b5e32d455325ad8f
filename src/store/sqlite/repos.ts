// The repositories of the SQLite store: today's synchronous code behind promises. Loaded on first use (store.ts),
// so a command that only migrates never loads the guard, the gates or mathjs.
import type { UndeclaredTools } from "../../guard/verdict.js";
import type { Clock } from "../../clock.js";
import type { LedgerDb } from "./db.js";
import { listDatums, listOffsets } from "./datums.js";
import { ConflictError } from "../common/errors.js";
import type {
  AuditsRepo,
  CallsRepo,
  ClaimsRepo,
  CrossingsRepo,
  DatumsRepo,
  EvaluationsRepo,
  ManifestsRepo,
  PacksRepo,
  SeedSummary,
  SessionsRepo,
  TeamsRepo,
  ToolsRepo,
} from "../port.js";
import { seedDatabase } from "./seed.js";
import {
  authenticate,
  checkTokenKey,
  createTeam,
  createToken,
  ensureAdminToken,
  ensureDefaultTeam,
  findTeam,
  findTeamByName,
  revokeToken,
  rotateAdminToken,
} from "./teams.js";
import { partsOf, type SqliteParts } from "./parts.js";
import {
  sqliteAudits,
  sqliteCalls,
  sqliteCrossings,
  sqliteManifests,
  sqlitePacks,
  sqliteSessions,
} from "./session-repo.js";

/** Every aggregate of the SQLite store, and its seed. */
export type SqliteRepos = {
  teams: TeamsRepo;
  datums: DatumsRepo;
  tools: ToolsRepo;
  sessions: SessionsRepo;
  calls: CallsRepo;
  crossings: CrossingsRepo;
  audits: AuditsRepo;
  manifests: ManifestsRepo;
  packs: PacksRepo;
  claims: ClaimsRepo;
  evaluations: EvaluationsRepo;
  seed(): Promise<SeedSummary>;
};

function teamsRepo({ db }: SqliteParts, clock: Clock): TeamsRepo {
  const d = db.db;
  return {
    create: async (name) => createTeam(d, name),
    get: async (id) => findTeam(d, id),
    byName: async (name) => findTeamByName(d, name),
    ensureDefault: async () => ensureDefaultTeam(d),
    createToken: async (teamId, name, options) => createToken(d, teamId, name, options),
    revokeToken: async (tokenId) => revokeToken(d, tokenId, clock.now()),
    authenticate: async (token) => {
      const principal = authenticate(d, token);
      if (!principal) checkTokenKey(d);
      return principal;
    },
    ensureAdminToken: async (envToken) => ensureAdminToken(d, envToken),
    rotateAdminToken: async () => rotateAdminToken(d, clock.now()),
  };
}

function datumsRepo({ db, ledger }: SqliteParts): DatumsRepo {
  return {
    registry: async (teamId) => ledger.datums(teamId),
    list: async (teamId) => listDatums(db.db, teamId),
    offsets: async (teamId) => listOffsets(db.db, teamId),
    add: async (teamId, name, description = "") => {
      if (ledger.datums(teamId).has(name)) throw new ConflictError(`a datum named '${name}' is already registered`);
      return ledger.registry.addDatum(teamId, name, description);
    },
    addOffset: async (teamId, offset) => ledger.registry.addOffset(teamId, offset),
    ensure: async (teamId, datums, offsets) => ledger.registry.ensure(teamId, datums, offsets),
  };
}

function toolsRepo({ ledger }: SqliteParts): ToolsRepo {
  return {
    put: async (teamId, name, input) => {
      const datums = ledger.datums(teamId);
      const { row, created } = ledger.tools.put(teamId, name, input, datums);
      return { row, declaration: ledger.tools.compiledOf(teamId, row, datums), created };
    },
    get: async (teamId, name, version) => {
      const row =
        version === undefined ? ledger.tools.latest(teamId, name) : ledger.tools.version(teamId, name, version);
      return row ? { row, declaration: ledger.tools.compiledOf(teamId, row, ledger.datums(teamId)) } : null;
    },
    list: async (teamId, { after, limit }) => {
      const datums = ledger.datums(teamId);
      return ledger.tools
        .list(teamId, after ?? "")
        .slice(0, limit)
        .map((row) => ({ row, declaration: ledger.tools.compiledOf(teamId, row, datums) }));
    },
  };
}

function claimsRepo({ claims }: SqliteParts, clock: Clock): ClaimsRepo {
  return {
    create: async (teamId, input) => claims.create(teamId, input, clock.now()),
    demote: async (teamId, id, demotion) => claims.demote(teamId, id, demotion, clock.now()),
    supersede: async (teamId, id, byId) => claims.supersede(teamId, id, byId, clock.now()),
    get: async (teamId, id) => claims.get(teamId, id),
    find: async (teamId, id) => claims.find(teamId, id),
    events: async (teamId, id) => claims.events(teamId, id),
    list: async (teamId, filter) => claims.list(teamId, filter),
    importText: async (teamId, text) => claims.importText(teamId, text, clock.now()),
    exportText: async (teamId) => claims.exportText(teamId),
  };
}

function evaluationsRepo({ runs, ledger }: SqliteParts, clock: Clock): EvaluationsRepo {
  return {
    // A large evaluation is decided in a worker and written here only if the history it read is unchanged; a small one
    // reads the claim history inside the evaluation's IMMEDIATE transaction. Either way the snapshot and the write agree.
    evaluate: async (teamId, input, options = {}) =>
      runs.evaluateOffLoop(teamId, input, { ...options, clock, datums: ledger.datums(teamId).names() }),
    get: async (teamId, id) => runs.get(teamId, id),
    list: async (teamId, filter) => runs.list(teamId, filter),
  };
}

/** The repositories over one open database, stamping rows with `clock`. */
export function sqliteRepos(db: LedgerDb, clock: Clock, undeclared: UndeclaredTools = "accept"): SqliteRepos {
  const parts = partsOf(db);
  return {
    teams: teamsRepo(parts, clock),
    datums: datumsRepo(parts),
    tools: toolsRepo(parts),
    sessions: sqliteSessions(parts, clock),
    calls: sqliteCalls(parts, clock, undeclared),
    crossings: sqliteCrossings(parts),
    audits: sqliteAudits(parts, clock),
    manifests: sqliteManifests(parts),
    packs: sqlitePacks(parts, clock),
    claims: claimsRepo(parts, clock),
    evaluations: evaluationsRepo(parts, clock),
    seed: async () => seedDatabase(db),
  };
}

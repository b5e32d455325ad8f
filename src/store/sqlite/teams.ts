import { and, eq, inArray, isNull, like, notInArray, notLike, sql } from "drizzle-orm";
import type { Db } from "./db.js";
import { ConflictError, NotFoundError, isUniqueViolation } from "../common/errors.js";
import { newId } from "../common/ids.js";
import { teams, tokens } from "./schema.js";
import {
  type TokenKey,
  TokenKeyMismatchError,
  candidateDigests,
  keyedDigest,
  otherKeyPattern,
  tokenKeyFor,
} from "../common/token-key.js";
import type { IssuedToken, Principal, Team } from "../model.js";
import { DEFAULT_TEAM, generateToken, sameDigest } from "../common/tokens.js";

/** Creates a team; a name in use is a ConflictError. */
export function createTeam(db: Db, name: string): Team {
  try {
    const [row] = db.insert(teams).values({ id: newId(), name }).returning().all();
    return row!;
  } catch (e) {
    if (isUniqueViolation(e)) throw new ConflictError(`a team named "${name}" exists`, { cause: e });
    throw e;
  }
}

/** The team with this id, or null. */
export function findTeam(db: Db, id: string): Team | null {
  return db.select().from(teams).where(eq(teams.id, id)).get() ?? null;
}

/** The team with this name, or null. */
export function findTeamByName(db: Db, name: string): Team | null {
  return db.select().from(teams).where(eq(teams.name, name)).get() ?? null;
}

/** The id of the team `default`, creating it on first use. */
export function ensureDefaultTeam(db: Db): string {
  // Read first: a write per call would take the write lock for nothing once the team exists (every library session).
  const found = findTeamByName(db, DEFAULT_TEAM);
  if (found) return found.id;
  db.insert(teams).values({ id: newId(), name: DEFAULT_TEAM }).onConflictDoNothing().run();
  return findTeamByName(db, DEFAULT_TEAM)!.id;
}

/** Issues a token for a team (NotFoundError when the team does not exist). */
export function createToken(
  db: Db,
  teamId: string,
  name = "",
  options: { isAdmin?: boolean; token?: string } = {},
): IssuedToken {
  if (!findTeam(db, teamId)) throw new NotFoundError(`no team has id "${teamId}"`);
  const token = options.token ?? generateToken();
  const isAdmin = options.isAdmin ?? false;
  const id = newId();
  db.insert(tokens)
    .values({ id, teamId, name, hash: keyedDigest(tokenKeyFor(db), token), isAdmin })
    .run();
  return { id, teamId, name, token, isAdmin };
}

/** Revokes a token by id; revoking twice is harmless, an unknown id is a NotFoundError. */
export function revokeToken(db: Db, tokenId: string, at: Date = new Date()): void {
  const row = db.select({ id: tokens.id }).from(tokens).where(eq(tokens.id, tokenId)).get();
  if (!row) throw new NotFoundError(`no token has id "${tokenId}"`);
  db.update(tokens)
    .set({ revokedAt: at.toISOString() })
    .where(and(eq(tokens.id, tokenId), isNull(tokens.revokedAt)))
    .run();
}

const lookups = new WeakMap<Db, ReturnType<typeof prepareLookup>>();

function prepareLookup(db: Db) {
  return db
    .select({ id: tokens.id, teamId: tokens.teamId, hash: tokens.hash, isAdmin: tokens.isAdmin })
    .from(tokens)
    .where(and(inArray(tokens.hash, [sql.placeholder("keyed"), sql.placeholder("bare")]), isNull(tokens.revokedAt)))
    .prepare();
}

/**
 * The principal a bearer token stands for, or null when it is unknown or revoked. One indexed lookup finds the row
 * under either digest; a row still under the bare SHA-256 is re-stored keyed here, on its first successful use.
 */
export function authenticate(db: Db, token: string): Principal | null {
  if (token.length === 0 || token.length > 512) return null;
  let lookup = lookups.get(db);
  if (!lookup) lookups.set(db, (lookup = prepareLookup(db)));
  const { keyed, bare } = candidateDigests(tokenKeyFor(db), token);
  const row = lookup.get({ keyed, bare });
  if (!row) return null;
  // The index finds the row; the constant-time compare is the actual check.
  const isKeyed = sameDigest(row.hash, keyed);
  if (!isKeyed && !sameDigest(row.hash, bare)) return null;
  if (!isKeyed)
    db.update(tokens)
      .set({ hash: keyed })
      .where(and(eq(tokens.id, row.id), eq(tokens.hash, bare)))
      .run();
  return { teamId: row.teamId, tokenId: row.id, isAdmin: row.isAdmin };
}

const foreignKeyed = new WeakMap<Db, boolean>();

/**
 * Throws TokenKeyMismatchError when live tokens were stored with another key than this handle's (a database copied
 * from another machine); checked once per handle, on the first unknown token.
 */
export function checkTokenKey(db: Db): void {
  let found = foreignKeyed.get(db);
  const key = tokenKeyFor(db);
  if (found === undefined) {
    const p = otherKeyPattern(key);
    found = !!db
      .select({ id: tokens.id })
      .from(tokens)
      .where(and(isNull(tokens.revokedAt), like(tokens.hash, p.keyed), notLike(tokens.hash, p.mine)))
      .limit(1)
      .get();
    foreignKeyed.set(db, found);
  }
  if (found) throw new TokenKeyMismatchError(key);
}

// A transaction that reads before it writes takes the write lock first, so a second process starting on the same file
// waits for it (busy_timeout) instead of failing at its first write with SQLITE_BUSY.
const IMMEDIATE = { behavior: "immediate" } as const;

/**
 * Makes sure an admin token exists. With `envToken` that token becomes the only live admin token
 * (the environment is authoritative); without it, one is generated when none is live and returned
 * as `token` so the caller prints it once.
 */
export function ensureAdminToken(db: Db, envToken?: string): { token?: string } {
  const teamId = ensureDefaultTeam(db);
  const key: TokenKey = tokenKeyFor(db);
  return db.transaction((tx) => {
    if (envToken !== undefined) {
      const { keyed: hash, bare } = candidateDigests(key, envToken);
      tx.update(tokens)
        .set({ revokedAt: new Date().toISOString() })
        .where(and(eq(tokens.isAdmin, true), isNull(tokens.revokedAt), notInArray(tokens.hash, [hash, bare])))
        .run();
      const existing = tx
        .select({ id: tokens.id, isAdmin: tokens.isAdmin })
        .from(tokens)
        .where(inArray(tokens.hash, [hash, bare]))
        .get();
      if (existing && !existing.isAdmin) {
        throw new ConflictError("AGENT_LEDGER_ADMIN_TOKEN equals a team token: choose a different admin token");
      }
      // Re-stored keyed: the env token of an older database leaves no bare digest behind.
      if (existing) tx.update(tokens).set({ revokedAt: null, hash }).where(eq(tokens.id, existing.id)).run();
      else
        tx.insert(tokens)
          .values({ id: newId(), teamId, name: "admin (AGENT_LEDGER_ADMIN_TOKEN)", hash, isAdmin: true })
          .run();
      return {};
    }
    const live = tx
      .select({ id: tokens.id })
      .from(tokens)
      .where(and(eq(tokens.isAdmin, true), isNull(tokens.revokedAt)))
      .get();
    if (live) return {};
    const token = generateToken();
    tx.insert(tokens)
      .values({ id: newId(), teamId, name: "admin", hash: keyedDigest(key, token), isAdmin: true })
      .run();
    return { token };
  }, IMMEDIATE);
}

/** Revokes every live admin token and issues a new one, returned in clear once. */
export function rotateAdminToken(db: Db, at: Date = new Date()): IssuedToken {
  const teamId = ensureDefaultTeam(db);
  return db.transaction((tx) => {
    tx.update(tokens)
      .set({ revokedAt: at.toISOString() })
      .where(and(eq(tokens.isAdmin, true), isNull(tokens.revokedAt)))
      .run();
    const token = generateToken();
    const id = newId();
    tx.insert(tokens)
      .values({ id, teamId, name: "admin", hash: keyedDigest(tokenKeyFor(db), token), isAdmin: true })
      .run();
    return { id, teamId, name: "admin", token, isAdmin: true };
  }, IMMEDIATE);
}

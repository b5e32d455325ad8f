// Teams and bearer tokens on PostgreSQL, through drizzle's pg dialect (the same statements as ../teams.ts).
import { and, eq, inArray, isNull, like, notInArray, notLike, sql } from "drizzle-orm";
import type { Clock } from "../../clock.js";
import { ConflictError, NotFoundError } from "../common/errors.js";
import { newId } from "../common/ids.js";
import type { TeamsRepo } from "../port.js";
import {
  type TokenKey,
  TokenKeyMismatchError,
  candidateDigests,
  keyedDigest,
  otherKeyPattern,
} from "../common/token-key.js";
import type { PgDb } from "./open.js";
import { teams, tokens } from "./schema.js";
import { isPgUniqueViolation } from "./tx.js";
import type { Principal, Team } from "../model.js";
import { DEFAULT_TEAM, generateToken, sameDigest } from "../common/tokens.js";

/**
 * How long a verified token is trusted without asking the database again. Every request authenticates, and on
 * PostgreSQL that is a round trip; a revocation through this process clears the cache at once, one through another
 * instance takes effect within this time.
 */
export const TOKEN_CACHE_MS = 1000;

/** Teams and tokens over drizzle; tokens are digested with the key `tokenKey` yields (token-key.ts). */
export function pgTeams(db: PgDb, clock: Clock, tokenKey: () => TokenKey): TeamsRepo {
  const verified = new Map<string, { principal: Principal; until: number }>();
  const pending = new Map<string, Promise<Principal | null>>();
  // A lookup that began before a revocation in this process must not cache what it read.
  let generation = 0;
  const forget = () => {
    generation += 1;
    verified.clear();
    pending.clear();
  };
  const verify = async (keyed: string, bare: string): Promise<Principal | null> => {
    const began = generation;
    const [row] = await db
      .select({ id: tokens.id, teamId: tokens.teamId, hash: tokens.hash, isAdmin: tokens.isAdmin })
      .from(tokens)
      .where(and(inArray(tokens.hash, [keyed, bare]), isNull(tokens.revokedAt)));
    if (!row) return null;
    // The index finds the row; the constant-time compare is the actual check.
    const isKeyed = sameDigest(row.hash, keyed);
    if (!isKeyed && !sameDigest(row.hash, bare)) return null;
    // A row of an older database, under the bare SHA-256: re-stored keyed on its first successful use.
    if (!isKeyed)
      await db
        .update(tokens)
        .set({ hash: keyed })
        .where(and(eq(tokens.id, row.id), eq(tokens.hash, bare)));
    const principal = { teamId: row.teamId, tokenId: row.id, isAdmin: row.isAdmin };
    if (began !== generation) return principal;
    if (verified.size > 10_000) verified.clear();
    verified.set(keyed, { principal, until: Date.now() + TOKEN_CACHE_MS });
    return principal;
  };
  // Whether live tokens were stored with another key (a database copied from another machine): asked once.
  let foreignKeyed: Promise<boolean> | undefined;
  const checkKey = async (): Promise<void> => {
    const key = tokenKey();
    const p = otherKeyPattern(key);
    foreignKeyed ??= db
      .select({ id: tokens.id })
      .from(tokens)
      .where(and(isNull(tokens.revokedAt), like(tokens.hash, p.keyed), notLike(tokens.hash, p.mine)))
      .limit(1)
      .then((rows) => rows.length > 0);
    if (await foreignKeyed) throw new TokenKeyMismatchError(key);
  };
  const findTeam = async (id: string): Promise<Team | null> =>
    (await db.select().from(teams).where(eq(teams.id, id)))[0] ?? null;
  const byName = async (name: string): Promise<Team | null> =>
    (await db.select().from(teams).where(eq(teams.name, name)))[0] ?? null;
  const ensureDefault = async (): Promise<string> => {
    await db.insert(teams).values({ id: newId(), name: DEFAULT_TEAM }).onConflictDoNothing();
    return (await byName(DEFAULT_TEAM))!.id;
  };
  return {
    create: async (name) => {
      try {
        const [row] = await db.insert(teams).values({ id: newId(), name }).returning();
        return row!;
      } catch (e) {
        if (isPgUniqueViolation(e)) throw new ConflictError(`a team named "${name}" exists`, { cause: e });
        throw e;
      }
    },
    get: findTeam,
    byName,
    ensureDefault,
    createToken: async (teamId, name = "", options = {}) => {
      if (!(await findTeam(teamId))) throw new NotFoundError(`no team has id "${teamId}"`);
      const token = options.token ?? generateToken();
      const isAdmin = options.isAdmin ?? false;
      const id = newId();
      await db.insert(tokens).values({ id, teamId, name, hash: keyedDigest(tokenKey(), token), isAdmin });
      return { id, teamId, name, token, isAdmin };
    },
    revokeToken: async (tokenId) => {
      forget();
      const [row] = await db.select({ id: tokens.id }).from(tokens).where(eq(tokens.id, tokenId));
      if (!row) throw new NotFoundError(`no token has id "${tokenId}"`);
      await db
        .update(tokens)
        .set({ revokedAt: clock.now().toISOString() })
        .where(and(eq(tokens.id, tokenId), isNull(tokens.revokedAt)));
      // Again after the write: an authentication racing the revocation may have cached the token meanwhile.
      forget();
    },
    authenticate: async (token) => {
      if (token.length === 0 || token.length > 512) return null;
      const { keyed, bare } = candidateDigests(tokenKey(), token);
      const hit = verified.get(keyed);
      if (hit && hit.until > Date.now()) return hit.principal;
      // Every connection's request misses at the same moment when the trust expires: one lookup answers them all.
      let lookup = pending.get(keyed);
      if (!lookup) {
        lookup = verify(keyed, bare).finally(() => pending.delete(keyed));
        pending.set(keyed, lookup);
      }
      const principal = await lookup;
      if (!principal) await checkKey();
      return principal;
    },
    ensureAdminToken: async (envToken) => {
      forget();
      const teamId = await ensureDefault();
      return db.transaction(async (tx) => {
        // Several instances starting at once must agree on one admin token.
        await tx.execute(sql`SELECT pg_advisory_xact_lock(${ADMIN_LOCK})`);
        if (envToken !== undefined) {
          const { keyed: hash, bare } = candidateDigests(tokenKey(), envToken);
          await tx
            .update(tokens)
            .set({ revokedAt: clock.now().toISOString() })
            .where(and(eq(tokens.isAdmin, true), isNull(tokens.revokedAt), notInArray(tokens.hash, [hash, bare])));
          const [existing] = await tx
            .select({ id: tokens.id, isAdmin: tokens.isAdmin })
            .from(tokens)
            .where(inArray(tokens.hash, [hash, bare]));
          if (existing && !existing.isAdmin)
            throw new ConflictError("AGENT_LEDGER_ADMIN_TOKEN equals a team token: choose a different admin token");
          // Re-stored keyed: the env token of an older database leaves no bare digest behind.
          if (existing) await tx.update(tokens).set({ revokedAt: null, hash }).where(eq(tokens.id, existing.id));
          else
            await tx
              .insert(tokens)
              .values({ id: newId(), teamId, name: "admin (AGENT_LEDGER_ADMIN_TOKEN)", hash, isAdmin: true });
          return {};
        }
        const [live] = await tx
          .select({ id: tokens.id })
          .from(tokens)
          .where(and(eq(tokens.isAdmin, true), isNull(tokens.revokedAt)));
        if (live) return {};
        const token = generateToken();
        await tx
          .insert(tokens)
          .values({ id: newId(), teamId, name: "admin", hash: keyedDigest(tokenKey(), token), isAdmin: true });
        return { token };
      });
    },
    rotateAdminToken: async () => {
      forget();
      const teamId = await ensureDefault();
      return db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(${ADMIN_LOCK})`);
        await tx
          .update(tokens)
          .set({ revokedAt: clock.now().toISOString() })
          .where(and(eq(tokens.isAdmin, true), isNull(tokens.revokedAt)));
        const token = generateToken();
        const id = newId();
        await tx
          .insert(tokens)
          .values({ id, teamId, name: "admin", hash: keyedDigest(tokenKey(), token), isAdmin: true });
        return { id, teamId, name: "admin", token, isAdmin: true };
      });
    },
  };
}

/** The advisory lock admin-token changes take (any constant distinct from the migration lock). */
const ADMIN_LOCK = 0x61646d696e;

import { keyedDigest, tokenKeyFor } from "../../../src/store/common/token-key.js";
import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError } from "../../../src/store/common/errors.js";
import {
  authenticate,
  createTeam,
  createToken,
  ensureAdminToken,
  ensureDefaultTeam,
  findTeamByName,
  revokeToken,
  rotateAdminToken,
} from "../../../src/store/sqlite/teams.js";
import { createTestDb } from "../../helpers/db.js";
import { DEFAULT_TEAM, hashToken } from "../../../src/store/common/tokens.js";

describe("teams", () => {
  it("creates a team with a sortable id and refuses a second team of the same name with conflict", () => {
    const { db } = createTestDb();
    const a = createTeam(db, "alpha");
    const b = createTeam(db, "beta");
    expect(a.name).toBe("alpha");
    expect(a.id < b.id).toBe(true);
    expect(a.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(() => createTeam(db, "alpha")).toThrow(ConflictError);
    try {
      createTeam(db, "alpha");
    } catch (e) {
      expect((e as ConflictError).code).toBe("conflict");
    }
  });

  it("ensureDefaultTeam returns the same id every time", () => {
    const { db } = createTestDb();
    const id = ensureDefaultTeam(db);
    expect(ensureDefaultTeam(db)).toBe(id);
    expect(findTeamByName(db, DEFAULT_TEAM)?.id).toBe(id);
  });
});

describe("tokens", () => {
  it("stores only the keyed digest of a token (not its SHA-256) and authenticates the clear token", () => {
    const store = createTestDb();
    const team = createTeam(store.db, "alpha");
    const issued = createToken(store.db, team.id, "ci");
    expect(issued.token).toMatch(/^al_[A-Za-z0-9_-]{43}$/);
    const row = store.sqlite.prepare("SELECT hash FROM tokens WHERE id = ?").get(issued.id) as { hash: string };
    expect(row.hash).toBe(keyedDigest(tokenKeyFor(store.db), issued.token));
    expect(row.hash).toMatch(/^hmac:[0-9a-f]{12}:[0-9a-f]{64}$/);
    expect(row.hash).not.toContain(hashToken(issued.token));
    const dump = JSON.stringify(store.sqlite.prepare("SELECT * FROM tokens").all());
    expect(dump).not.toContain(issued.token);
    expect(authenticate(store.db, issued.token)).toEqual({ teamId: team.id, tokenId: issued.id, isAdmin: false });
  });

  it("refuses an unknown, empty or revoked token", () => {
    const { db } = createTestDb();
    const team = createTeam(db, "alpha");
    const issued = createToken(db, team.id);
    expect(authenticate(db, "al_not-a-token")).toBeNull();
    expect(authenticate(db, "")).toBeNull();
    revokeToken(db, issued.id);
    expect(authenticate(db, issued.token)).toBeNull();
    expect(() => revokeToken(db, issued.id)).not.toThrow();
  });

  it("refuses a token for a team that does not exist, and revoking an unknown token, with not_found", () => {
    const { db } = createTestDb();
    expect(() => createToken(db, "no-such-team")).toThrow(NotFoundError);
    expect(() => revokeToken(db, "no-such-token")).toThrow(/no token has id "no-such-token"/);
  });
});

describe("admin token", () => {
  it("generates one admin token on first start and none afterwards", () => {
    const { db } = createTestDb();
    const first = ensureAdminToken(db);
    expect(first.token).toMatch(/^al_/);
    expect(ensureAdminToken(db)).toEqual({});
    const principal = authenticate(db, first.token!);
    expect(principal?.isAdmin).toBe(true);
    expect(principal?.teamId).toBe(findTeamByName(db, DEFAULT_TEAM)!.id);
  });

  it("uses AGENT_LEDGER_ADMIN_TOKEN when given and revokes a previously generated admin token", () => {
    const { db } = createTestDb();
    const generated = ensureAdminToken(db).token!;
    expect(ensureAdminToken(db, "env-admin-token-0123456789")).toEqual({});
    expect(authenticate(db, "env-admin-token-0123456789")?.isAdmin).toBe(true);
    expect(authenticate(db, generated)).toBeNull();
    expect(ensureAdminToken(db, "env-admin-token-0123456789")).toEqual({});
    expect(authenticate(db, "env-admin-token-0123456789")?.isAdmin).toBe(true);
  });

  it("rotateAdminToken revokes every admin token and the new one authenticates as admin", () => {
    const { db } = createTestDb();
    ensureAdminToken(db, "env-admin-token-0123456789");
    const rotated = rotateAdminToken(db);
    expect(authenticate(db, "env-admin-token-0123456789")).toBeNull();
    expect(authenticate(db, rotated.token)).toEqual({ teamId: rotated.teamId, tokenId: rotated.id, isAdmin: true });
    expect(ensureAdminToken(db)).toEqual({});
  });
});

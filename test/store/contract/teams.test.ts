// Store contract: teams and tokens, the same on every engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerStore } from "../../../src/store/port.js";
import { enginesUnderTest, freshTeam, settableClock } from "./engines.js";

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe.each(await enginesUnderTest())("$name store: teams and tokens", (engine) => {
  let store: LedgerStore;
  const clock = settableClock();
  beforeAll(async () => {
    store = await engine.open(clock);
  });
  afterAll(() => store.close());

  it("creates a team with a sortable id, finds it by id and by name, and refuses the name twice", async () => {
    const team = await store.teams.create("hydrology");
    expect(team.id).toMatch(ULID);
    expect(team.name).toBe("hydrology");
    expect(await store.teams.get(team.id)).toEqual(team);
    expect(await store.teams.byName("hydrology")).toEqual(team);
    expect(await store.teams.byName("nobody")).toBeNull();
    expect(await store.teams.get("01J0000000000000000000000")).toBeNull();
    await expect(store.teams.create("hydrology")).rejects.toMatchObject({
      code: "conflict",
      message: 'a team named "hydrology" exists',
    });
  });

  it("makes the default team once, whoever asks first", async () => {
    const [a, b] = await Promise.all([store.teams.ensureDefault(), store.teams.ensureDefault()]);
    expect(a).toBe(b);
    expect(await store.teams.ensureDefault()).toBe(a);
    expect((await store.teams.byName("default"))?.id).toBe(a);
  });

  it("authenticates an issued token as its team until it is revoked; revoking twice is harmless", async () => {
    const teamId = await freshTeam(store);
    const issued = await store.teams.createToken(teamId, "ci");
    expect(issued).toMatchObject({ teamId, name: "ci", isAdmin: false });
    expect(issued.token).toMatch(/^al_[A-Za-z0-9_-]{43}$/);
    expect(await store.teams.authenticate(issued.token)).toEqual({ teamId, tokenId: issued.id, isAdmin: false });
    expect(await store.teams.authenticate(`${issued.token}x`)).toBeNull();
    expect(await store.teams.authenticate("")).toBeNull();
    await store.teams.revokeToken(issued.id);
    await store.teams.revokeToken(issued.id);
    expect(await store.teams.authenticate(issued.token)).toBeNull();
  });

  it("refuses a token for an unknown team and the revocation of an unknown token", async () => {
    await expect(store.teams.createToken("no-such-team")).rejects.toMatchObject({
      code: "not_found",
      message: 'no team has id "no-such-team"',
    });
    await expect(store.teams.revokeToken("no-such-token")).rejects.toMatchObject({
      code: "not_found",
      message: 'no token has id "no-such-token"',
    });
  });

  it("makes the environment's admin token the only live one, and rotation replaces it", async () => {
    const env = "contract-admin-token-0123456789";
    expect(await store.teams.ensureAdminToken(env)).toEqual({});
    const admin = await store.teams.authenticate(env);
    expect(admin).toMatchObject({ teamId: await store.teams.ensureDefault(), isAdmin: true });
    expect(await store.teams.ensureAdminToken(env)).toEqual({});
    const rotated = await store.teams.rotateAdminToken();
    expect(rotated).toMatchObject({ name: "admin", isAdmin: true });
    expect(await store.teams.authenticate(env)).toBeNull();
    expect(await store.teams.authenticate(rotated.token)).toMatchObject({ tokenId: rotated.id, isAdmin: true });
    // With no environment token and one live admin token, nothing new is issued.
    expect(await store.teams.ensureAdminToken()).toEqual({});
  });
});

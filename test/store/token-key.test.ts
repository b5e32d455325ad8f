// Stored token digests are keyed (HMAC-SHA-256 with a secret outside the database), on both engines: new tokens are
// stored keyed, bare SHA-256 rows of older databases still authenticate and are re-stored keyed on first use, and a
// database opened with another key refuses its keyed tokens with a message that names the cause and the remedy.
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app.js";
import { ConfigError, defaultConfig, loadConfig } from "../../src/config.js";
import type { LedgerStore, StoreEngine } from "../../src/store/port.js";
import { openPgStore } from "../../src/store/pg/store.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { TokenKeyMismatchError, keyFilePath } from "../../src/store/common/token-key.js";
import { ENGINES } from "../helpers/engines.js";
import { createPgDatabase } from "../helpers/pg.js";

const KEY_A = `${"a".repeat(24)}0123456789abcdef0123456789abcdef`;
const KEY_B = `${"b".repeat(24)}0123456789abcdef0123456789abcdef`;
const dir = mkdtempSync(join(tmpdir(), "ledger-token-key-"));
const open: LedgerStore[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The digest the design promises, computed here from the key's text without the code under test. */
function expectedDigest(keyText: string, token: string): string {
  const id = createHmac("sha256", keyText).update("agent-ledger token key id").digest("hex").slice(0, 12);
  return `hmac:${id}:${createHmac("sha256", keyText).update(token).digest("hex")}`;
}

const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

let n = 0;
/** A fresh database location of `engine`: a SQLite file in its own folder, or a new PostgreSQL database. */
async function newLocation(engine: StoreEngine): Promise<string> {
  n += 1;
  return engine === "sqlite" ? join(dir, `db${n}`, "ledger.db") : createPgDatabase();
}

async function openAt(engine: StoreEngine, where: string, tokenKey?: string): Promise<LedgerStore> {
  const store =
    engine === "sqlite" ? openSqliteStore(where, { tokenKey }) : await openPgStore(where, { poolSize: 2, tokenKey });
  open.push(store);
  return store;
}

async function hashOf(store: LedgerStore, tokenId: string): Promise<string> {
  if (store.engine === "sqlite") {
    const db = (store as unknown as { db: { sqlite: { prepare(s: string): { get(x: string): unknown } } } }).db;
    return (db.sqlite.prepare("SELECT hash FROM tokens WHERE id = ?").get(tokenId) as { hash: string }).hash;
  }
  const pool = (store as unknown as { db: { pool: { query(s: string, p: unknown[]): Promise<{ rows: unknown[] }> } } })
    .db.pool;
  return ((await pool.query("SELECT hash FROM tokens WHERE id = $1", [tokenId])).rows[0] as { hash: string }).hash;
}

async function setHash(store: LedgerStore, tokenId: string, hash: string): Promise<void> {
  if (store.engine === "sqlite") {
    const db = (store as unknown as { db: { sqlite: { prepare(s: string): { run(...x: string[]): unknown } } } }).db;
    db.sqlite.prepare("UPDATE tokens SET hash = ? WHERE id = ?").run(hash, tokenId);
    return;
  }
  const pool = (store as unknown as { db: { pool: { query(s: string, p: unknown[]): Promise<unknown> } } }).db.pool;
  await pool.query("UPDATE tokens SET hash = $1 WHERE id = $2", [hash, tokenId]);
}

describe.each(ENGINES)("token digests on %s", (engine) => {
  it("stores a new team token and the generated admin token as HMAC-SHA-256 with the server's key", async () => {
    const store = await openAt(engine, await newLocation(engine), KEY_A);
    const team = await store.teams.create("alpha");
    const issued = await store.teams.createToken(team.id, "ci");
    const hash = await hashOf(store, issued.id);
    expect(hash).toBe(expectedDigest(KEY_A, issued.token));
    expect(hash).not.toContain(sha256(issued.token));
    const admin = await store.teams.rotateAdminToken();
    expect(await hashOf(store, admin.id)).toBe(expectedDigest(KEY_A, admin.token));
    expect(await store.teams.authenticate(issued.token)).toEqual({
      teamId: team.id,
      tokenId: issued.id,
      isAdmin: false,
    });
  });

  it("authenticates a token stored as a bare SHA-256 and re-stores it keyed on that first use", async () => {
    const store = await openAt(engine, await newLocation(engine), KEY_A);
    const team = await store.teams.create("alpha");
    const issued = await store.teams.createToken(team.id, "old");
    await setHash(store, issued.id, sha256(issued.token));
    expect(await store.teams.authenticate(issued.token)).toEqual({
      teamId: team.id,
      tokenId: issued.id,
      isAdmin: false,
    });
    expect(await hashOf(store, issued.id)).toBe(expectedDigest(KEY_A, issued.token));
    expect(await store.teams.authenticate("al_someone-else-entirely")).toBeNull();
  });

  it("re-stores a bare SHA-256 admin token keyed when AGENT_LEDGER_ADMIN_TOKEN names it, keeping the same row", async () => {
    const store = await openAt(engine, await newLocation(engine), KEY_A);
    const envToken = "operator-chosen-admin-token";
    await store.teams.ensureAdminToken(envToken);
    const first = await store.teams.authenticate(envToken);
    await setHash(store, first!.tokenId, sha256(envToken));
    await store.teams.ensureAdminToken(envToken);
    expect(await hashOf(store, first!.tokenId)).toBe(expectedDigest(KEY_A, envToken));
    expect(await store.teams.authenticate(envToken)).toEqual(first);
  });

  it("refuses keyed tokens of a database opened with another key, saying the token key differs and what to do", async () => {
    const where = await newLocation(engine);
    const before = await openAt(engine, where, KEY_A);
    const team = await before.teams.create("alpha");
    const issued = await before.teams.createToken(team.id, "ci");
    await before.teams.ensureAdminToken("operator-chosen-admin-token");
    await before.close();
    open.splice(open.indexOf(before), 1);

    const moved = await openAt(engine, where, KEY_B);
    await expect(moved.teams.authenticate(issued.token)).rejects.toBeInstanceOf(TokenKeyMismatchError);
    const app = createApp({ store: moved, config: defaultConfig() });
    const res = await app.request("/v1/sessions", { headers: { authorization: `Bearer ${issued.token}` } });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("unauthenticated");
    expect(body.error.message).toContain(
      "this database's tokens were stored with another token key than this server's",
    );
    expect(body.error.message).toContain("Set AGENT_LEDGER_TOKEN_KEY to the content of the token.key file");
    expect(body.error.message).toContain("agent-ledger admin rotate-token");
    expect(body.error.message).not.toContain(KEY_B);
    // The environment's admin token is authoritative: stored again under this server's key, it works at once.
    await moved.teams.ensureAdminToken("operator-chosen-admin-token");
    expect((await moved.teams.authenticate("operator-chosen-admin-token"))?.isAdmin).toBe(true);
    await expect(moved.teams.authenticate(issued.token)).rejects.toBeInstanceOf(TokenKeyMismatchError);

    const back = await openAt(engine, where, KEY_A);
    expect(await back.teams.authenticate(issued.token)).toEqual({
      teamId: team.id,
      tokenId: issued.id,
      isAdmin: false,
    });
  });
});

describe("the token key file", () => {
  it("is created on first use next to a SQLite database with mode 0600, and keys the tokens stored there", async () => {
    const where = await newLocation("sqlite");
    const store = await openAt("sqlite", where);
    const team = await store.teams.create("alpha");
    const issued = await store.teams.createToken(team.id, "ci");
    const file = join(dir, `db${n}`, "token.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^[0-9a-f]{64}\n$/);
    expect(await hashOf(store, issued.id)).toBe(expectedDigest(text.trim(), issued.token));
    await store.close();
    open.splice(open.indexOf(store), 1);
    const again = await openAt("sqlite", where);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(await again.teams.authenticate(issued.token)).toEqual({
      teamId: team.id,
      tokenId: issued.id,
      isAdmin: false,
    });
  });

  it("lives in ./data for PostgreSQL and nowhere for a database in memory", () => {
    expect(keyFilePath("postgres://u:p@db.example/ledger")).toBe(resolve("data", "token.key"));
    expect(keyFilePath("/srv/ledger/ledger.db")).toBe("/srv/ledger/token.key");
    expect(keyFilePath(":memory:")).toBeNull();
  });

  it("AGENT_LEDGER_TOKEN_KEY shorter than 32 characters is refused without echoing it", () => {
    expect(() => loadConfig({ AGENT_LEDGER_TOKEN_KEY: "short-key" })).toThrow(ConfigError);
    expect(() => loadConfig({ AGENT_LEDGER_TOKEN_KEY: "short-key" })).toThrow(
      "AGENT_LEDGER_TOKEN_KEY must be at least 32 characters (for example the output of openssl rand -hex 32) " +
        "(received a value that is not shown)",
    );
    expect(loadConfig({ AGENT_LEDGER_TOKEN_KEY: KEY_A }).tokenKey).toBe(KEY_A);
  });
});

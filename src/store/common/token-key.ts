// The server-side secret bearer tokens are digested with (HMAC-SHA-256), kept out of the database: a copy of the
// database alone (a backup, a stolen file) does not let anyone test guessed tokens offline. See DESIGN-NOTES.md.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A token key: the secret, its public id (stored with every digest), and where it came from (for messages). */
export type TokenKey = { secret: Buffer; id: string; source: string };

/** The key file's name, in the SQLite database's folder (for PostgreSQL: ./data of the working directory). */
export const KEY_FILE_NAME = "token.key";

/** Stored digests made with a key start with this, then the key's id, ":", and the HMAC in hex. */
export const KEYED_PREFIX = "hmac:";

/** A key from its text (AGENT_LEDGER_TOKEN_KEY, or a key file's content): the text's UTF-8 bytes are the secret. */
export function tokenKeyOf(text: string, source: string): TokenKey {
  const secret = Buffer.from(text.trim(), "utf8");
  // The id names the key without revealing it (HMAC is a PRF), so a row tells which key stored it.
  const id = createHmac("sha256", secret).update("agent-ledger token key id").digest("hex").slice(0, 12);
  return { secret, id, source };
}

/** Where the key file of the database at `url` lives: next to a SQLite file, ./data for PostgreSQL, none in memory. */
export function keyFilePath(url: string): string | null {
  if (url === ":memory:" || url === "" || url.startsWith("file::memory:")) return null;
  if (/^postgres(ql)?:\/\//i.test(url)) return resolve("data", KEY_FILE_NAME);
  return join(dirname(resolve(url)), KEY_FILE_NAME);
}

/**
 * Reads the key file at `path`, creating it (mode 0600, 32 random bytes in hex) when absent. Creation writes a
 * private temporary file and links it into place, so two processes starting at once agree on one key.
 */
export function loadKeyFile(path: string): TokenKey {
  try {
    return tokenKeyOf(readFileSync(path, "utf8"), path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(tmp, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(tmp, 0o600); // the umask may have narrowed it further, never widened; make it exactly 0600
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    unlinkSync(tmp);
  }
  return tokenKeyOf(readFileSync(path, "utf8"), path);
}

// A database in memory lives as long as the process, so a key of the process serves it.
let processKey: TokenKey | undefined;

/** The key for the database at `url`: `envKey` (AGENT_LEDGER_TOKEN_KEY) when set, else its key file. */
export function resolveTokenKey(url: string, envKey?: string): TokenKey {
  if (envKey !== undefined) return tokenKeyOf(envKey, "AGENT_LEDGER_TOKEN_KEY");
  const path = keyFilePath(url);
  if (path !== null) return loadKeyFile(path);
  processKey ??= tokenKeyOf(randomBytes(32).toString("hex"), "a key of this process (database in memory)");
  return processKey;
}

/** The digest a token is stored as with `key`: "hmac:<key id>:<HMAC-SHA-256 hex>". */
export function keyedDigest(key: TokenKey, token: string): string {
  return `${KEYED_PREFIX}${key.id}:${createHmac("sha256", key.secret).update(token, "utf8").digest("hex")}`;
}

/** SHA-256 hex: how tokens were stored before keyed digests (still accepted, re-stored keyed on first use). */
export function bareDigest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Both digests a presented token may be stored as: keyed first, then the bare SHA-256 of older databases. */
export function candidateDigests(key: TokenKey, token: string): { keyed: string; bare: string } {
  return { keyed: keyedDigest(key, token), bare: bareDigest(token) };
}

/** A LIKE pattern matching live digests made with another key than `key` (the mismatch check). */
export function otherKeyPattern(key: TokenKey): { keyed: string; mine: string } {
  return { keyed: `${KEYED_PREFIX}%`, mine: `${KEYED_PREFIX}${key.id}:%` };
}

/** Tokens were stored with another key than the one configured: they cannot authenticate until the key is restored. */
export class TokenKeyMismatchError extends Error {
  readonly code = "unauthenticated";
  constructor(key: TokenKey) {
    super(
      "the bearer token is unknown: this database's tokens were stored with another token key than this server's " +
        `(${key.source}, key id ${key.id}). Set AGENT_LEDGER_TOKEN_KEY to the content of the token.key file of the ` +
        "machine the database came from, or issue new tokens (agent-ledger admin rotate-token, then new team tokens)",
    );
    this.name = "TokenKeyMismatchError";
  }
}

// The key of each open handle (SQLite drizzle handle or PostgreSQL pool), resolved on first use.
const keys = new WeakMap<object, () => TokenKey>();

/** Binds the key `resolve` yields (called once, on first token operation) to the database handle `handle`. */
export function bindTokenKey(handle: object, resolveKey: () => TokenKey): void {
  let key: TokenKey | undefined;
  keys.set(handle, () => (key ??= resolveKey()));
}

/** The key bound to `handle`; a handle nobody bound (a test's own) uses the key of the process. */
export function tokenKeyFor(handle: object): TokenKey {
  return keys.get(handle)?.() ?? resolveTokenKey(":memory:");
}

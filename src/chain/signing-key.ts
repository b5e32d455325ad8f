// The service's Ed25519 key that signs each team's chain head. Kept apart from the database (a copy of the database
// alone cannot sign a rewritten history), created on first start, mode 0600; its path is AGENT_LEDGER_SIGNING_KEY.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The key file's name beside a SQLite database (for PostgreSQL: ./data of the working directory). */
export const SIGNING_KEY_FILE = "signing.key";

/** A signing key: the private key, its public key (PEM), and its id. */
export type SigningKey = { privateKey: KeyObject; publicKey: KeyObject; publicPem: string; keyId: string };

/** The key id: the first 16 hex digits of the SHA-256 of the raw 32-byte public key (API.md "The chain"). */
export function keyIdOf(publicKey: KeyObject): string {
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url");
  return createHash("sha256").update(raw).digest("hex").slice(0, 16);
}

/** A signing key from a PKCS#8 PEM private key. */
export function signingKeyOf(pem: string): SigningKey {
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  return {
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

/** Where the key lives: `envPath` when set, else beside the SQLite file, ./data for PostgreSQL, none in memory. */
export function signingKeyPath(dbFile: string, envPath?: string): string | null {
  if (envPath) return resolve(envPath);
  if (dbFile === ":memory:" || dbFile === "" || dbFile.startsWith("file::memory:")) return null;
  if (/^postgres(ql)?:\/\//i.test(dbFile)) return resolve("data", SIGNING_KEY_FILE);
  return join(dirname(resolve(dbFile)), SIGNING_KEY_FILE);
}

/**
 * Reads the key at `path`, creating it (mode 0600) when absent. Creation writes a private temporary file and links
 * it into place, so two processes starting at once agree on one key.
 */
export function loadSigningKey(path: string): SigningKey {
  try {
    return signingKeyOf(readFileSync(path, "utf8"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const pem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  writeFileSync(tmp, pem, { mode: 0o600, flag: "wx" });
  chmodSync(tmp, 0o600);
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    unlinkSync(tmp);
  }
  return signingKeyOf(readFileSync(path, "utf8"));
}

let processKey: SigningKey | undefined;
const loaded = new Map<string, SigningKey>();

/** The signing key of the database at `dbFile` (AGENT_LEDGER_SIGNING_KEY wins); a database in memory gets the process's. */
export function signingKeyFor(
  dbFile: string,
  envPath: string | undefined = process.env.AGENT_LEDGER_SIGNING_KEY,
): SigningKey {
  const path = signingKeyPath(dbFile, envPath);
  if (path === null) {
    processKey ??= signingKeyOf(
      generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    );
    return processKey;
  }
  let k = loaded.get(path);
  if (!k) {
    k = loadSigningKey(path);
    loaded.set(path, k);
  }
  return k;
}

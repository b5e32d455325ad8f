// Bearer tokens and cookies: the default team's name, fresh tokens, digests and their constant-time compare.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The team a single-user install works in; the admin token acts as one of its tokens. */
export const DEFAULT_TEAM = "default";

/** SHA-256 of a random server-made value, hex (dashboard session cookies); bearer tokens use keyed digests. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A fresh random bearer token: "al_" and 43 base64url characters (256 bits). */
export function generateToken(): string {
  return `al_${randomBytes(32).toString("base64url")}`;
}

/** True when `stored` equals `expected`, compared in constant time. */
export function sameDigest(stored: string, expected: string): boolean {
  const a = Buffer.from(stored, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

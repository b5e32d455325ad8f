// A team's signed chain head (API.md "The chain"), checking one against a public key, and anchor lines.
import { createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { canonicalJson } from "../provenance/canonical-json.js";
import { keyIdOf, type SigningKey } from "./signing-key.js";

/** What is signed: the team, its entry count, the latest digest and time, and the key's id. */
export type HeadBody = { team: string; count: number; digest: string; at: string | null; key_id: string };

/** A signed head: the body and the Ed25519 signature over its RFC 8785 form, in standard base64. */
export type SignedHead = HeadBody & { signature: string };

/** Signs a head's body. */
export function signHead(body: Omit<HeadBody, "key_id">, key: SigningKey): SignedHead {
  const b: HeadBody = { team: body.team, count: body.count, digest: body.digest, at: body.at, key_id: key.keyId };
  const signature = sign(null, Buffer.from(canonicalJson(b), "utf8"), key.privateKey).toString("base64");
  return { ...b, signature };
}

/** Why a signed head was refused, or null when it is signed by `publicKey`. */
export function headRefusal(head: SignedHead, publicKey: KeyObject | string): string | null {
  const pub = typeof publicKey === "string" ? createPublicKey(publicKey) : publicKey;
  if (head.key_id !== keyIdOf(pub)) return `the head was signed by key ${head.key_id}, not by key ${keyIdOf(pub)}`;
  const body: HeadBody = { team: head.team, count: head.count, digest: head.digest, at: head.at, key_id: head.key_id };
  const ok = verify(null, Buffer.from(canonicalJson(body), "utf8"), pub, Buffer.from(head.signature, "base64"));
  return ok ? null : "the head's signature does not verify with the public key";
}

// Transactions on the pool: BEGIN ... COMMIT on one client, retried on serialization failures and deadlocks.
import { createHash } from "node:crypto";
import type pg from "pg";

/** A client inside a transaction: one method, named (server-prepared) statements, rows out. */
export type Q = <R = Record<string, unknown>>(text: string, values?: readonly unknown[]) => Promise<R[]>;

const names = new Map<string, string>();

/** A stable statement name per SQL text, so each connection prepares a statement once. */
function nameOf(text: string): string {
  let n = names.get(text);
  if (!n) {
    n = `al_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    names.set(text, n);
  }
  return n;
}

/** The query function over one client. */
export function queryOn(client: pg.ClientBase | pg.Pool): Q {
  return async <R>(text: string, values: readonly unknown[] = []) =>
    (await client.query({ name: nameOf(text), text, values: values as unknown[] })).rows as R[];
}

/** 40001 serialization_failure and 40P01 deadlock_detected: the whole transaction can simply run again. */
const RETRYABLE = new Set(["40001", "40P01"]);
const ATTEMPTS = 8;

/** The SQLSTATE of a pg error, or undefined. */
export const sqlState = (e: unknown): string | undefined =>
  (e as { code?: unknown } | null)?.code as string | undefined;

/** True for PostgreSQL's unique violation (23505). */
export const isPgUniqueViolation = (e: unknown): boolean => sqlState(e) === "23505";

/** Runs `fn` in one transaction on a pooled client; a serialization failure or deadlock runs it again (up to 8 times). */
export async function inTransaction<T>(pool: pg.Pool, fn: (q: Q) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const client = await pool.connect();
    const q = queryOn(client);
    let broken = false;
    try {
      await client.query("BEGIN");
      const value = await fn(q);
      await client.query("COMMIT");
      return value;
    } catch (e) {
      try {
        await client.query("ROLLBACK");
      } catch {
        broken = true;
      }
      if (!RETRYABLE.has(sqlState(e) ?? "") || attempt >= ATTEMPTS) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
    } finally {
      client.release(broken);
    }
  }
}

/** A 64-bit advisory lock key for a text (first 8 bytes of its SHA-256, as a signed decimal). */
export function lockKey(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest().readBigInt64BE(0).toString();
}

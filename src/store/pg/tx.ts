// Transactions on the pool: BEGIN ... COMMIT on one client, retried on serialization failures and deadlocks.
import { createHash } from "node:crypto";
import pg from "pg";

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

/**
 * The SQLSTATE of an error the server answered with (drizzle wraps it as the cause of its own error), or undefined:
 * for a lost connection or a Node error such as EPIPE, whose `code` is not a SQLSTATE.
 */
export function sqlState(e: unknown): string | undefined {
  let x = e as { cause?: unknown } | null | undefined;
  for (let depth = 0; x && depth < 3; depth += 1) {
    if (x instanceof pg.DatabaseError && typeof x.code === "string") return x.code;
    x = x.cause as typeof x;
  }
  return undefined;
}

/** True for a serialization failure or deadlock, after which the whole transaction can run again. */
export const isRetryable = (e: unknown): boolean => RETRYABLE.has(sqlState(e) ?? "");

/** True for PostgreSQL's unique violation (23505). */
export const isPgUniqueViolation = (e: unknown): boolean => sqlState(e) === "23505";

/** A query function inside a transaction; `final` sends its statement and COMMIT in one round trip. */
export type TxQ = Q & { final: Q };

/** A value as an SQL literal (strings escaped by the driver), for statements sent with BEGIN or COMMIT. */
function literal(client: pg.PoolClient, v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : `'${String(v)}'`;
  if (Array.isArray(v)) return `ARRAY[${v.map((x) => literal(client, x)).join(", ")}]`;
  return client.escapeLiteral(String(v));
}

/** `text` with its $n parameters written in as literals (the ledger's statements hold no `$` inside quotes). */
function inline(client: pg.PoolClient, text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => literal(client, values[Number(n) - 1]));
}

type Multi = pg.QueryResult[];

/**
 * Runs `fn` in one transaction on a pooled client; a serialization failure or deadlock runs it again (up to 8 times).
 * Round trips are the cost on a busy machine, so BEGIN travels with the first statement and COMMIT with `final`'s
 * (both as one simple-protocol message, the values written in as escaped literals); other statements are prepared.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (q: TxQ) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const client = await pool.connect();
    const prepared = queryOn(client);
    let begun = false;
    let committed = false;
    const q = (async <R>(text: string, values: readonly unknown[] = []) => {
      if (begun) return prepared<R>(text, values);
      begun = true;
      const res = (await client.query(`BEGIN; ${inline(client, text, values)}`)) as unknown as Multi;
      return res[1]!.rows as R[];
    }) as TxQ;
    q.final = async <R>(text: string, values: readonly unknown[] = []) => {
      const sql = inline(client, text, values);
      const res = (await client.query(begun ? `${sql}; COMMIT` : `BEGIN; ${sql}; COMMIT`)) as unknown as Multi;
      const rows = res[begun ? 0 : 1]!.rows as R[];
      begun = true;
      committed = true;
      return rows;
    };
    let broken = false;
    try {
      const value = await fn(q);
      if (begun && !committed) await client.query("COMMIT");
      return value;
    } catch (e) {
      if (begun && !committed) {
        try {
          await client.query("ROLLBACK");
        } catch {
          broken = true;
        }
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

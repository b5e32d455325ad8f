// Counting the statements a PostgreSQL pool sends, for tests that pin round trips. Importing this module wraps
// pg.Client.prototype.query once; a client counts only after countStatements has seen its pool hand it out.
import pg from "pg";

const clientsOf = new Map<pg.ClientBase, { n: number }>();
const send = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const counter = clientsOf.get(this);
  if (counter) counter.n += 1;
  return (send as (...a: unknown[]) => unknown).apply(this, args);
} as typeof send;

/** Counts the statements a pool's clients send from now on (each client.query is one round trip). */
export function countStatements(pool: pg.Pool): { n: number } {
  const counter = { n: 0 };
  pool.on("acquire", (client) => clientsOf.set(client, counter));
  return counter;
}

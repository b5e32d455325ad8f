// A whole-chain verify of a large team on two threads: a worker hashes the team's rows (chain-rows-worker.ts) while a
// connection of the caller's walks its entries, each in a read transaction of its own; the rows are used only when
// both saw the same head (chain-verify.ts). On a 2-core machine this about halves the time of a large verify.
import type Database from "better-sqlite3";
import type { ChainVerdict } from "../common/chain-verify.js";
import { sqliteChain } from "./chain.js";
import { verifySettings } from "./chain-verify.js";
import type { RowsUnit } from "./chain-rows.js";
import { rowsElsewhere } from "./chain-rows-pool.js";
import { giveBack, takeReader } from "./verify-readers.js";

/**
 * Verifies a team's chain, on two threads when it is a whole walk of a large team in a database file; otherwise as
 * SqliteChain.verify does. The same verdict either way. `own.reader`: `sqlite` is a verify reader of the caller's
 * (verify-readers.ts), idle between statements, so the walk reads through it rather than through a second one.
 */
export async function verifyLedger(
  sqlite: Database.Database,
  teamId: string,
  options: { since?: string; archive?: Database.Database } = {},
  besideFrom = verifySettings.besideFrom,
  own: { reader?: boolean } = {},
): Promise<ChainVerdict> {
  const chain = sqliteChain(sqlite);
  if (
    options.since !== undefined ||
    sqlite.memory ||
    sqlite.inTransaction ||
    (chain.head(teamId)?.seq ?? 0) < besideFrom
  )
    return chain.verify(teamId, options);
  // A connection of its own, so its read transaction stays open across the wait for the worker without holding this
  // handle's (a server's writes go on through it meanwhile).
  const walker = own.reader ? sqlite : takeReader(sqlite.name);
  try {
    walker.exec("BEGIN");
    const rows = (units: RowsUnit[], claim: Int32Array) => rowsElsewhere({ file: sqlite.name, teamId, units, claim });
    return await sqliteChain(walker).verifyBesideNow(teamId, rows, options.archive);
  } finally {
    if (own.reader) {
      if (walker.inTransaction) walker.exec("COMMIT");
    } else giveBack(walker);
  }
}

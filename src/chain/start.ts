// What `serve` does for the chain at start: chain the rows written before chaining began, and make sure the
// signing key exists (created on first start), so the first signed head never waits on key generation.
import { chainOf } from "../store/chain-access.js";
import type { LedgerStore } from "../store/port.js";
import { signingKeyFor } from "./signing-key.js";

/** Backfills the chain and loads (or creates) the signing key; answers a line to print, or null. */
export async function startChain(store: LedgerStore): Promise<string | null> {
  const made = await (await chainOf(store)).backfill();
  const key = signingKeyFor(store.where);
  return made > 0 ? `chained ${made} existing row(s) of the ledger; signing key ${key.keyId}` : null;
}

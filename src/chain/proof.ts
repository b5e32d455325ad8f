// A self-contained proof for an exported session manifest: the session's own chain entries with their canonical rows,
// the row digests of the entries chained between them, and a head signed at the session's last entry. verify-export
// checks it offline with the public key alone (export-check.ts).
import { CHAIN_TABLES, isChainTable } from "../store/common/chain-tables.js";
import { chainOf, type LedgerChain } from "../store/chain-access.js";
import type { LedgerStore } from "../store/port.js";
import { type SignedHead, signHead } from "./head.js";
import type { SigningKey } from "./signing-key.js";

/** One entry of a proof: its position, table and row id, row digest, and the canonical row for the session's own. */
export type ProofEntry = {
  seq: number;
  table: string;
  id: string;
  row_digest: string;
  row?: Record<string, unknown>;
};

/** A proof (format agent-ledger.proof/1). */
export type Proof = {
  format: "agent-ledger.proof/1";
  /** The position before the first entry and its digest. */
  start: { seq: number; digest: string };
  entries: ProofEntry[];
  /** The head signed at the last entry: its count is that entry's position, its digest that entry's digest. */
  head: SignedHead;
};

/** The canonical row as an object, column by column. */
export function rowObject(table: string, values: readonly unknown[]): Record<string, unknown> {
  if (!isChainTable(table)) return {};
  return Object.fromEntries(CHAIN_TABLES[table].columns.map((c, i) => [c[0], values[i] ?? null]));
}

/** The proof of a session's entries, or null when none of them is chained (a ledger written before chaining). */
export async function sessionProof(
  store: LedgerStore,
  teamId: string,
  sessionId: string,
  key: SigningKey,
): Promise<Proof | null> {
  const chain = await chainOf(store);
  return proofOf(chain, teamId, await chain.sessionSeqs(teamId, sessionId), key);
}

/** The proof of an evaluation's entries (its run, keyed claims and sources), or null when none is chained. */
export async function evaluationProof(
  store: LedgerStore,
  teamId: string,
  runId: string,
  key: SigningKey,
): Promise<Proof | null> {
  const chain = await chainOf(store);
  return proofOf(chain, teamId, await chain.evaluationSeqs(teamId, runId), key);
}

async function proofOf(chain: LedgerChain, teamId: string, seqs: number[], key: SigningKey): Promise<Proof | null> {
  const own = new Set(seqs);
  if (own.size === 0) return null;
  const from = Math.min(...own);
  const to = Math.max(...own);
  const segment = await chain.segment(teamId, from, to);
  const entries: ProofEntry[] = [];
  for (const e of segment) {
    const entry: ProofEntry = { seq: e.seq, table: e.tbl, id: e.rowId, row_digest: e.rowDigest };
    if (own.has(e.seq)) {
      const row = await chain.rowOf(teamId, e.tbl, e.rowId);
      if (row) entry.row = rowObject(e.tbl, row);
    }
    entries.push(entry);
  }
  const last = segment[segment.length - 1]!;
  return {
    format: "agent-ledger.proof/1",
    start: { seq: from - 1, digest: segment[0]!.prev },
    entries,
    head: signHead({ team: teamId, count: last.seq, digest: last.digest, at: last.at }, key),
  };
}

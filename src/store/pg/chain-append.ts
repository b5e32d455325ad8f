// Appending to a team's chain on PostgreSQL, inside the writer's transaction: the team's head row is locked (so
// writers of one team chain one at a time, in commit order, across any number of instances), the rows just written
// are read back as stored, and their entries and the new head are written in one statement.
import { CHAIN_TABLES, type ChainTableName } from "../common/chain-tables.js";
import { chainSettings, GENESIS, linkDigest, printRow } from "../common/chain.js";
import type { Q } from "./tx.js";

/** A row's key as the writer has it. */
export type PgRowKey = string | number;

/** The SQL type of a chained table's key: its entries hold it as text. */
export const keyType = (name: ChainTableName): "bigint" | "text" =>
  CHAIN_TABLES[name].columns[0]![1] === "num" ? "bigint" : "text";

/** The statement reading a chained table's canonical columns by ids (typed, so the primary key index is used). */
export function readByIds(name: ChainTableName): string {
  const spec = CHAIN_TABLES[name];
  return `SELECT id::text AS "__id", ${spec.columns.map((c) => c[0]).join(", ")} FROM ${spec.source}
    WHERE team_id = $1 AND id = ANY($2::${keyType(name)}[])`;
}

const LOCK_HEAD = `INSERT INTO ledger_heads (team_id, seq, digest, at) VALUES ($1, 0, '${GENESIS}', $2)
  ON CONFLICT (team_id) DO UPDATE SET team_id = excluded.team_id RETURNING seq::int AS seq, digest`;

const WRITE = `WITH e AS (INSERT INTO ledger_entries (team_id, seq, tbl, row_id, row_digest, prev, digest, fp, at)
    SELECT $1, u.*, $9 FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u)
  UPDATE ledger_heads SET seq = $10, digest = $11, at = $9 WHERE team_id = $1`;

/** Appends rows just written in the caller's transaction to the team's chain, in the order given. */
export async function pgAppend(
  q: Q,
  teamId: string,
  rows: readonly (readonly [ChainTableName, PgRowKey])[],
  options: { force?: boolean } = {},
): Promise<void> {
  if ((!chainSettings.enabled && !options.force) || rows.length === 0) return;
  const at = new Date().toISOString();
  const [head] = await q<{ seq: number; digest: string }>(LOCK_HEAD, [teamId, at]);
  const byTable = new Map<ChainTableName, PgRowKey[]>();
  for (const [t, id] of rows) byTable.set(t, [...(byTable.get(t) ?? []), id]);
  const read = new Map<string, Record<string, unknown>>();
  for (const [t, ids] of byTable)
    for (const r of await q<Record<string, unknown>>(readByIds(t), [teamId, ids]))
      read.set(`${t}:${String(r.__id)}`, r);
  let seq = head!.seq;
  let prev = head!.digest;
  const cols: unknown[][] = [[], [], [], [], [], [], []];
  for (const [t, id] of rows) {
    const r = read.get(`${t}:${String(id)}`);
    if (!r) throw new Error(`chain: ${t} ${String(id)} was not written`);
    const { rowDigest, fp } = printRow(
      t,
      CHAIN_TABLES[t].columns.map((c) => r[c[0]]),
    );
    const digest = linkDigest(prev, rowDigest);
    seq += 1;
    for (const [i, v] of [seq, t, String(id), rowDigest, prev, digest, fp].entries()) cols[i]!.push(v);
    prev = digest;
  }
  await q(WRITE, [teamId, ...cols, at, seq, prev]);
}

/** The ids of the last `n` crossings of a session's call `seq` (a call's or a result's, just written). */
export async function crossingIdsOf(q: Q, sessionId: string, seq: number, n?: number): Promise<number[]> {
  if (n === 0) return [];
  const ids = (
    await q<{ id: number }>("SELECT id FROM crossings WHERE session_id = $1 AND seq = $2 ORDER BY id", [sessionId, seq])
  ).map((r) => Number(r.id));
  return n === undefined ? ids : ids.slice(-n);
}

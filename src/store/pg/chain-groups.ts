// The one-statement call and result writes (remembered and group-committed) chained: the statement runs in a
// transaction, and the rows it wrote are appended to their teams' chains before the commit, team by team in id order
// (every writer locks sessions before heads, and heads in team order, so no two writers wait on each other in a cycle).
import type pg from "pg";
import type { ChainTableName } from "../common/chain-tables.js";
import { chainSettings } from "../common/chain.js";
import { pgAppend, type PgRowKey } from "./chain-append.js";
import { inTransaction, type Q } from "./tx.js";

/** A call or result a statement wrote: its team, session, call id and, for a result, how many crossings it added. */
export type Wrote = { team: string; session: string; call: string; kind: "calls" | "results"; crossings?: number };

const CALL_SEQS = "SELECT id, session_id, seq FROM calls WHERE id = ANY($1::text[])";
const CROSSINGS_OF = `SELECT x.id, x.session_id, x.seq FROM crossings x
  JOIN unnest($1::text[], $2::int[]) AS k(session_id, seq) ON x.session_id = k.session_id AND x.seq = k.seq ORDER BY x.id`;

/** Appends what a statement wrote to the chains of its teams, in the caller's transaction. */
export async function appendWritten(q: Q, wrote: readonly Wrote[]): Promise<void> {
  if (wrote.length === 0) return;
  const calls = await q<{ id: string; session_id: string; seq: number }>(CALL_SEQS, [wrote.map((w) => w.call)]);
  const seqOf = new Map(calls.map((c) => [c.id, c]));
  const keys = wrote.map((w) => seqOf.get(w.call)!);
  const xs = await q<{ id: number; session_id: string; seq: number }>(CROSSINGS_OF, [
    keys.map((k) => k.session_id),
    keys.map((k) => k.seq),
  ]);
  const byCall = new Map<string, number[]>();
  for (const x of xs) {
    const k = `${x.session_id}:${x.seq}`;
    byCall.set(k, [...(byCall.get(k) ?? []), Number(x.id)]);
  }
  const byTeam = new Map<string, (readonly [ChainTableName, PgRowKey])[]>();
  for (const w of wrote) {
    const c = seqOf.get(w.call)!;
    const all = byCall.get(`${c.session_id}:${c.seq}`) ?? [];
    const mine = w.kind === "calls" ? all : all.slice(all.length - (w.crossings ?? 0));
    const list = byTeam.get(w.team) ?? [];
    list.push([w.kind, w.call], ...mine.map((x) => ["crossings", x] as const));
    byTeam.set(w.team, list);
  }
  for (const team of [...byTeam.keys()].sort()) await pgAppend(q, team, byTeam.get(team)!);
}

/** Runs a one-statement write: bare when chaining is off, else in a transaction with what it wrote chained. */
export function chained<R>(pool: pg.Pool, bare: Q, run: (q: Q) => Promise<R>, wrote: (r: R) => Wrote[]): Promise<R> {
  if (!chainSettings.enabled) return run(bare);
  return inTransaction(pool, async (tq) => {
    const r = await run(tq);
    await appendWritten(tq, wrote(r));
    return r;
  });
}

// `verify-export`: checks an exported manifest's proof offline. The chain segment must link from its start to the
// signed head, each carried row must hash to its entry, the head must be signed by the given public key, and the
// manifest's session, calls, results and crossings must be the carried rows.
import { CHAIN_TABLES, isChainTable } from "../store/common/chain-tables.js";
import { linkDigest, printRow } from "../store/common/chain.js";
import { canonicalJson } from "../provenance/canonical-json.js";
import { headRefusal } from "./head.js";
import type { Proof } from "./proof.js";

type Crossing = {
  raw?: unknown;
  value?: unknown;
  unit?: unknown;
  value_si?: unknown;
  outcome?: unknown;
  violation?: unknown;
};
type Call = {
  call_id: string;
  tool: string;
  args_raw: unknown;
  result_raw: unknown;
  verdict: { args?: Record<string, Crossing> };
  result_verdict: { result?: Record<string, Crossing> } | null;
};
type Manifest = { session?: { id: string; context: string }; calls?: Call[]; proof?: Proof };

/** Why the export does not verify, or null when it does. */
export function exportRefusal(doc: unknown, publicKeyPem: string): string | null {
  const m = doc as Manifest;
  const p = m?.proof;
  if (p?.format !== "agent-ledger.proof/1") return "the file carries no proof (format agent-ledger.proof/1)";
  const signed = headRefusal(p.head, publicKeyPem);
  if (signed) return signed;
  let digest = p.start.digest;
  let seq = p.start.seq;
  const rows = new Map<string, Record<string, unknown>>();
  for (const e of p.entries) {
    if (e.seq !== seq + 1) return `entry ${e.seq} does not follow entry ${seq}`;
    if (e.row !== undefined) {
      if (!isChainTable(e.table)) return `entry ${e.seq}: unknown table '${e.table}'`;
      const values = CHAIN_TABLES[e.table].columns.map((c) => e.row![c[0]]);
      if (printRow(e.table, values).rowDigest !== e.row_digest)
        return `entry ${e.seq} (${e.table} ${e.id}): the row differs from the row chained`;
      rows.set(`${e.table}:${e.id}`, e.row);
    }
    digest = linkDigest(digest, e.row_digest);
    seq = e.seq;
  }
  if (seq !== p.head.count || digest !== p.head.digest)
    return `the entries do not end at the signed head (position ${p.head.count})`;
  return "calls" in (doc as object) ? manifestRefusal(m, rows) : reportRefusal(doc as Record<string, unknown>, rows);
}

/** Why an evaluation report differs from its chained run row, or null. */
function reportRefusal(doc: Record<string, unknown>, rows: Map<string, Record<string, unknown>>): string | null {
  const id = String(doc.id);
  const run = rows.get(`runs:${id}`);
  if (!run) return `the proof does not carry the evaluation's row (runs ${id})`;
  const { id: _id, task, created_at, proof: _proof, input: _input, settings: _settings, ...decision } = doc;
  if (task !== run.task || created_at !== run.created_at)
    return `evaluation ${id}: task or time differs from the row chained`;
  if (canonicalJson(decision) !== canonicalJson(JSON.parse(String(run.report))))
    return `evaluation ${id}: the report differs from the row chained`;
  return null;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Why the manifest differs from the proof's rows, or null. */
function manifestRefusal(m: Manifest, rows: Map<string, Record<string, unknown>>): string | null {
  const s = m.session;
  const srow = s ? rows.get(`sessions:${s.id}`) : undefined;
  if (!s || !srow) return "the proof does not carry the session's row";
  if (srow.context !== s.context) return `session ${s.id}: context differs from the row chained`;
  const crossings = [...rows.entries()].filter(([k]) => k.startsWith("crossings:")).map(([, r]) => r);
  for (const c of m.calls ?? []) {
    const row = rows.get(`calls:${c.call_id}`);
    if (!row) return `call ${c.call_id}: not in the proof`;
    if (row.tool !== c.tool || row.args_raw !== JSON.stringify(c.args_raw))
      return `call ${c.call_id}: tool or arguments differ from the row chained`;
    const result = rows.get(`results:${c.call_id}`);
    if (c.result_raw !== null && c.result_raw !== undefined) {
      if (!result || result.result_raw !== JSON.stringify(c.result_raw))
        return `call ${c.call_id}: the result differs from the row chained`;
    }
    const mine = crossings.filter((x) => x.call_id === c.call_id);
    const shown: [string, string, Crossing][] = [
      ...Object.entries(c.verdict?.args ?? {}).map(([k, v]) => ["param", k, v] as [string, string, Crossing]),
      ...Object.entries(c.result_verdict?.result ?? {}).map(([k, v]) => ["return", k, v] as [string, string, Crossing]),
    ];
    for (const [direction, param, x] of shown) {
      const r = mine.find((y) => y.direction === direction && y.param === param);
      if (!r) return `call ${c.call_id}: crossing ${param} is not in the proof`;
      for (const f of ["raw", "value", "unit", "value_si", "outcome", "violation"] as const)
        if (!same(f === "raw" ? JSON.parse(String(r.raw)) : r[f], x[f]))
          return `call ${c.call_id}: crossing ${param}: ${f} differs from the row chained`;
    }
  }
  return null;
}

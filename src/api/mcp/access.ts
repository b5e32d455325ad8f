// The ledger's MCP tools' one door to the data: async functions over the LedgerStore port, each calling what its /v1
// route calls, scoped to one team.
import { checkClaims } from "../../limits.js";
import type { AppDeps } from "../env.js";
import { readQuantity } from "../routes/quantities.js";
import { crossingJson, sessionJson } from "../routes/sessions.js";
import { compileWatch, watchMatches } from "../../gates/watch.js";
import type { QuantityJSON } from "../../quantity/quantity.js";
import type { ClaimRow, ClaimStatus, Evaluation } from "../../store/port.js";
import { parseInstant, parseLabel } from "../../query-params.js";

/** One team's view of the ledger. */
export type TeamAccess = { deps: AppDeps; teamId: string };

type QuantityInput = Parameters<typeof readQuantity>[0];

/** POST /v1/convert: a quantity in another unit and/or on another datum. */
export async function convert(
  a: TeamAccess,
  input: { quantity: QuantityInput; to_unit?: string; to_datum?: string },
): Promise<QuantityJSON> {
  const datums = await a.deps.store.datums.registry(a.teamId);
  let q = readQuantity(input.quantity, datums);
  if (input.to_unit) q = q.to(input.to_unit);
  if (input.to_datum) q = q.toDatum(input.to_datum, datums);
  return q.toJSON();
}

/** The operations of POST /v1/compute. */
export const COMPUTE_OPS = ["add", "sub", "mul", "div", "lt", "gt", "eq"] as const;

/** POST /v1/compute: arithmetic or a comparison under the unit and datum algebra. */
export async function compute(
  a: TeamAccess,
  input: { op: (typeof COMPUTE_OPS)[number]; a: QuantityInput | number; b: QuantityInput | number },
): Promise<{ quantity: QuantityJSON } | { result: boolean }> {
  const datums = await a.deps.store.datums.registry(a.teamId);
  const qa = readQuantity(input.a, datums);
  const qb = readQuantity(input.b, datums);
  const ops = {
    add: () => ({ quantity: qa.add(qb).toJSON() }),
    sub: () => ({ quantity: qa.sub(qb).toJSON() }),
    mul: () => ({ quantity: qa.mul(qb).toJSON() }),
    div: () => ({ quantity: qa.div(qb).toJSON() }),
    lt: () => ({ result: qa.compare(qb) < 0 }),
    gt: () => ({ result: qa.compare(qb) > 0 }),
    eq: () => ({ result: qa.equals(qb) }),
  };
  return ops[input.op]();
}

/** POST /v1/sessions/{id}/audit: the numbers of an answer traced to the session's tool outputs, stored. */
export async function auditAnswer(a: TeamAccess, input: { session_id: string; answer: string; context?: string }) {
  const r = await a.deps.store.audits.audit(a.teamId, input.session_id, {
    answer: input.answer,
    context: input.context,
  });
  return {
    id: r.id,
    ok: r.ok,
    numbers: r.numbers.map((n) => ({
      text: n.text,
      value: n.value,
      unit: n.unit,
      status: n.status,
      source: n.source,
      explanation: n.explanation,
      call_id: n.callId,
    })),
  };
}

/** POST /v1/evaluations: the release decision, recorded. */
export async function evaluate(a: TeamAccess, input: Record<string, unknown>): Promise<Evaluation> {
  checkClaims(input, a.deps.config.limits);
  return (await a.deps.store.evaluations.evaluate(a.teamId, input)).evaluation;
}

/** GET /v1/sessions: past sessions by label, tool, violation code and time, newest first. */
export async function findSessions(
  a: TeamAccess,
  f: { labels?: string[]; tool?: string; code?: string; since?: string; until?: string; limit: number },
) {
  // As the route: the store answers limit + 1 rows when more follow.
  const rows = await a.deps.store.sessions.list(a.teamId, {
    labels: (f.labels ?? []).map((l) => parseLabel(l)),
    tool: f.tool,
    code: f.code,
    limit: f.limit,
    since: f.since === undefined ? undefined : parseInstant(f.since, "since"),
    until: f.until === undefined ? undefined : parseInstant(f.until, "until"),
  });
  return { sessions: rows.slice(0, f.limit).map(sessionJson), more: rows.length > f.limit };
}

/** GET /v1/crossings: every stored crossing of a physical magnitude, newest first. */
export async function findCrossingsOf(
  a: TeamAccess,
  f: { value: number; unit: string; tolerance?: number; tool?: string; since?: string; limit: number },
) {
  const rows = await a.deps.store.crossings.search(a.teamId, {
    value: f.value,
    unit: f.unit,
    tolerance: f.tolerance,
    tool: f.tool,
    limit: f.limit,
    since: f.since === undefined ? undefined : parseInstant(f.since, "since"),
  });
  return { crossings: rows.slice(0, f.limit).map(crossingJson), more: rows.length > f.limit };
}

/** How a claim came to match a claim_status question. */
export type ClaimMatch = { claim: ClaimRow; matched_by: "id" | "watch" | "text" };

const PAGE = 500;

async function everyClaim(a: TeamAccess, status?: ClaimStatus): Promise<ClaimRow[]> {
  const out: ClaimRow[] = [];
  let after: readonly [string, string] | null = null;
  do {
    const page = await a.deps.store.claims.list(a.teamId, { status, limit: PAGE, after });
    out.push(...page.items);
    after = page.next_cursor;
  } while (after !== null);
  return out;
}

/**
 * The team's ledger claims a question is about: the claim of that id, every demoted claim whose watch pattern (the
 * contradiction gate's own test) matches the text, and every claim whose text contains it or is contained in it.
 */
export async function claimsAbout(a: TeamAccess, q: { claim_id?: string; text?: string }): Promise<ClaimMatch[]> {
  const out = new Map<string, ClaimMatch>();
  if (q.claim_id) {
    const c = await a.deps.store.claims.find(a.teamId, q.claim_id);
    if (c) out.set(c.id, { claim: c, matched_by: "id" });
  }
  const text = q.text?.trim();
  if (!text) return [...out.values()];
  for (const c of await everyClaim(a, "demoted")) {
    if (out.has(c.id) || !c.watch) continue;
    const w = compileWatch(c.watch);
    if (w.ok && watchMatches(w, text)) out.set(c.id, { claim: c, matched_by: "watch" });
  }
  const needle = text.toLowerCase();
  for (const c of await everyClaim(a)) {
    const hay = c.text.toLowerCase();
    if (!out.has(c.id) && (hay.includes(needle) || needle.includes(hay)))
      out.set(c.id, { claim: c, matched_by: "text" });
  }
  return [...out.values()];
}

// The team claim ledger on PostgreSQL: the same rules as ../claims.ts. A team's claim writes take turns under an
// advisory lock, and each bumps the team's `claims` counter, which the demoted-claims cache of every instance reads.
import type { Clock } from "../../clock.js";
import { CURRENT_CLAIM as CURRENT, claimRow as toRow, newClaimLine, type RawClaim } from "../common/claim-rows.js";
import { ledgerLineText, type LedgerLine, parseLedgerText, watchProblem } from "../common/claims-jsonl.js";
import { ConflictError, NotFoundError } from "../common/errors.js";
import { newId } from "../common/ids.js";
import type { ClaimsRepo } from "../port.js";
import { bumpVersion } from "./registry.js";
import { inTransaction, lockKey, type Q, queryOn } from "./tx.js";
import type pg from "pg";
import { pgAppend } from "./chain-append.js";
import type { ClaimEvent, ClaimRow, ClaimStatus } from "../model.js";
import { InvalidClaimError } from "../common/errors.js";
import { ClaimImport, claimValues, type EventState, eventValues } from "../common/claim-rows.js";

type EventKind = "created" | "demoted" | "superseded" | "restored";

async function find(q: Q, teamId: string, id: string): Promise<ClaimRow | null> {
  const [r] = await q<RawClaim>(`${CURRENT} WHERE c.team_id = $1 AND c.id = $2`, [teamId, id]);
  return r ? toRow(r) : null;
}

async function get(q: Q, teamId: string, id: string): Promise<ClaimRow> {
  const r = await find(q, teamId, id);
  if (!r) throw new NotFoundError(`no claim '${id}' in this team's ledger`);
  return r;
}

async function event(q: Q, teamId: string, id: string, kind: EventKind, state: EventState, now: Date): Promise<void> {
  const [ev] = await q<{ id: number }>(
    `INSERT INTO claim_events (team_id, claim_id, kind, status, reason, demoted_by, watch, superseded_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    eventValues(teamId, id, kind, state, now),
  );
  await pgAppend(q, teamId, [["claim_events", Number(ev!.id)]]);
}

async function insert(q: Q, teamId: string, c: LedgerLine, now: Date): Promise<void> {
  await q(
    "INSERT INTO claims (id, team_id, text, key, value, supersedes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    claimValues(teamId, c, now),
  );
  await pgAppend(q, teamId, [["claims", c.id]]);
  await event(q, teamId, c.id, "created", c, now);
}

async function markSuperseded(q: Q, teamId: string, id: string, byId: string, now: Date): Promise<void> {
  const c = await get(q, teamId, id);
  // A demoted claim stays demoted when replaced: it was wrong, and its watch must keep catching it.
  const status: ClaimStatus = c.status === "demoted" ? "demoted" : "superseded";
  await event(q, teamId, id, "superseded", { ...c, status, superseded_by: byId }, now);
}

/** The claim ledger over the pool. */
export function pgClaims(pool: pg.Pool, clock: Clock): ClaimsRepo {
  const q = queryOn(pool);
  const write = <T>(teamId: string, fn: (tq: Q) => Promise<T>) =>
    inTransaction(pool, async (tq) => {
      await tq("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("claims", teamId)]);
      const value = await fn(tq);
      await bumpVersion(tq, teamId, "claims");
      return value;
    });
  return {
    create: async (teamId, input) => {
      const problems: { path: string; message: string }[] = [];
      const watchIssue = watchProblem(input.watch ?? null);
      if (watchIssue !== null) problems.push({ path: "watch", message: watchIssue });
      const now = clock.now();
      return write(teamId, async (tq) => {
        const id = input.id ?? newId(now.getTime());
        if (await find(tq, teamId, id))
          throw new ConflictError(
            `a claim '${id}' is already in this team's ledger; claims are immutable, so give the new claim its own id and name '${id}' in supersedes`,
          );
        const supersedes = [...new Set(input.supersedes ?? [])];
        for (const old of supersedes) {
          if (old === id) problems.push({ path: "supersedes", message: `a claim cannot supersede itself ('${id}')` });
          else if (!(await find(tq, teamId, old)))
            problems.push({ path: "supersedes", message: `no claim '${old}' in this team's ledger to supersede` });
        }
        if (problems.length > 0)
          throw new InvalidClaimError(
            `the claim cannot be added: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
            problems,
          );
        await insert(tq, teamId, newClaimLine(id, input, supersedes), now);
        for (const old of supersedes) await markSuperseded(tq, teamId, old, id, now);
        return get(tq, teamId, id);
      });
    },
    demote: async (teamId, id, d) => {
      const watchIssue = watchProblem(d.watch ?? null);
      if (watchIssue !== null)
        throw new InvalidClaimError(`the watch pattern cannot be used: ${watchIssue}`, [
          { path: "watch", message: watchIssue },
        ]);
      const now = clock.now();
      return write(teamId, async (tq) => {
        const c = await get(tq, teamId, id);
        const watch = d.watch === undefined ? c.watch : d.watch;
        await event(
          tq,
          teamId,
          id,
          "demoted",
          { ...c, status: "demoted", reason: d.reason, demoted_by: d.demoted_by, watch },
          now,
        );
        return get(tq, teamId, id);
      });
    },
    supersede: async (teamId, id, byId) => {
      const now = clock.now();
      return write(teamId, async (tq) => {
        await get(tq, teamId, byId);
        await markSuperseded(tq, teamId, id, byId, now);
        return get(tq, teamId, id);
      });
    },
    get: (teamId, id) => get(q, teamId, id),
    find: (teamId, id) => find(q, teamId, id),
    events: async (teamId, id) => {
      await get(q, teamId, id);
      return q<ClaimEvent>(
        `SELECT kind, status, reason, demoted_by, watch, superseded_by, created_at FROM claim_events
         WHERE team_id = $1 AND claim_id = $2 ORDER BY id`,
        [teamId, id],
      );
    },
    list: async (teamId, filter) => {
      const like = filter.q ? `%${filter.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : null;
      // ILIKE in a C-collated database folds ASCII case only, as SQLite's LIKE does.
      const rows = await q<RawClaim>(
        `${CURRENT} WHERE c.team_id = $1 AND ($2::text IS NULL OR c.id ILIKE $2 OR c.text ILIKE $2 OR c.key ILIKE $2)
         AND (c.created_at, c.id) > ($3, $4) AND ($5::text IS NULL OR e.status = $5)
         ORDER BY c.created_at, c.id LIMIT $6`,
        [teamId, like, filter.after?.[0] ?? "", filter.after?.[1] ?? "", filter.status ?? null, filter.limit + 1],
      );
      const all = rows.map(toRow);
      if (all.length <= filter.limit) return { items: all, next_cursor: null };
      const items = all.slice(0, filter.limit);
      const last = items[items.length - 1]!;
      return { items, next_cursor: [last.created_at, last.id] as const };
    },
    importText: async (teamId, text) => {
      const parsed = parseLedgerText(text);
      const now = clock.now();
      return write(teamId, async (tq) => {
        const run = new ClaimImport(parsed);
        for (const { line, claim } of parsed.claims) {
          const w = run.line(line, claim, await find(tq, teamId, claim.id));
          if (w.write === "insert") await insert(tq, teamId, claim, now);
          else if (w.write === "event") await event(tq, teamId, claim.id, w.kind, w.wanted, now);
        }
        for (const l of run.links()) {
          if (run.link(l, await find(tq, teamId, l.old))) await markSuperseded(tq, teamId, l.old, l.id, now);
        }
        return run.done();
      });
    },
    exportText: async (teamId) => {
      const rows = (await q<RawClaim>(`${CURRENT} WHERE c.team_id = $1 ORDER BY c.created_at, c.id`, [teamId])).map(
        toRow,
      );
      return rows.map((r) => `${ledgerLineText(r)}\n`).join("");
    },
  };
}

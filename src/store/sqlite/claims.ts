// The team claim ledger: claims are immutable rows, their status an append-only list of events (created, demoted,
// superseded, restored), each carrying the full state after it, so the latest event is the current state.
import type { Database, Statement } from "better-sqlite3";
import { ledgerLineText, parseLedgerText, watchProblem, type LedgerLine } from "../common/claims-jsonl.js";
import { ConflictError, NotFoundError } from "../common/errors.js";
import { newId } from "../common/ids.js";
import { CURRENT_CLAIM as CURRENT, claimRow as toRow, newClaimLine, type RawClaim } from "../common/claim-rows.js";
import type {
  ClaimEvent,
  ClaimPage,
  ClaimRow,
  ClaimStatus,
  Demotion,
  EventKind,
  ImportReport,
  NewClaim,
} from "../model.js";
import { InvalidClaimError } from "../common/errors.js";
import { ClaimImport, claimValues, type EventState, eventValues } from "../common/claim-rows.js";
import { sqliteChain } from "./chain.js";

/** Repository of one database's claim ledger. Every method is scoped to a team. */
export class ClaimStore {
  private readonly s: Record<"insert" | "event" | "get" | "events" | "page" | "pageStatus" | "all", Statement>;

  constructor(private readonly sqlite: Database) {
    const p = (sql: string) => sqlite.prepare(sql);
    const page = `${CURRENT} WHERE c.team_id = @team AND (@q IS NULL OR c.id LIKE @q ESCAPE '\\' OR c.text LIKE @q ESCAPE '\\' OR c.key LIKE @q ESCAPE '\\')
      AND (c.created_at, c.id) > (@after_at, @after_id)`;
    this.s = {
      insert: p(
        "INSERT INTO claims (id, team_id, text, key, value, supersedes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      event:
        p(`INSERT INTO claim_events (team_id, claim_id, kind, status, reason, demoted_by, watch, superseded_by, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      get: p(`${CURRENT} WHERE c.team_id = ? AND c.id = ?`),
      events: p(`SELECT kind, status, reason, demoted_by, watch, superseded_by, created_at FROM claim_events
                 WHERE team_id = ? AND claim_id = ? ORDER BY id`),
      page: p(`${page} ORDER BY c.created_at, c.id LIMIT @limit`),
      pageStatus: p(`${page} AND e.status = @status ORDER BY c.created_at, c.id LIMIT @limit`),
      all: p(`${CURRENT} WHERE c.team_id = ? ORDER BY c.created_at, c.id`),
    };
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction (nested calls join the outer one): the write lock is taken first, so a
   * second process on the same file waits (busy_timeout) instead of failing at its first write with SQLITE_BUSY.
   */
  transaction<T>(fn: () => T): T {
    return this.sqlite.transaction(fn).immediate();
  }

  /** The claim with its current status, or 404 (another team's id is indistinguishable from none). */
  get(teamId: string, id: string): ClaimRow {
    const r = this.find(teamId, id);
    if (!r) throw new NotFoundError(`no claim '${id}' in this team's ledger`);
    return r;
  }

  /** The claim, or null. */
  find(teamId: string, id: string): ClaimRow | null {
    const r = this.s.get.get(teamId, id) as RawClaim | undefined;
    return r ? toRow(r) : null;
  }

  /** Every event of a claim, oldest first. */
  events(teamId: string, id: string): ClaimEvent[] {
    this.get(teamId, id);
    return this.s.events.all(teamId, id) as ClaimEvent[];
  }

  /** Adds a claim (live or demoted) and marks what it supersedes; a repeated id is a 409, a bad watch or unknown supersedes a 400. */
  create(teamId: string, input: NewClaim, now: Date): ClaimRow {
    const problems: { path: string; message: string }[] = [];
    const watchIssue = watchProblem(input.watch ?? null);
    if (watchIssue !== null) problems.push({ path: "watch", message: watchIssue });
    return this.transaction(() => {
      const id = input.id ?? newId(now.getTime());
      if (this.find(teamId, id))
        throw new ConflictError(
          `a claim '${id}' is already in this team's ledger; claims are immutable, so give the new claim its own id and name '${id}' in supersedes`,
        );
      const supersedes = [...new Set(input.supersedes ?? [])];
      for (const old of supersedes) {
        if (old === id) problems.push({ path: "supersedes", message: `a claim cannot supersede itself ('${id}')` });
        else if (!this.find(teamId, old))
          problems.push({ path: "supersedes", message: `no claim '${old}' in this team's ledger to supersede` });
      }
      if (problems.length > 0)
        throw new InvalidClaimError(
          `the claim cannot be added: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
          problems,
        );
      this.insert(teamId, newClaimLine(id, input, supersedes), now);
      for (const old of supersedes) this.markSuperseded(teamId, old, id, now);
      return this.get(teamId, id);
    });
  }

  /** Demotes a claim: a new event, the earlier ones kept. */
  demote(teamId: string, id: string, d: Demotion, now: Date): ClaimRow {
    const watchIssue = watchProblem(d.watch ?? null);
    if (watchIssue !== null)
      throw new InvalidClaimError(`the watch pattern cannot be used: ${watchIssue}`, [
        { path: "watch", message: watchIssue },
      ]);
    return this.transaction(() => {
      const c = this.get(teamId, id);
      const watch = d.watch === undefined ? c.watch : d.watch;
      this.event(
        teamId,
        id,
        "demoted",
        { ...c, status: "demoted", reason: d.reason, demoted_by: d.demoted_by, watch },
        now,
      );
      return this.get(teamId, id);
    });
  }

  /** Records that `byId` replaces `id`. A live claim becomes superseded; a demoted one stays demoted (its watch still guards). */
  supersede(teamId: string, id: string, byId: string, now: Date): ClaimRow {
    return this.transaction(() => {
      this.get(teamId, byId);
      this.markSuperseded(teamId, id, byId, now);
      return this.get(teamId, id);
    });
  }

  /** One page of the ledger, oldest first; `q` matches id, text or key (case-insensitive substring). */
  list(
    teamId: string,
    filter: { status?: ClaimStatus; q?: string; limit: number; after?: readonly [string, string] | null },
  ): ClaimPage {
    const params = {
      team: teamId,
      limit: filter.limit + 1,
      status: filter.status ?? null,
      q: filter.q ? `%${filter.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : null,
      after_at: filter.after?.[0] ?? "",
      after_id: filter.after?.[1] ?? "",
    };
    const rows = ((filter.status ? this.s.pageStatus : this.s.page).all(params) as RawClaim[]).map(toRow);
    if (rows.length <= filter.limit) return { items: rows, next_cursor: null };
    const items = rows.slice(0, filter.limit);
    const last = items[items.length - 1]!;
    return { items, next_cursor: [last.created_at, last.id] };
  }

  /** Imports JSON Lines text in one transaction: new ids are added, changed statuses become events, bad lines are reported. */
  importText(teamId: string, text: string, now: Date): ImportReport {
    const parsed = parseLedgerText(text);
    const run = new ClaimImport(parsed);
    this.transaction(() => {
      for (const { line, claim } of parsed.claims) {
        const w = run.line(line, claim, this.find(teamId, claim.id));
        if (w.write === "insert") this.insert(teamId, claim, now);
        else if (w.write === "event") this.event(teamId, claim.id, w.kind, w.wanted, now);
      }
      for (const l of run.links()) {
        if (run.link(l, this.find(teamId, l.old))) this.markSuperseded(teamId, l.old, l.id, now);
      }
    });
    return run.done();
  }

  /** The whole ledger as JSON Lines (one claim a line, current state), which importText reads back unchanged. */
  exportText(teamId: string): string {
    const rows = (this.s.all.all(teamId) as RawClaim[]).map(toRow);
    return rows.map((r) => `${ledgerLineText(r)}\n`).join("");
  }

  private insert(teamId: string, c: LedgerLine, now: Date): void {
    this.s.insert.run(...claimValues(teamId, c, now));
    sqliteChain(this.sqlite).append(teamId, "claims", [c.id]);
    this.event(teamId, c.id, "created", c, now);
  }

  private event(teamId: string, id: string, kind: EventKind, state: EventState, now: Date): void {
    const info = this.s.event.run(...eventValues(teamId, id, kind, state, now));
    sqliteChain(this.sqlite).append(teamId, "claim_events", [info.lastInsertRowid]);
  }

  private markSuperseded(teamId: string, id: string, byId: string, now: Date): void {
    const c = this.get(teamId, id);
    // A demoted claim stays demoted when replaced: it was wrong, and its watch must keep catching it.
    const status: ClaimStatus = c.status === "demoted" ? "demoted" : "superseded";
    this.event(teamId, id, "superseded", { ...c, status, superseded_by: byId }, now);
  }
}

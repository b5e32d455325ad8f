// A claim as both engines store it: the claim row joined to its latest event, read into the ClaimRow the port answers.
import { normaliseKey } from "../../gates/values.js";
import type { ClaimRow, ClaimStatus, EventKind, ImportReport, NewClaim } from "../model.js";
import type { LedgerLine, LineWarning, SkippedLine } from "./claims-jsonl.js";

/** A claim joined to its latest event, as the CURRENT_CLAIM query returns it. */
export type RawClaim = {
  id: string;
  text: string;
  key: string | null;
  value: string | null;
  supersedes: string | null;
  created_at: string;
  status: ClaimStatus;
  reason: string | null;
  demoted_by: string | null;
  watch: string | null;
  superseded_by: string | null;
  updated_at: string;
};

const parseJson = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** The stored claim as the port answers it. */
export const claimRow = (r: RawClaim): ClaimRow => ({
  id: r.id,
  text: r.text,
  key: r.key,
  value: parseJson(r.value),
  status: r.status,
  reason: r.reason,
  demoted_by: r.demoted_by,
  watch: r.watch,
  supersedes: (parseJson(r.supersedes) as string[] | null) ?? [],
  superseded_by: r.superseded_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

// The latest event of each claim is its state; claim_events_team_claim_idx answers max(id) per claim.
/** The join condition that picks a claim's latest event. */
export const LATEST_EVENT =
  "e.id = (SELECT max(x.id) FROM claim_events x WHERE x.team_id = c.team_id AND x.claim_id = c.id)";
/** Every claim with its current state (append the WHERE and ORDER BY in each dialect's placeholders). */
export const CURRENT_CLAIM = `SELECT c.id, c.text, c.key, c.value, c.supersedes, c.created_at, e.status, e.reason, e.demoted_by, e.watch, e.superseded_by,
  e.created_at AS updated_at FROM claims c JOIN claim_events e ON ${LATEST_EVENT}`;

/** True when two stored values are the same JSON. */
export const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The ledger line a new claim starts as: live or demoted as asked, superseding what it names, superseded by none. */
export function newClaimLine(id: string, input: NewClaim, supersedes: string[]): LedgerLine {
  return {
    id,
    text: input.text,
    key: input.key ?? null,
    value: input.value ?? null,
    status: input.status,
    reason: input.reason ?? null,
    demoted_by: input.demoted_by ?? null,
    watch: input.watch ?? null,
    supersedes,
    superseded_by: null,
  };
}

/** What importing one well-formed line does to a claim already in the ledger. */
export type ImportStep =
  | { action: "skip"; reason: string }
  | { action: "unchanged" }
  | { action: "event"; kind: Exclude<EventKind, "created">; wanted: LedgerLine };

/**
 * The step for a line whose id the ledger holds: a changed text, key, value or supersedes is refused (claims are
 * immutable); the same state is unchanged; another status becomes an event.
 */
export function importStep(claim: LedgerLine, existing: ClaimRow): ImportStep {
  const content = (["text", "key", "value", "supersedes"] as const).filter(
    (f) => !sameJson(f === "key" && claim.key !== null ? normaliseKey(claim.key) : claim[f], existing[f]),
  );
  if (content.length > 0)
    return {
      action: "skip",
      reason:
        `claim '${claim.id}' is already in the ledger with a different ${content.join(", ")}; ` +
        `claims are immutable, so give the changed claim its own id and name '${claim.id}' in supersedes`,
    };
  // superseded_by is our extension of the format: a line without it keeps the ledger's.
  const wanted = { ...claim, superseded_by: claim.superseded_by ?? existing.superseded_by };
  const state = ["status", "reason", "demoted_by", "watch", "superseded_by"] as const;
  if (state.every((f) => existing[f] === wanted[f])) return { action: "unchanged" };
  const kind = wanted.status === "demoted" ? "demoted" : wanted.status === "superseded" ? "superseded" : "restored";
  return { action: "event", kind, wanted };
}

/** A claim's insert values, in the column order (id, team_id, text, key, value, supersedes, created_at). */
export function claimValues(teamId: string, c: LedgerLine, now: Date): (string | null)[] {
  return [
    c.id,
    teamId,
    c.text,
    c.key === null ? null : normaliseKey(c.key),
    c.value === null || c.value === undefined ? null : JSON.stringify(c.value),
    c.supersedes.length > 0 ? JSON.stringify(c.supersedes) : null,
    now.toISOString(),
  ];
}

/** The state a claim event carries: the claim's status and the fields that go with it. */
export type EventState = Pick<LedgerLine, "status" | "reason" | "demoted_by" | "watch" | "superseded_by">;

/**
 * An event's insert values, in the column order (team_id, claim_id, kind, status, reason, demoted_by, watch,
 * superseded_by, created_at).
 */
export function eventValues(
  teamId: string,
  id: string,
  kind: EventKind,
  state: EventState,
  now: Date,
): (string | null)[] {
  return [
    teamId,
    id,
    kind,
    state.status,
    state.reason,
    state.demoted_by,
    state.watch,
    state.superseded_by,
    now.toISOString(),
  ];
}

/** One supersedes reference of an imported line: the line, the claim on it, and the id it names. */
export type SupersedesLink = { line: number; id: string; old: string };

/**
 * One claims import as both engines run it: each engine reads the ledger and writes the rows, this decides per line
 * and keeps the report. Lines go first (`line`), then the supersedes references of the lines taken (`links`, `link`).
 */
export class ClaimImport {
  private readonly report: ImportReport;
  private readonly accepted: { line: number; claim: LedgerLine }[] = [];

  constructor(parsed: { skipped: readonly SkippedLine[]; warnings: readonly LineWarning[] }) {
    this.report = {
      imported: 0,
      updated: 0,
      unchanged: 0,
      skipped: [...parsed.skipped],
      warnings: [...parsed.warnings],
    };
  }

  /** Records one line, given the ledger's claim of its id (or null), and says what to write for it. */
  line(
    line: number,
    claim: LedgerLine,
    existing: ClaimRow | null,
  ):
    | { write: "insert" }
    | { write: "none" }
    | { write: "event"; kind: Exclude<EventKind, "created">; wanted: LedgerLine } {
    if (!existing) {
      this.report.imported += 1;
      this.accepted.push({ line, claim });
      return { write: "insert" };
    }
    const step = importStep(claim, existing);
    if (step.action === "skip") {
      this.report.skipped.push({ line, reason: step.reason });
      this.report.warnings = this.report.warnings.filter((w) => w.line !== line);
      return { write: "none" };
    }
    this.accepted.push({ line, claim });
    if (step.action === "unchanged") {
      this.report.unchanged += 1;
      return { write: "none" };
    }
    this.report.updated += 1;
    return { write: "event", kind: step.kind, wanted: step.wanted };
  }

  /** The supersedes references of the lines taken, in line order; call once every line is recorded. */
  links(): SupersedesLink[] {
    return this.accepted.flatMap(({ line, claim }) => claim.supersedes.map((old) => ({ line, id: claim.id, old })));
  }

  /** Records a reference given the claim it names (or null): true when that claim must be marked superseded. */
  link(l: SupersedesLink, target: ClaimRow | null): boolean {
    if (!target) {
      this.report.warnings.push({
        line: l.line,
        id: l.id,
        field: "supersedes",
        reason: `no claim '${l.old}' in the ledger or the file; the reference is kept but supersedes nothing yet`,
      });
      return false;
    }
    return target.superseded_by !== l.id;
  }

  /** The report, its warnings in line order. */
  done(): ImportReport {
    this.report.warnings.sort((a, b) => a.line - b.line);
    return this.report;
  }
}

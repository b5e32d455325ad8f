// What the ledger locators of one evaluation ask of a store, as a few lists for batch queries (one query per list on
// either engine), and how the answers are put back into one scope per locator.
import type { EvidenceSnapshot, LedgerCrossing, WellFormedLocator, RevisedState } from "../../gates/ports.js";
import { tryConvert } from "../../quantity/units.js";

/** A call named by a locator: its session and sequence number. */
export type CallKey = readonly [sessionId: string, seq: number];

/** Distinct keys in first-seen order, each with its position in the list a batch query is sent. */
class Keys<K> {
  readonly list: K[] = [];
  private readonly at = new Map<string, number>();
  constructor(private readonly name: (k: K) => string) {}
  add(k: K): void {
    const n = this.name(k);
    if (!this.at.has(n)) this.at.set(n, this.list.push(k) - 1);
  }
  /** The key's position in `list`, or -1. */
  index(k: K): number {
    return this.at.get(this.name(k)) ?? -1;
  }
}

const callName = ([id, seq]: CallKey): string => `${seq}/${id}`;

/** What the store found for a plan, by position in the plan's lists. */
export type ScopeAnswers = {
  /** Positions in `sessions` of the sessions the team has. */
  sessions: ReadonlySet<number>;
  /** Positions in `calls` of the calls the team has. */
  calls: ReadonlySet<number>;
  /** The usable return crossings of each session of `whole`, by position (absent: none). */
  whole: ReadonlyMap<number, LedgerCrossing[]>;
  /** The usable return crossings of each call of `parts`, by position (absent: none). */
  parts: ReadonlyMap<number, LedgerCrossing[]>;
  /** Each crossing of `crossings` the team has, by position: itself when usable, else empty (absent: unknown). */
  crossings: ReadonlyMap<number, LedgerCrossing[]>;
};

/**
 * The lists one evaluation's locators need: every session named (to know it is the team's), the sessions cited whole,
 * every call named, the calls whose session is not cited whole (a call of a session cited whole is read from the
 * session's rows), and the crossings named by id.
 */
export class ScopePlan {
  private readonly sessionKeys = new Keys<string>((x) => x);
  private readonly wholeKeys = new Keys<string>((x) => x);
  private readonly callKeys = new Keys<CallKey>(callName);
  private readonly partKeys = new Keys<CallKey>(callName);
  private readonly crossingKeys = new Keys<number>(String);

  constructor(private readonly locators: readonly WellFormedLocator[]) {
    for (const l of locators) {
      if (l.kind === "crossing") this.crossingKeys.add(l.crossingId);
      else this.sessionKeys.add(l.sessionId);
      if (l.kind === "session") this.wholeKeys.add(l.sessionId);
      if (l.kind === "call") this.callKeys.add([l.sessionId, l.seq]);
    }
    for (const c of this.callKeys.list) if (this.wholeKeys.index(c[0]) < 0) this.partKeys.add(c);
  }

  /** Every session named, whole or by one of its calls. */
  get sessions(): readonly string[] {
    return this.sessionKeys.list;
  }
  /** The sessions cited whole. */
  get whole(): readonly string[] {
    return this.wholeKeys.list;
  }
  /** Every call named. */
  get calls(): readonly CallKey[] {
    return this.callKeys.list;
  }
  /** The calls whose crossings are asked for on their own (their session is not cited whole). */
  get parts(): readonly CallKey[] {
    return this.partKeys.list;
  }
  /** The crossings named by id. */
  get crossings(): readonly number[] {
    return this.crossingKeys.list;
  }

  /** One scope per locator text (see EvidenceResolver.scope), each in recording order. */
  assemble(a: ScopeAnswers): EvidenceSnapshot {
    for (const m of [a.whole, a.parts]) for (const list of m.values()) list.sort((x, y) => x.id - y.id);
    const out = new Map<string, LedgerCrossing[] | null>();
    for (const l of this.locators) out.set(l.text, this.scope(l, a));
    return out;
  }

  private scope(l: WellFormedLocator, a: ScopeAnswers): LedgerCrossing[] | null {
    if (l.kind === "crossing") return a.crossings.get(this.crossingKeys.index(l.crossingId)) ?? null;
    if (!a.sessions.has(this.sessionKeys.index(l.sessionId))) return null;
    const w = this.wholeKeys.index(l.sessionId);
    if (l.kind === "session") return a.whole.get(w) ?? [];
    if (!a.calls.has(this.callKeys.index([l.sessionId, l.seq]))) return null;
    if (w >= 0) return (a.whole.get(w) ?? []).filter((x) => x.seq === l.seq);
    return a.parts.get(this.partKeys.index([l.sessionId, l.seq])) ?? [];
  }
}

/** Rows of a batch query grouped by the list position they answer; `keep` says whether a row's crossing is usable. */
export function groupByPosition<R>(
  rows: readonly R[],
  at: (r: R) => number,
  keep: (r: R) => boolean,
  crossing: (r: R) => LedgerCrossing,
): Map<number, LedgerCrossing[]> {
  const out = new Map<number, LedgerCrossing[]>();
  for (const r of rows) {
    let list = out.get(at(r));
    if (!list) out.set(at(r), (list = []));
    if (keep(r)) list.push(crossing(r));
  }
  return out;
}

/** How far a chain of revisions is followed (each link is one indexed look-up). */
export const MAX_CHAIN = 64;

/** A series as stored (the raw value as sent), in the crossing's unit; null when it cannot be read as one. */
export function seriesOf(raw: string, unit: string): (number | null)[] | null {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  let from = unit;
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    const o = v as { value?: unknown; unit?: unknown };
    if (typeof o.unit === "string") from = o.unit;
    v = o.value;
  }
  if (!Array.isArray(v)) return null;
  return v.map((x) => (typeof x === "number" ? tryConvert(x, from, unit) : null));
}

/** A crossing's latest revision as both resolvers select it (columns of revisions). */
export type RevisionStepRow = {
  id: string;
  after_crossing_id: number | null;
  after_value: number;
  after_unit: string;
  after_quality: string | null;
  detected_at: string;
};

/** The revised state one revision leads to (PostgreSQL may answer the bigint crossing id as text). */
export function revisedStep(r: RevisionStepRow): RevisedState {
  return {
    revision_id: r.id,
    value: r.after_value,
    unit: r.after_unit,
    quality: r.after_quality,
    detected_at: r.detected_at,
    crossing_id: r.after_crossing_id === null ? null : Number(r.after_crossing_id),
  };
}

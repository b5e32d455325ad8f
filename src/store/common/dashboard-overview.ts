// The overview's figures from any engine's per-day aggregate rows, with closed days kept for the store's lifetime.
import type { Overview } from "../dashboard.js";
import type { Window } from "../dashboard.js";

/** The figures of one day. */
export type DayFigures = {
  sessions: number;
  calls: number;
  refused: number;
  converted: number;
  audited: number;
  unsourced: number;
  released: number;
  blocked: number;
  codes: Map<string, number>;
};

/** How long after its end a day is taken as final (clock skew between processes, a call in flight at midnight). */
export const CLOSED_AFTER_MS = 10 * 60_000;

const DAY_MS = 86_400_000;

const empty = (): DayFigures => ({
  sessions: 0,
  calls: 0,
  refused: 0,
  converted: 0,
  audited: 0,
  unsourced: 0,
  released: 0,
  blocked: 0,
  codes: new Map(),
});

type Row = { day: string; n: number };

/** The rows of the six per-day aggregates over one range, as either engine answers them. */
export type DayRows = {
  sessions: Row[];
  calls: (Row & { refused: number })[];
  converted: Row[];
  codes: (Row & { code: string })[];
  audited: (Row & { unsourced: number })[];
  evaluations: { day: string; released: number; blocked: number }[];
};

/** Reads the six aggregates of a team over [since, until). */
export type ReadDays = (teamId: string, since: string, until: string) => Promise<DayRows>;

/** Every day of [since, until) with its figures, from one query per figure over the whole range. */
async function query(read: ReadDays, teamId: string, since: string, until: string): Promise<Map<string, DayFigures>> {
  const days = new Map<string, DayFigures>();
  for (let t = Date.parse(since); t < Date.parse(until); t += DAY_MS)
    days.set(new Date(t).toISOString().slice(0, 10), empty());
  const at = (day: string) => days.get(day) ?? days.set(day, empty()).get(day)!;
  const rows = await read(teamId, since, until);
  for (const r of rows.sessions) at(r.day).sessions = r.n;
  for (const r of rows.calls) Object.assign(at(r.day), { calls: r.n, refused: r.refused });
  for (const r of rows.converted) at(r.day).converted = r.n;
  for (const r of rows.codes) at(r.day).codes.set(r.code, r.n);
  for (const r of rows.audited) Object.assign(at(r.day), { audited: r.n, unsourced: r.unsourced });
  for (const r of rows.evaluations) Object.assign(at(r.day), { released: r.released, blocked: r.blocked });
  return days;
}

/** Closed days' figures by "team/day": they never change, so one engine's store keeps them for its lifetime. */
export type ClosedDays = Map<string, DayFigures>;

/** The figures of each day of the window: closed days from memory (or one query for those not seen), the rest live. */
async function figures(
  read: ReadDays,
  closed: ClosedDays,
  teamId: string,
  w: Window,
  now: Date,
): Promise<Map<string, DayFigures>> {
  const openFrom = Math.floor((now.getTime() - CLOSED_AFTER_MS) / DAY_MS) * DAY_MS;
  const out = new Map<string, DayFigures>();
  let missing: number | null = null;
  const end = Math.min(Date.parse(w.until), openFrom);
  for (let t = Date.parse(w.since); t < end; t += DAY_MS) {
    const hit = closed.get(`${teamId}/${new Date(t).toISOString().slice(0, 10)}`);
    if (hit === undefined) missing ??= t;
  }
  if (missing !== null) {
    const since = new Date(missing).toISOString();
    for (const [day, f] of await query(read, teamId, since, new Date(end).toISOString()))
      closed.set(`${teamId}/${day}`, f);
  }
  for (let t = Date.parse(w.since); t < end; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.set(day, closed.get(`${teamId}/${day}`) ?? empty());
  }
  const liveFrom = new Date(Math.max(Date.parse(w.since), openFrom)).toISOString();
  if (liveFrom < w.until) for (const [day, f] of await query(read, teamId, liveFrom, w.until)) out.set(day, f);
  return out;
}

/** The overview of a team's ledger over a window of whole UTC days, from any engine's per-day aggregates. */
export async function overviewFrom(
  read: ReadDays,
  closed: ClosedDays,
  teamId: string,
  w: Window,
  now: Date,
): Promise<Overview> {
  const days = [...(await figures(read, closed, teamId, w, now)).entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const sum = (get: (f: DayFigures) => number) => days.reduce((a, [, f]) => a + get(f), 0);
  return {
    sessions: sum((f) => f.sessions),
    calls: sum((f) => f.calls),
    refusedCalls: sum((f) => f.refused),
    auditedNumbers: sum((f) => f.audited),
    unsourcedNumbers: sum((f) => f.unsourced),
    evaluations: sum((f) => f.released + f.blocked),
    blockedEvaluations: sum((f) => f.blocked),
    callsPerDay: days
      .filter(([, f]) => f.calls > 0)
      .map(([day, f]) => ({
        day,
        converted: f.converted,
        passed: f.calls - f.refused - f.converted,
        refused: f.refused,
      })),
    refusalsByCode: days.flatMap(([day, f]) =>
      [...f.codes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([code, count]) => ({ day, code, count })),
    ),
    evaluationsPerDay: days
      .filter(([, f]) => f.released + f.blocked > 0)
      .map(([day, f]) => ({ day, released: f.released, blocked: f.blocked })),
  };
}

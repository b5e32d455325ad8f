// The revision watch: re-reads the provisional or estimated USGS readings that released evaluations rest on, one
// request per (site, collection, parameter, page) per interval, asking only for records modified since the last look,
// and records each changed observation as a later reading, so the store detects the revision and its affected reports.
import { flagsKey } from "../../quantity/quality.js";
import type { LedgerStore, WatchedReading, WatchRepo, WatchState } from "../../store/port.js";
import { PackRateLimitError } from "../errors.js";
import { gageDatumName } from "../usgs.js";
import type { OgcClient } from "./client.js";
import { type OgcSite, parseOgcReading, type ReadingCollection, seriesFeatures } from "./pack.js";
import { differs, flagsChange } from "../../store/common/revision-rules.js";

/** How a pass runs. */
export type WatchOptions = {
  intervalMs: number;
  now: () => Date;
  /** Ignore the schedule (the CLI's --once): every group is read now. */
  force?: boolean;
  /** Stop the pass when USGS says this few requests remain this hour. */
  reserve?: number;
};

/** What one pass did. */
export type WatchPass = {
  watched: number;
  groups: number;
  /** Groups not yet due (read less than an interval ago). */
  skipped: number;
  requests: number;
  /** Re-reads recorded because the value, the quality or the qualifier flags changed (each is a revision). */
  revised: number;
  /** Why the pass stopped early (the rate limit), or null. */
  stopped: string | null;
  errors: string[];
  /** The earliest time any watched series is due again (null: nothing is watched). */
  next_due: string | null;
};

/** The caller's view: `GET /v1/revisions/watch`. */
export type WatchStatus = { watched: number; last_run: string | null; next_run: string | null; requests: number };

const SOURCE = /^usgs:(\d{8,15}):(\d{5}):([0-9a-zA-Z-]+)$/;
/** The tool name the watch's re-reads are recorded under. */
export const WATCH_TOOL = "usgs.watch";

type Parsed = WatchedReading & { site: string; parameter: string; series: string; collection: "continuous" | "daily" };

function parse(r: WatchedReading): Parsed | null {
  const m = SOURCE.exec(r.source);
  if (!m) return null;
  return {
    ...r,
    site: m[1]!,
    parameter: m[2]!,
    series: m[3]!,
    collection: r.tool === "usgs.daily" ? "daily" : "continuous",
  };
}

/** The group key a request serves: site, collection and parameter. */
const groupKey = (p: Parsed) => `USGS-${p.site}|${p.collection}|${p.parameter}|`;

/** The observation key of a watched reading or a returned row: series and instant (daily: the date). */
const obsKey = (series: string, collection: ReadingCollection, time: string) =>
  `${series}|${collection === "daily" ? time.slice(0, 10) : new Date(time).toISOString()}`;

/** A site record with only what reading a row needs: the gage datum, and the watched reading's own offset for daily dates. */
function siteFor(p: Parsed): OgcSite {
  const offset = /([+-]\d{2}):?(\d{2})$/.exec(p.observed_at);
  const zone = offset ? `UTC${offset[1]}:${offset[2]}` : "UTC";
  return {
    id: p.site,
    monitoring_location_id: `USGS-${p.site}`,
    name: p.site,
    timezone: zone,
    horizontal_crs: null,
    latitude: null,
    longitude: null,
    altitude: null,
    altitude_accuracy: null,
    datum: gageDatumName(p.site),
    datum_offset: null,
    vertical_datum: null,
    drainage_area: null,
    drainage_area_mi2: null,
    warnings: [],
  };
}

const PAGE = 1000;

/** Every watched reading, read a page at a time with a turn of the event loop between pages, so guarded calls go on. */
async function allWatched(repo: WatchRepo, teamId?: string): Promise<WatchedReading[]> {
  const out = new Map<number, WatchedReading>();
  for (let after = 0; ; ) {
    const page = await repo.watched(teamId, { after, limit: PAGE });
    for (const r of page.rows) out.set(r.crossing_id, r);
    if (page.next === null) return [...out.values()].sort((a, b) => a.crossing_id - b.crossing_id);
    after = page.next;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The team's watch status: how many readings are watched, when the watch last ran and runs next, and its requests. */
export async function watchStatus(repo: WatchRepo, teamId: string): Promise<WatchStatus> {
  const watched = (await allWatched(repo, teamId)).filter((r) => parse(r) !== null).length;
  const states = await repo.states(teamId);
  const last = states.map((s) => s.last_run).filter((x): x is string => x !== null);
  const next = states.map((s) => s.next_run).filter((x): x is string => x !== null);
  return {
    watched,
    last_run: last.length ? last.sort().at(-1)! : null,
    next_run: next.length ? next.sort()[0]! : null,
    requests: states.reduce((n, s) => n + s.requests, 0),
  };
}

/** One pass over every team's watched readings. */
export async function watchPass(store: LedgerStore, client: OgcClient, opts: WatchOptions): Promise<WatchPass> {
  const repo = store.watch;
  const now = opts.now();
  const out: WatchPass = {
    watched: 0,
    groups: 0,
    skipped: 0,
    requests: 0,
    revised: 0,
    stopped: null,
    errors: [],
    next_due: null,
  };
  const due = (iso: string) => {
    if (out.next_due === null || iso < out.next_due) out.next_due = iso;
  };
  const watched = (await allWatched(repo)).map(parse).filter((p): p is Parsed => p !== null);
  out.watched = watched.length;
  const groups = new Map<string, Parsed[]>();
  for (const p of watched) {
    const list = groups.get(groupKey(p));
    if (list) list.push(p);
    else groups.set(groupKey(p), [p]);
  }
  const all = await repo.states();
  const states = new Map(all.map((s) => [`${s.team_id}\u0000${s.series_key}`, s]));
  const sessions = new Map(all.map((s) => [s.team_id, s.session_id]));
  const saved: WatchState[] = [];
  for (const [key, readings] of groups) {
    out.groups++;
    const teams = [...new Set(readings.map((r) => r.team_id))];
    const stateOf = (team: string) => states.get(`${team}\u0000${key}`);
    const isDue = opts.force || teams.some((t) => (stateOf(t)?.next_run ?? "") <= now.toISOString());
    if (!isDue) {
      out.skipped++;
      for (const t of teams) if (stateOf(t)?.next_run) due(stateOf(t)!.next_run!);
      continue;
    }
    if (client.rateRemaining !== null && client.rateRemaining <= (opts.reserve ?? 5)) {
      out.stopped = `USGS says ${client.rateRemaining} requests remain this hour; the rest waits for the next pass`;
      due(new Date(now.getTime() + Math.min(opts.intervalMs, 15 * 60_000)).toISOString());
      break;
    }
    const first = readings[0]!;
    // Never looked: ask for what changed since the team first read the oldest of these readings.
    const firstRead = (t: string) =>
      readings.filter((r) => r.team_id === t).reduce((a, r) => (r.created_at < a ? r.created_at : a), "9");
    const since = teams.map((t) => stateOf(t)?.last_look ?? firstRead(t)).sort()[0]!;
    const times = readings.map((r) => new Date(r.observed_utc).getTime());
    // A daily value's date is local: a day either side keeps every zone's date inside the window; an instant gets a
    // minute either side, so the window is never empty whatever the service makes of its ends.
    const pad = first.collection === "daily" ? 86_400_000 : 60_000;
    const before = client.requests;
    let features: unknown[] | null = null;
    try {
      features = await seriesFeatures(client, `USGS-${first.site}`, first.collection, {
        parameter: first.parameter,
        from: new Date(Math.min(...times) - pad),
        to: new Date(Math.max(...times) + pad),
        lastModifiedSince: since,
      });
    } catch (e) {
      if (e instanceof PackRateLimitError) {
        out.requests += client.requests - before;
        out.stopped = e.message;
        due(new Date(now.getTime() + e.retryAfter * 1000).toISOString());
        break;
      }
      // Any other failure waits for the next interval too (never re-read faster), and keeps its last look.
      out.errors.push(`${key}: ${(e as Error).message}`);
    }
    const used = client.requests - before;
    out.requests += used;
    if (features !== null) out.revised += await recordChanges(store, readings, features, sessions);
    for (const team of teams) {
      const prev = stateOf(team);
      const session = await ensureSession(store, sessions, team);
      saved.push({
        team_id: team,
        series_key: key,
        site: `USGS-${first.site}`,
        collection: first.collection,
        parameter: first.parameter,
        statistic: null,
        session_id: session,
        last_look: features === null ? (prev?.last_look ?? null) : now.toISOString(),
        last_run: now.toISOString(),
        next_run: new Date(now.getTime() + opts.intervalMs).toISOString(),
        requests: (prev?.requests ?? 0) + used,
      });
    }
    due(new Date(now.getTime() + opts.intervalMs).toISOString());
  }
  if (saved.length) await repo.save(saved);
  return out;
}

/** Records every returned row that changes a watched reading; answers how many were recorded. */
async function recordChanges(
  store: LedgerStore,
  readings: readonly Parsed[],
  features: readonly unknown[],
  sessions: Map<string, string>,
): Promise<number> {
  const byObs = new Map<string, Parsed[]>();
  for (const r of readings) {
    const k = obsKey(r.series, r.collection, r.collection === "daily" ? r.observed_at : r.observed_utc);
    const list = byObs.get(k);
    if (list) list.push(r);
    else byObs.set(k, [r]);
  }
  let n = 0;
  for (const f of features) {
    const p = (f as { properties?: Record<string, unknown> }).properties ?? {};
    if (typeof p.time_series_id !== "string" || typeof p.time !== "string") continue;
    const hits = byObs.get(obsKey(p.time_series_id, readings[0]!.collection, p.time));
    if (!hits) continue;
    for (const w of hits) {
      const r = parseOgcReading(f, siteFor(w), w.collection, []);
      if (r === null || r.quantity === null) continue;
      const q = r.quantity;
      const changed =
        differs({ value: w.value, unit: w.unit }, { value: q.value as number, unit: q.unit }) !== false ||
        (q.quality ?? null) !== w.quality ||
        flagsChange(w.flags, flagsKey(q.flags)) !== null;
      if (!changed) continue;
      const session = await ensureSession(store, sessions, w.team_id);
      await store.packs.record(w.team_id, session, WATCH_TOOL, [
        { args: { site: w.site, parameter: w.parameter, series: w.series, time: w.observed_at }, quantity: q },
      ]);
      n++;
    }
  }
  return n;
}

/** The team's watch session, opened on first use. */
async function ensureSession(store: LedgerStore, sessions: Map<string, string>, teamId: string): Promise<string> {
  const known = sessions.get(teamId);
  if (known) return known;
  const s = await store.sessions.create(teamId, { context: "revision watch: USGS readings re-read by agent-ledger" });
  sessions.set(teamId, s.id);
  return s.id;
}

/** A running watch loop. */
export type WatchLoop = { stop(): void; ticks: number };

/**
 * Runs passes until stopped: the first soon after start, then every `tickMs` (at most a minute), each reading only the
 * groups whose interval has passed; passes never overlap. `onPass` hears each result (or failure) for the log.
 */
export function startWatchLoop(
  store: LedgerStore,
  client: OgcClient,
  opts: WatchOptions & { tickMs?: number; onPass?: (p: WatchPass | Error) => void },
): WatchLoop {
  const tick = opts.tickMs ?? Math.min(opts.intervalMs, 60_000);
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  // Between passes a tick reads one number: a pass runs only when a series is due or a new reading came under watch.
  let nextDue: string | null = null;
  let marker: number | null = null;
  const loop: WatchLoop = { stop: () => clearTimeout(timer), ticks: 0 };
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const m = (await store.watch.marker()) ?? 0;
      if (m !== marker || nextDue === null || nextDue <= opts.now().toISOString()) {
        const p = await watchPass(store, client, { ...opts, force: false });
        marker = m;
        nextDue = p.next_due ?? new Date(opts.now().getTime() + opts.intervalMs).toISOString();
        opts.onPass?.(p);
      }
    } catch (e) {
      opts.onPass?.(e as Error);
    } finally {
      running = false;
      loop.ticks++;
      timer = setTimeout(() => void run(), tick);
      timer.unref();
    }
  };
  timer = setTimeout(() => void run(), Math.min(tick, 1000));
  timer.unref();
  loop.stop = () => clearTimeout(timer);
  return loop;
}

/** One line saying what a pass did. */
export function watchSummary(p: WatchPass): string {
  const parts = [
    `${p.watched} reading${p.watched === 1 ? "" : "s"} watched in ${p.groups} series`,
    `${p.requests} request${p.requests === 1 ? "" : "s"} to USGS`,
    `${p.revised} revision${p.revised === 1 ? "" : "s"} recorded`,
  ];
  if (p.skipped) parts.push(`${p.skipped} series not due yet`);
  if (p.stopped) parts.push(`stopped: ${p.stopped}`);
  for (const e of p.errors) parts.push(`error: ${e}`);
  return parts.join("; ");
}

// Gateway upstreams in the store: each team's pinned tool definitions and their drifts (tables upstream_pins and
// upstream_drifts). observe() runs the pure pin check inside one transaction; approve() turns open drifts into pins.
// The SQLite repository is here; src/store/pg/upstreams.ts is its PostgreSQL twin over the same plans.
import type { Database } from "better-sqlite3";
import type { Clock } from "../../clock.js";
import type { PinMode } from "../../gateway/config.js";
import { checkPins, type Drift, type Pin, type PinCheck, type ToolDefinition, toolDigest } from "../../gateway/pins.js";
import { NotFoundError } from "../common/errors.js";

/** A stored drift, with the row id approval refers to. */
export type StoredDrift = Drift & { id: number };

/** One upstream as GET /v1/upstreams answers it. */
export type UpstreamState = {
  name: string;
  tools: { name: string; digest: string; pinned_at: string }[];
  drifts: Drift[];
};

/** What an approval did: the drifts it approved, oldest first. */
export type Approval = { upstream: string; approved: Drift[] };

/** Pins and drifts of the gateway's upstreams; every method is scoped to a team. */
export interface UpstreamsRepo {
  /** Checks a new tools/list against the upstream's pins in one transaction, stores new pins and drifts, answers the check. */
  observe(teamId: string, upstream: string, mode: PinMode, listed: readonly ToolDefinition[]): Promise<PinCheck>;
  /** Approves the open drifts of one tool (or all of the upstream's): the new definitions become the pins. */
  approve(teamId: string, upstream: string, tool?: string): Promise<Approval>;
  /** Every upstream of the team with pins or drifts, by name; tools by name, drifts oldest first. */
  list(teamId: string): Promise<UpstreamState[]>;
}

/** What an approval writes: pins to put (replacing), pins to remove, drifts to stamp. */
export type ApprovalPlan = { put: Pin[]; remove: string[]; approve: StoredDrift[] };

/**
 * Plans an approval from the upstream's pins and open drifts. A `changed` or `added` drift pins its new definition,
 * a `removed` one drops the pin; the latest open drift of a tool decides. NotFoundError for an unknown upstream, or a
 * tool with neither pin nor drift.
 */
export function planApproval(
  upstream: string,
  pins: readonly Pin[],
  open: readonly StoredDrift[],
  tool: string | undefined,
  now: string,
): ApprovalPlan {
  if (pins.length === 0 && open.length === 0)
    throw new NotFoundError(
      `no upstream named '${upstream}' in this team; an upstream is listed once the gateway has served it`,
    );
  if (tool !== undefined && !pins.some((p) => p.tool === tool) && !open.some((d) => d.tool === tool))
    throw new NotFoundError(`upstream '${upstream}' has no tool '${tool}' pinned or drifted; see GET /v1/upstreams`);
  const approve = open.filter((d) => tool === undefined || d.tool === tool);
  const latest = new Map<string, StoredDrift>();
  for (const d of approve) latest.set(d.tool, d);
  const plan: ApprovalPlan = { put: [], remove: [], approve };
  for (const d of latest.values()) {
    if (d.after === null) plan.remove.push(d.tool);
    else plan.put.push({ tool: d.tool, definition: d.after, digest: toolDigest(d.after), pinned_at: now });
  }
  return plan;
}

/** Groups pins and drifts rows into the listing's shape. */
export function upstreamStates(
  pins: readonly (Pin & { upstream: string })[],
  drifts: readonly (Drift & { upstream: string })[],
) {
  const by = new Map<string, UpstreamState>();
  const of = (name: string) => {
    let s = by.get(name);
    if (!s) by.set(name, (s = { name, tools: [], drifts: [] }));
    return s;
  };
  for (const p of pins) of(p.upstream).tools.push({ name: p.tool, digest: p.digest, pinned_at: p.pinned_at });
  for (const { upstream, ...d } of drifts) of(upstream).drifts.push(d);
  return [...by.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A row of upstream_pins as read. */
export type PinRaw = { upstream: string; tool: string; definition: string; digest: string; pinned_at: string };
/** A row of upstream_drifts as read. */
export type DriftRaw = {
  id: number;
  upstream: string;
  tool: string;
  kind: Drift["kind"];
  before: string | null;
  after: string | null;
  detected_at: string;
  approved_at: string | null;
};

/** A pins row as a Pin (with its upstream). */
export const pinOf = (r: PinRaw): Pin & { upstream: string } => ({
  upstream: r.upstream,
  tool: r.tool,
  definition: JSON.parse(r.definition) as ToolDefinition,
  digest: r.digest,
  pinned_at: r.pinned_at,
});

/** A drifts row as a StoredDrift (with its upstream). */
export const driftOf = (r: DriftRaw): StoredDrift & { upstream: string } => ({
  id: Number(r.id),
  upstream: r.upstream,
  tool: r.tool,
  kind: r.kind,
  before: r.before === null ? null : (JSON.parse(r.before) as ToolDefinition),
  after: r.after === null ? null : (JSON.parse(r.after) as ToolDefinition),
  detected_at: r.detected_at,
  approved_at: r.approved_at,
});

/** An open drift as the plans take it: with its row id, without its upstream. */
export const openDrift = (r: DriftRaw): StoredDrift => {
  const { upstream: _u, ...d } = driftOf(r);
  return d;
};

/** A drift as listed: without its row id. */
export const listedDrift = ({ id: _id, ...d }: StoredDrift & { upstream: string }): Drift & { upstream: string } => d;

/** Columns of upstream_pins read and written (team_id aside). */
export const PIN_COLS = "upstream, tool, definition, digest, pinned_at";
/** Columns of upstream_drifts read. */
export const DRIFT_COLS = "id, upstream, tool, kind, before, after, detected_at, approved_at";

/** The upstreams repository over a SQLite handle; every write runs in one IMMEDIATE transaction. */
export function sqliteUpstreams(db: Database, clock: Clock): UpstreamsRepo {
  const pinsOf = (team: string, upstream: string) =>
    (
      db
        .prepare(`SELECT ${PIN_COLS} FROM upstream_pins WHERE team_id = ? AND upstream = ? ORDER BY tool`)
        .all(team, upstream) as PinRaw[]
    ).map(pinOf);
  const openOf = (team: string, upstream: string) =>
    (
      db
        .prepare(
          `SELECT ${DRIFT_COLS} FROM upstream_drifts WHERE team_id = ? AND upstream = ? AND approved_at IS NULL ORDER BY id`,
        )
        .all(team, upstream) as DriftRaw[]
    ).map(openDrift);
  const putPin = (team: string, upstream: string, p: Pin) =>
    db
      .prepare(
        `INSERT INTO upstream_pins (team_id, ${PIN_COLS}) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (team_id, upstream, tool) DO UPDATE SET definition = excluded.definition, digest = excluded.digest,
         pinned_at = excluded.pinned_at`,
      )
      .run(team, upstream, p.tool, JSON.stringify(p.definition), p.digest, p.pinned_at);
  const addDrift = (team: string, upstream: string, d: Drift) =>
    db
      .prepare(
        "INSERT INTO upstream_drifts (team_id, upstream, tool, kind, before, after, detected_at, approved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        team,
        upstream,
        d.tool,
        d.kind,
        d.before === null ? null : JSON.stringify(d.before),
        d.after === null ? null : JSON.stringify(d.after),
        d.detected_at,
        d.approved_at,
      );
  return {
    observe: async (team, upstream, mode, listed) =>
      db
        .transaction(() => {
          const check = checkPins({
            upstream,
            mode,
            pins: pinsOf(team, upstream),
            openDrifts: openOf(team, upstream),
            listed,
            now: clock.now().toISOString(),
          });
          for (const p of check.newPins) putPin(team, upstream, p);
          for (const d of check.newDrifts) addDrift(team, upstream, d);
          return check;
        })
        .immediate(),
    approve: async (team, upstream, tool) =>
      db
        .transaction(() => {
          const now = clock.now().toISOString();
          const plan = planApproval(upstream, pinsOf(team, upstream), openOf(team, upstream), tool, now);
          for (const p of plan.put) putPin(team, upstream, p);
          const del = db.prepare("DELETE FROM upstream_pins WHERE team_id = ? AND upstream = ? AND tool = ?");
          for (const t of plan.remove) del.run(team, upstream, t);
          const stamp = db.prepare("UPDATE upstream_drifts SET approved_at = ? WHERE id = ? AND team_id = ?");
          for (const d of plan.approve) stamp.run(now, d.id, team);
          return { upstream, approved: plan.approve.map(({ id: _id, ...d }) => ({ ...d, approved_at: now })) };
        })
        .immediate(),
    list: async (team) => {
      const pins = (
        db
          .prepare(`SELECT ${PIN_COLS} FROM upstream_pins WHERE team_id = ? ORDER BY upstream, tool`)
          .all(team) as PinRaw[]
      ).map(pinOf);
      const drifts = (
        db.prepare(`SELECT ${DRIFT_COLS} FROM upstream_drifts WHERE team_id = ? ORDER BY id`).all(team) as DriftRaw[]
      ).map((r) => listedDrift(driftOf(r)));
      return upstreamStates(pins, drifts);
    },
  };
}

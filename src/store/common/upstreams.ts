// Gateway upstreams' pins and drifts as both engines store them: the rows, the plans of an approval and the listing.
import type { Drift } from "../../gateway/pins.js";
import { NotFoundError } from "./errors.js";
import type { Pin } from "../../gateway/pins.js";
import { toolDigest } from "../../gateway/pins.js";
import type { ToolDefinition } from "../../gateway/pins.js";

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

/** The values of a drift row after its team and upstream, in the order of the INSERT both engines write. */
export function driftValues(team: string, upstream: string, d: Drift): (string | null)[] {
  return [
    team,
    upstream,
    d.tool,
    d.kind,
    d.before === null ? null : JSON.stringify(d.before),
    d.after === null ? null : JSON.stringify(d.after),
    d.detected_at,
    d.approved_at,
  ];
}

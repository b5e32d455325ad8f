// Gateway upstreams in the store: each team's pinned tool definitions and their drifts (tables upstream_pins and
// upstream_drifts). observe() runs the pure pin check inside one transaction; approve() turns open drifts into pins.
// The SQLite repository is here; src/store/pg/upstreams.ts is its PostgreSQL twin over the same plans.
import type { Database } from "better-sqlite3";
import type { Clock } from "../../clock.js";
import { checkPins, type Drift, type Pin } from "../../gateway/pins.js";
import type { UpstreamsRepo } from "../port.js";
import type { DriftRaw, PinRaw } from "../common/upstreams.js";
import {
  DRIFT_COLS,
  PIN_COLS,
  driftOf,
  listedDrift,
  openDrift,
  pinOf,
  planApproval,
  upstreamStates,
} from "../common/upstreams.js";
import { driftValues } from "../common/upstreams.js";

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
      .run(driftValues(team, upstream, d));
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

// Gateway upstreams in the store: each team's pinned tool definitions and their drifts (tables upstream_pins and
// upstream_drifts). observe() runs the pure pin check inside one transaction; approve() turns open drifts into pins.
// The SQLite repository is here; src/store/pg/upstreams.ts is its PostgreSQL twin over the same plans.
import type { Database } from "better-sqlite3";
import type { Clock } from "../../clock.js";
import { checkPins, type Drift, type Pin } from "../../gateway/pins.js";
import type { UpstreamsRepo } from "../port.js";
import * as plans from "../common/upstreams.js";

/** The upstreams repository over a SQLite handle; every write runs in one IMMEDIATE transaction. */
export function sqliteUpstreams(db: Database, clock: Clock): UpstreamsRepo {
  const pinsOf = (team: string, upstream: string) =>
    (
      db
        .prepare(`SELECT ${plans.PIN_COLS} FROM upstream_pins WHERE team_id = ? AND upstream = ? ORDER BY tool`)
        .all(team, upstream) as plans.PinRaw[]
    ).map(plans.pinOf);
  const openOf = (team: string, upstream: string) =>
    (
      db
        .prepare(
          `SELECT ${plans.DRIFT_COLS} FROM upstream_drifts WHERE team_id = ? AND upstream = ? AND approved_at IS NULL ORDER BY id`,
        )
        .all(team, upstream) as plans.DriftRaw[]
    ).map(plans.openDrift);
  const putPin = (team: string, upstream: string, p: Pin) =>
    db
      .prepare(
        `INSERT INTO upstream_pins (team_id, ${plans.PIN_COLS}) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (team_id, upstream, tool) DO UPDATE SET definition = excluded.definition, digest = excluded.digest,
         pinned_at = excluded.pinned_at`,
      )
      .run(team, upstream, p.tool, JSON.stringify(p.definition), p.digest, p.pinned_at);
  const addDrift = (team: string, upstream: string, d: Drift) =>
    db
      .prepare(
        "INSERT INTO upstream_drifts (team_id, upstream, tool, kind, before, after, detected_at, approved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(plans.driftValues(team, upstream, d));
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
          const plan = plans.planApproval(upstream, pinsOf(team, upstream), openOf(team, upstream), tool, now);
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
          .prepare(`SELECT ${plans.PIN_COLS} FROM upstream_pins WHERE team_id = ? ORDER BY upstream, tool`)
          .all(team) as plans.PinRaw[]
      ).map(plans.pinOf);
      const drifts = (
        db
          .prepare(`SELECT ${plans.DRIFT_COLS} FROM upstream_drifts WHERE team_id = ? ORDER BY id`)
          .all(team) as plans.DriftRaw[]
      ).map((r) => plans.listedDrift(plans.driftOf(r)));
      return plans.upstreamStates(pins, drifts);
    },
  };
}

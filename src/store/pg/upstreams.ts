// Gateway upstreams on PostgreSQL: the same pins, drifts, plans and order as ../upstreams.ts. Each write holds an
// advisory lock per team and upstream, so two gateways listing one upstream at once store one set of drifts.
import type pg from "pg";
import type { Clock } from "../../clock.js";
import { checkPins, type Drift, type Pin } from "../../gateway/pins.js";
import { inTransaction, lockKey, type Q, queryOn } from "./tx.js";
import type { UpstreamsRepo } from "../port.js";
import * as plans from "../common/upstreams.js";

/** The upstreams repository of a PostgreSQL ledger; every method is scoped to a team. */
export function pgUpstreams(pool: pg.Pool, clock: Clock): UpstreamsRepo {
  const state = async (q: Q, team: string, upstream: string) => {
    await q("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("upstream", team, upstream)]);
    const pins = (
      await q<plans.PinRaw>(
        `SELECT ${plans.PIN_COLS} FROM upstream_pins WHERE team_id = $1 AND upstream = $2 ORDER BY tool`,
        [team, upstream],
      )
    ).map(plans.pinOf);
    const open = (
      await q<plans.DriftRaw>(
        `SELECT ${plans.DRIFT_COLS} FROM upstream_drifts WHERE team_id = $1 AND upstream = $2 AND approved_at IS NULL ORDER BY id`,
        [team, upstream],
      )
    ).map(plans.openDrift);
    return { pins, open };
  };
  const putPin = (q: Q, team: string, upstream: string, p: Pin) =>
    q(
      `INSERT INTO upstream_pins (team_id, ${plans.PIN_COLS}) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (team_id, upstream, tool) DO UPDATE SET definition = excluded.definition, digest = excluded.digest,
       pinned_at = excluded.pinned_at`,
      [team, upstream, p.tool, JSON.stringify(p.definition), p.digest, p.pinned_at],
    );
  const addDrift = (q: Q, team: string, upstream: string, d: Drift) =>
    q(
      "INSERT INTO upstream_drifts (team_id, upstream, tool, kind, before, after, detected_at, approved_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
      plans.driftValues(team, upstream, d),
    );
  return {
    observe: (team, upstream, mode, listed) =>
      inTransaction(pool, async (q) => {
        const { pins, open } = await state(q, team, upstream);
        const check = checkPins({ upstream, mode, pins, openDrifts: open, listed, now: clock.now().toISOString() });
        for (const p of check.newPins) await putPin(q, team, upstream, p);
        for (const d of check.newDrifts) await addDrift(q, team, upstream, d);
        return check;
      }),
    approve: (team, upstream, tool) =>
      inTransaction(pool, async (q) => {
        const now = clock.now().toISOString();
        const { pins, open } = await state(q, team, upstream);
        const plan = plans.planApproval(upstream, pins, open, tool, now);
        for (const p of plan.put) await putPin(q, team, upstream, p);
        for (const t of plan.remove)
          await q("DELETE FROM upstream_pins WHERE team_id = $1 AND upstream = $2 AND tool = $3", [team, upstream, t]);
        for (const d of plan.approve)
          await q("UPDATE upstream_drifts SET approved_at = $1 WHERE id = $2 AND team_id = $3", [now, d.id, team]);
        return { upstream, approved: plan.approve.map(({ id: _id, ...d }) => ({ ...d, approved_at: now })) };
      }),
    list: async (team) => {
      const q = queryOn(pool);
      const pins = (
        await q<plans.PinRaw>(
          `SELECT ${plans.PIN_COLS} FROM upstream_pins WHERE team_id = $1 ORDER BY upstream, tool`,
          [team],
        )
      ).map(plans.pinOf);
      const drifts = (
        await q<plans.DriftRaw>(`SELECT ${plans.DRIFT_COLS} FROM upstream_drifts WHERE team_id = $1 ORDER BY id`, [
          team,
        ])
      ).map((r) => plans.listedDrift(plans.driftOf(r)));
      return plans.upstreamStates(pins, drifts);
    },
  };
}

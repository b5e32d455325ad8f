// Carry-over: a magnitude reused from an earlier output on a different footing (unit or datum), so no conversion happened.
import { UnconvertedCarryOver } from "../quantity/errors.js";
import type { Quantity } from "../quantity/quantity.js";
import { formatMagnitude, tryConvert } from "../quantity/units.js";
import { receivedText, type Shape } from "./normalise.js";
import { type History, type PriorOutput, window } from "./history.js";

/** Relative tolerance of "the same magnitude" (spec 6.3). */
export const CARRY_OVER_TOLERANCE = 1e-9;

const same = (a: number, b: number) => Math.abs(a - b) <= CARRY_OVER_TOLERANCE * Math.max(1, Math.abs(b));

/** A carry-over hit: the earlier output and why the reuse is wrong. */
export type CarryOver = { prior: PriorOutput; reason: "unit" | "datum" };

/** Finds the first earlier output that the value acted on repeats without conversion; series never match. */
export function findCarryOver(v: Quantity, history: History): CarryOver | null {
  if (typeof v.value !== "number") return null;
  const x = v.value;
  const [lo, hi] = window(x, CARRY_OVER_TOLERANCE, CARRY_OVER_TOLERANCE);
  for (const p of history.outputsByMagnitude(lo, hi)) {
    if (!same(x, p.value)) continue;
    if (v.datum && p.datum && v.datum !== p.datum) return { prior: p, reason: "datum" };
    const converted = tryConvert(p.value, p.unit, v.unit);
    if (converted === null) continue;
    // Same unit, an alias (cms and m^3/s) or zero: reuse needs no conversion, so it is not suspicious.
    if (same(converted, p.value)) continue;
    return { prior: p, reason: "unit" };
  }
  return null;
}

/** The refusal for a carry-over, naming what was received, what the earlier tool returned and what to send. */
export function carryOverError(hit: CarryOver, v: Quantity, shape: Shape): UnconvertedCarryOver {
  const p = hit.prior;
  const got = receivedText(shape, v);
  const where = `${p.tool}.${p.field}`;
  const quality = p.quality ? ` (${p.quality})` : "";
  if (hit.reason === "datum") {
    return new UnconvertedCarryOver(
      `received ${got}, which this parameter reads as ${formatMagnitude(v.scalar)} ${v.unit} on ${v.datum}, but ${where} returned it on ${p.datum}. ` +
        `These are measured from different references, so the magnitude cannot be reused; convert it to ${v.datum} first, ` +
        `or resend it as {"value": ${formatMagnitude(p.value)}, "unit": "${p.unit}", "datum": "${p.datum}"}`,
      { context: { prior_call: p.callId, prior_tool: p.tool, reason: "datum" } },
    );
  }
  return new UnconvertedCarryOver(
    `received ${got}, which this tool reads as ${formatMagnitude(v.scalar)} ${v.unit}, but ${where} returned ${formatMagnitude(p.value)} ${p.unit}${quality} ` +
      `and no conversion was applied; resend the value with its original unit, as {"value": ${formatMagnitude(p.value)}, "unit": "${p.unit}"}`,
    { context: { prior_call: p.callId, prior_tool: p.tool, reason: "unit" } },
  );
}

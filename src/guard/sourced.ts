// Sourced inputs: a value that must trace to an output, a one-step sum or difference of outputs, or the question.
import { UnsourcedInput } from "../quantity/errors.js";
import type { Quantity } from "../quantity/quantity.js";
import { dimensionKey, formatMagnitude, tryConvert } from "../quantity/units.js";
import { DERIVABLE_BASE, derivableCandidates } from "./derivable.js";
import { type History, window } from "./history.js";
import { within } from "./numbers.js";
import { numberValuesIn } from "./tokenise.js";

/** Relative tolerance of a sourced match (spec 6.3). */
export const SOURCED_TOLERANCE = 0.005;

/** Where a sourced value came from, or null when nothing supplied it. */
export type Trace =
  | { kind: "output"; callId: string; tool: string }
  | { kind: "derived"; callIds: string[] }
  | { kind: "context"; number: number };

/** Traces a scalar value in its declared unit to an output, a derivable value or a number of the question. */
export function traceSourced(v: Quantity, history: History, context: string): Trace | null {
  if (typeof v.value !== "number") return { kind: "derived", callIds: [] };
  const x = v.value;
  const si = v.si();
  const dimension = dimensionKey(v.unit);
  const [lo, hi] = window(si, SOURCED_TOLERANCE / (1 - SOURCED_TOLERANCE), 1e-12);
  for (const p of history.outputsBySi(dimension, lo, hi)) {
    if (within(x, safeConvert(p.value, p.unit, v.unit), SOURCED_TOLERANCE))
      return { kind: "output", callId: p.callId, tool: p.tool };
  }
  for (const c of derivableCandidates(history.firstOutputs(DERIVABLE_BASE))) {
    if (c.dimension !== dimension) continue;
    if (within(x, safeConvert(c.value, c.unit, v.unit), SOURCED_TOLERANCE))
      return { kind: "derived", callIds: c.from.map((f) => f.callId) };
  }
  for (const n of numberValuesIn(context)) {
    if (within(x, n, SOURCED_TOLERANCE)) return { kind: "context", number: n };
  }
  return null;
}

function safeConvert(value: number, from: string, to: string): number {
  return tryConvert(value, from, to) ?? Number.NaN;
}

/** The refusal for an unsourced value. */
export function unsourcedError(v: Quantity): UnsourcedInput {
  return new UnsourcedInput(
    `received ${formatMagnitude(v.scalar)} ${v.unit}, which no tool returned and the question did not supply. This parameter must carry a retrieved value, ` +
      `because a figure taken from memory here would be laundered into the result and would look sourced ` +
      `afterwards. Retrieve it with a tool first, or report that it is unavailable`,
  );
}

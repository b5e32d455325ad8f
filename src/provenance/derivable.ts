// One-step derivable values: the first twelve outputs, and every sum and difference of two of like dimension.
import { convertMagnitude, toSI } from "../quantity/units.js";
import type { PriorOutput } from "./history.js";

/** How many outputs seed the derivable candidates (spec 6.6.4). */
export const DERIVABLE_BASE = 12;

/** A candidate value with the outputs it came from. */
export type Candidate = { value: number; unit: string; dimension: string; valueSi: number; from: PriorOutput[]; op: "value" | "sum" | "difference" };

/** Base values plus left+right and left-right for every ordered pair of like dimension (a value with itself included). */
export function derivableCandidates(base: PriorOutput[]): Candidate[] {
  const out: Candidate[] = base.map((b) => ({ value: b.value, unit: b.unit, dimension: b.dimension, valueSi: b.valueSi, from: [b], op: "value" as const }));
  for (const l of base) {
    for (const r of base) {
      if (l.dimension !== r.dimension) continue;
      let rv: number;
      try {
        rv = convertMagnitude(r.value, r.unit, l.unit);
      } catch {
        continue;
      }
      for (const [op, v] of [["sum", l.value + rv], ["difference", l.value - rv]] as const) {
        let si: number;
        try {
          si = toSI(v, l.unit);
        } catch {
          continue;
        }
        out.push({ value: v, unit: l.unit, dimension: l.dimension, valueSi: si, from: [l, r], op });
      }
    }
  }
  return out;
}

// One-step derivable values: the first twelve outputs, and every sum and difference of two of like dimension.
import { parseUnit, toSI, tryConvert } from "../quantity/units.js";
import type { PriorOutput } from "./history.js";

/** How many outputs seed the derivable candidates (spec 6.6.4). */
export const DERIVABLE_BASE = 12;

/** A candidate value with the outputs it came from. */
export type Candidate = {
  value: number;
  unit: string;
  dimension: string;
  valueSi: number;
  from: PriorOutput[];
  op: "value" | "sum" | "difference";
};

/** Base values plus left+right and left-right for every ordered pair of like dimension (a value with itself included). */
export function derivableCandidates(base: PriorOutput[]): Candidate[] {
  const out: Candidate[] = base.map((b) => ({
    value: b.value,
    unit: b.unit,
    dimension: b.dimension,
    valueSi: b.valueSi,
    from: [b],
    op: "value" as const,
  }));
  for (const l of base) {
    for (const r of base) {
      if (l.dimension !== r.dimension) continue;
      const rv = tryConvert(r.value, r.unit, l.unit);
      if (rv === null) continue;
      // Two points on a degree scale do not add (spec 6.6.4: "failures such as °C addition skipped").
      const ops =
        parseUnit(l.unit).temperature === "absolute"
          ? ([["difference", l.value - rv]] as const)
          : ([
              ["sum", l.value + rv],
              ["difference", l.value - rv],
            ] as const);
      for (const [op, v] of ops) {
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

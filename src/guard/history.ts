// The History port: what the guard asks of a session's stored outputs. The store answers it with indexed queries.

/** One scalar output of an earlier call, as stored. */
export type PriorOutput = {
  callId: string;
  seq: number;
  tool: string;
  /** `return`, or `return.<key>` for a mapping result. */
  field: string;
  value: number;
  unit: string;
  valueSi: number;
  dimension: string;
  datum: string | null;
  quality: string | null;
};

/** Read access to one session's outputs, oldest first. */
export interface History {
  /** Scalar outputs whose magnitude (in their own unit) lies within [lo, hi]. */
  outputsByMagnitude(lo: number, hi: number): PriorOutput[];
  /** Scalar outputs of one dimension whose SI magnitude lies within [lo, hi]. */
  outputsBySi(dimension: string, lo: number, hi: number): PriorOutput[];
  /** The first `n` scalar outputs of the session. */
  firstOutputs(n: number): PriorOutput[];
}

/** A History over an array, for in-process sessions, a store's remembered outputs, and tests. */
export class MemoryHistory implements History {
  constructor(private readonly outputs: PriorOutput[] = []) {}

  /** Appends an output (the session's ledger grows as calls return). */
  push(o: PriorOutput): void {
    this.outputs.push(o);
  }

  /** Every output, oldest first. */
  all(): readonly PriorOutput[] {
    return this.outputs;
  }

  outputsByMagnitude(lo: number, hi: number): PriorOutput[] {
    return this.outputs.filter((o) => o.value >= lo && o.value <= hi);
  }

  // A stored offset-unit output has no SI magnitude (null), which no SI window holds, as in the store's query.
  outputsBySi(dimension: string, lo: number, hi: number): PriorOutput[] {
    return this.outputs.filter(
      (o) => o.dimension === dimension && o.valueSi !== null && o.valueSi >= lo && o.valueSi <= hi,
    );
  }

  // A negative n means every output, as SQLite reads a negative LIMIT.
  firstOutputs(n: number): PriorOutput[] {
    return Math.trunc(n) < 0 ? this.outputs.slice() : this.outputs.slice(0, Math.trunc(n));
  }
}

/** The magnitude window [lo, hi] around x at relative tolerance `rel` (absolute `abs` near zero), widened for the exact filter after it. */
export function window(x: number, rel: number, abs = 0): [number, number] {
  const half = Math.max(Math.abs(x) * rel * 1.01, abs);
  return [x - half, x + half];
}

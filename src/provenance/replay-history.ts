// The History a replay rebuilds from replayed results: the store's rules (which returns count as outputs, ledger
// order, NULL never in a range) on sorted in-memory indexes, so a session of 10,000 calls replays in linear-ish time.
import type { CrossingDraft } from "../guard/verdict.js";
import type { History, PriorOutput } from "../guard/history.js";

/** Index positions sorted by a key; ties keep insertion (ledger) order. */
class SortedIndex {
  private readonly keys: number[] = [];
  private readonly ids: number[] = [];

  insert(key: number, id: number): void {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! <= key) lo = mid + 1;
      else hi = mid;
    }
    this.keys.splice(lo, 0, key);
    this.ids.splice(lo, 0, id);
  }

  /** Ledger positions whose key lies within [lo, hi], oldest first. */
  range(lo: number, hi: number): number[] {
    let a = 0;
    let b = this.keys.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.keys[mid]! < lo) a = mid + 1;
      else b = mid;
    }
    const out: number[] = [];
    for (let i = a; i < this.keys.length && this.keys[i]! <= hi; i++) out.push(this.ids[i]!);
    return out.sort((x, y) => x - y);
  }
}

/** One session's outputs as replay records them; answers the History port exactly as the store's SQL does. */
export class ReplayHistory implements History {
  private readonly outputs: PriorOutput[] = [];
  private readonly byValue = new SortedIndex();
  private readonly bySi = new Map<string, SortedIndex>();

  /** Records the outputs of one result: the same rows the store's history reads (a scalar return with a unit, not refused). */
  record(callId: string, seq: number, tool: string, crossings: readonly CrossingDraft[]): void {
    for (const c of crossings) {
      if (c.direction !== "return" || c.unit === null || c.value === null || c.outcome === "refused") continue;
      const id = this.outputs.length;
      // The store reads value_si and dimension as stored, NULL included (an offset unit such as degC has no SI magnitude).
      this.outputs.push({
        callId,
        seq,
        tool,
        field: c.param,
        value: c.value,
        unit: c.unit,
        valueSi: c.valueSi as number,
        dimension: c.dimension as string,
        datum: c.datum,
        quality: c.quality,
      });
      this.byValue.insert(c.value, id);
      if (c.valueSi !== null && c.dimension !== null) {
        let ix = this.bySi.get(c.dimension);
        if (!ix) this.bySi.set(c.dimension, (ix = new SortedIndex()));
        ix.insert(c.valueSi, id);
      }
    }
  }

  /** Every output, oldest first. */
  all(): PriorOutput[] {
    return [...this.outputs];
  }

  outputsByMagnitude(lo: number, hi: number): PriorOutput[] {
    return this.byValue.range(lo, hi).map((i) => this.outputs[i]!);
  }

  outputsBySi(dimension: string, lo: number, hi: number): PriorOutput[] {
    return (this.bySi.get(dimension)?.range(lo, hi) ?? []).map((i) => this.outputs[i]!);
  }

  firstOutputs(n: number): PriorOutput[] {
    return this.outputs.slice(0, n);
  }
}

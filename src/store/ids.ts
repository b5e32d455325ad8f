// Sortable opaque ids: ULIDs from one monotonic factory, so ids made in the same millisecond still sort.
import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

/** A new id that sorts after every id this process made before; `at` seeds its time part (ms). */
export function newId(at?: number): string {
  return nextUlid(at);
}

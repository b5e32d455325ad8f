// Sortable opaque ids: ULIDs from one monotonic factory, so ids made in the same millisecond still sort.
import { monotonicFactory } from "ulid";

// Ids are opaque and sortable, not secrets (tokens come from crypto.randomBytes in teams.ts), so the
// random part may use Math.random: the default reads crypto per id, about 3% of a guarded call.
const nextUlid = monotonicFactory(Math.random);

/** A new id that sorts after every id this process made before; `at` seeds its time part (ms). */
export function newId(at?: number): string {
  return nextUlid(at);
}

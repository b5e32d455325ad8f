// The idempotent seed: what a fresh install starts with. Running it again changes nothing.
import type { Db } from "./db.js";
import { ensureDefaultTeam } from "./teams.js";

/** What a seed run found or created. */
export type SeedSummary = { teamId: string };

/** Seeds the default team and the examples; safe to run on every start. */
export function seedDatabase(db: Db): SeedSummary {
  return db.transaction((tx) => {
    const teamId = ensureDefaultTeam(tx);
    seedExamples(tx, teamId);
    return { teamId };
  });
}

/**
 * Example tools, sessions and claims for the default team (see seed/README.md).
 * Every insert here must be idempotent: look up by a fixed name or key before inserting.
 */
export function seedExamples(_db: Db, _teamId: string): void {
  // Filled in by the capabilities that own tools, sessions and claims.
}

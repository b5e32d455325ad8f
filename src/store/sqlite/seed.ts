// The idempotent seed: what a fresh install starts with. Running it again changes nothing.
import { fixedClock } from "../../clock.js";
import type { LedgerDb } from "./db.js";
import { Ledger } from "./ledger.js";
import { ensureDefaultTeam } from "./teams.js";
import type { SeedSummary } from "../model.js";
import { EXAMPLE_TOOLS } from "../common/example-tools.js";

const EXAMPLE_LABEL = { example: "carry-over" };

/** Seeds the default team and the examples; safe to run on every start. */
export function seedDatabase(store: LedgerDb): SeedSummary {
  // IMMEDIATE: the seed reads before it writes, and a deferred transaction whose read snapshot another process (a second
  // `serve` on the same new file) has since written past fails at its first write with SQLITE_BUSY, without waiting.
  return store.sqlite
    .transaction(() => {
      const teamId = ensureDefaultTeam(store.db);
      seedExamples(store, teamId);
      return { teamId };
    })
    .immediate();
}

/** Example tools and one example session (a carried-over 1250 cfs refused) for the default team. */
export function seedExamples(store: LedgerDb, teamId: string): void {
  const ledger = new Ledger(store, fixedClock("2026-03-02T09:00:00Z"));
  const datums = ledger.datums(teamId);
  for (const [name, decl] of Object.entries(EXAMPLE_TOOLS)) {
    if (!ledger.tools.latest(teamId, name)) ledger.tools.put(teamId, name, decl, datums);
  }
  const seeded = store.sqlite
    .prepare("SELECT 1 FROM session_labels WHERE team_id = ? AND key = 'example' AND value = 'carry-over'")
    .get(teamId);
  if (seeded) return;
  const s = ledger.sessions.create(
    teamId,
    { context: "What is the runoff depth at site 07374000?", labels: EXAMPLE_LABEL },
    new Date("2026-03-02T09:00:00Z"),
  );
  const q = ledger.call(teamId, s.id, "read_discharge", { site: "07374000" });
  ledger.result(teamId, s.id, q.call_id, 1250);
  const a = ledger.call(teamId, s.id, "read_drainage_area", { site: "07374000" });
  ledger.result(teamId, s.id, a.call_id, 29000);
  ledger.call(teamId, s.id, "runoff_depth", { discharge: 1250, area: 29000 });
  const ok = ledger.call(teamId, s.id, "runoff_depth", { discharge: "1250 cfs", area: 29000 });
  ledger.result(teamId, s.id, ok.call_id, 0.10545584248055172);
}

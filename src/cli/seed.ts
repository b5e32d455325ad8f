// `agent-ledger seed`: add the default team and the examples; running it again changes nothing.
import type { Command } from "commander";
import { seedDatabase } from "../store/seed.js";
import { cliConfig, openConfiguredDb, say } from "./shared.js";

/** Adds `seed` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action((flags: { db?: string }) => {
      const config = cliConfig(flags);
      const store = openConfiguredDb(config);
      try {
        const summary = seedDatabase(store);
        say(`seeded ${config.dbFile}: team "default" is ${summary.teamId}`);
      } finally {
        store.close();
      }
    });
}

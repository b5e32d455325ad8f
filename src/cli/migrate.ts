// `agent-ledger migrate`: bring the database schema up to date and exit.
import type { Command } from "commander";
import { cliConfig, openConfiguredDb, say } from "./shared.js";

/** Adds `migrate` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action((flags: { db?: string }) => {
      const config = cliConfig(flags);
      const store = openConfiguredDb(config);
      store.close();
      say(
        store.applied > 0
          ? `applied ${store.applied} migration(s) to ${config.dbFile}; the schema is current`
          : `${config.dbFile}: the schema was already current`,
      );
    });
}

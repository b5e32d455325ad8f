// `agent-ledger migrate`: bring the database schema up to date and exit.
import type { Command } from "commander";
import { redactDbLocation } from "../config.js";
import { cliConfig, openConfiguredStore, say } from "./shared.js";

/** Adds `migrate` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action(async (flags: { db?: string }) => {
      const config = cliConfig(flags);
      const store = await openConfiguredStore(config);
      await store.close();
      const where = redactDbLocation(config.dbFile);
      say(
        store.applied > 0
          ? `applied ${store.applied} migration(s) to ${where}; the schema is current`
          : `${where}: the schema was already current`,
      );
    });
}

// `agent-ledger migrate`: bring the database schema up to date and exit. On PostgreSQL it migrates under an advisory
// lock, so any number of `migrate` and `serve` processes may start together.
import type { Command } from "commander";
import { cliConfig, openConfiguredStore, say } from "./shared.js";

/** Adds `migrate` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action(async (flags: { db?: string }) => {
      const store = await openConfiguredStore(cliConfig(flags));
      await store.close();
      say(
        store.applied > 0
          ? `applied ${store.applied} migration(s) to ${store.where}; the schema is current`
          : `${store.where}: the schema was already current`,
      );
    });
}

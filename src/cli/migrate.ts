// `agent-ledger migrate`: bring the database schema up to date and exit.
import type { Command } from "commander";
import { isPostgresUrl, openPg } from "../store/pg/open.js";
import { cliConfig, openConfiguredStore, say } from "./shared.js";

/** Adds `migrate` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action(async (flags: { db?: string }) => {
      const config = cliConfig(flags);
      let applied: number;
      let where = config.dbFile;
      if (isPostgresUrl(config.dbFile)) {
        // Under the migration advisory lock: any number of `migrate` and `serve` processes may run at once.
        const store = await openPg(config.dbFile, { poolSize: 1 });
        await store.close();
        applied = store.applied;
        where = store.url;
      } else {
        const store = await openConfiguredStore(config);
        await store.close();
        applied = store.applied;
      }
      say(
        applied > 0
          ? `applied ${applied} migration(s) to ${where}; the schema is current`
          : `${where}: the schema was already current`,
      );
    });
}

// `agent-ledger admin ...`: administration that needs the database, not the API.
import type { Command } from "commander";
import { rotateAdminToken } from "../store/teams.js";
import { cliConfig, openConfiguredDb, say } from "./shared.js";

/** Adds `admin rotate-token`. */
export function configure(cmd: Command): void {
  cmd
    .command("rotate-token")
    .description("revoke every admin token and print a new one (shown once)")
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .exitOverride()
    .action((flags: { db?: string }) => {
      const config = cliConfig(flags);
      const store = openConfiguredDb(config);
      try {
        const issued = rotateAdminToken(store.db);
        say(`new admin token (shown once, keep it): ${issued.token}`);
        if (config.adminToken) {
          process.stderr.write(
            "note: AGENT_LEDGER_ADMIN_TOKEN is set, so the next `serve` makes it the admin token again and revokes this one\n",
          );
        }
      } finally {
        store.close();
      }
    });
}

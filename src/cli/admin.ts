// `agent-ledger admin ...`: administration that needs the database, not the API.
import type { Command } from "commander";
import { cliConfig, say, withStore } from "./shared.js";

/** Adds `admin rotate-token`. */
export function configure(cmd: Command): void {
  cmd
    .command("rotate-token")
    .description("revoke every admin token and print a new one (shown once)")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .exitOverride()
    .action(async (flags: { db?: string }) => {
      const config = cliConfig(flags);
      const issued = await withStore(config, (store) => store.teams.rotateAdminToken());
      say(`new admin token (shown once, keep it): ${issued.token}`);
      if (config.adminToken) {
        process.stderr.write(
          "note: AGENT_LEDGER_ADMIN_TOKEN is set, so the next `serve` makes it the admin token again and revokes this one\n",
        );
      }
    });
}

// `agent-ledger seed`: add the default team and the examples; running it again changes nothing.
import type { Command } from "commander";
import { redactDbLocation } from "../config.js";
import { cliConfig, say, withStore } from "./shared.js";

/** Adds `seed` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action(async (flags: { db?: string }) => {
      const config = cliConfig(flags);
      const summary = await withStore(config, (store) => store.seed());
      say(`seeded ${redactDbLocation(config.dbFile)}: team "default" is ${summary.teamId}`);
    });
}

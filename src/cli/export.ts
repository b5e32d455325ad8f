// `agent-ledger export <id>`: prints a session's manifest (format agent-ledger.manifest/1) as JSON on stdout.
import type { Command } from "commander";
import { systemClock } from "../clock.js";
import { Ledger } from "../store/ledger.js";
import { loadManifest } from "../store/manifests.js";
import { sessionTeam } from "../store/queries.js";
import { CliError, cliConfig, openArchiveDb, openConfiguredDb } from "./shared.js";

function run(id: string, flags: { db?: string; archive?: string }): void {
  const store = flags.archive ? openArchiveDb(flags.archive) : openConfiguredDb(cliConfig(flags));
  try {
    const teamId = sessionTeam(store.sqlite, id);
    if (teamId === null) throw new CliError(`no session '${id}' in this database`);
    process.stdout.write(`${JSON.stringify(loadManifest(new Ledger(store, systemClock), teamId, id), null, 2)}\n`);
  } finally {
    store.close();
  }
}

/** Adds `export <session-id>`. */
export function configure(cmd: Command): void {
  cmd
    .argument("<session-id>", "the session to export")
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--archive <file>", "read the session from an archive written by `agent-ledger archive`")
    .action((id: string, flags: { db?: string; archive?: string }) => run(id, flags));
}

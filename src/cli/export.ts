// `agent-ledger export <id>`: prints a session's manifest (format agent-ledger.manifest/1) as JSON on stdout.
import type { Command } from "commander";
import { CliError, readConfig, withStore } from "./shared.js";

async function run(id: string, flags: { db?: string; archive?: string }): Promise<void> {
  const manifest = await withStore(readConfig(flags), async (store) => {
    const teamId = await store.sessions.teamOf(id);
    if (teamId === null) throw new CliError(`no session '${id}' in this database`);
    return store.manifests.load(teamId, id);
  });
  process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
}

/** Adds `export <session-id>`. */
export function configure(cmd: Command): void {
  cmd
    .argument("<session-id>", "the session to export")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--archive <file>", "read the session from an archive written by `agent-ledger archive`")
    .action((id: string, flags: { db?: string; archive?: string }) => run(id, flags));
}

// `agent-ledger export <id>`: prints a session's manifest (format agent-ledger.manifest/1) as JSON on stdout.
import type { Command } from "commander";
import { sessionProof } from "../chain/proof.js";
import { signingKeyFor } from "../chain/signing-key.js";
import { CliError, readConfig, withStore } from "./shared.js";

async function run(id: string, flags: { db?: string; archive?: string }): Promise<void> {
  const manifest = await withStore(readConfig(flags), async (store) => {
    const teamId = await store.sessions.teamOf(id);
    if (teamId === null) throw new CliError(`no session '${id}' in this database`);
    const m = await store.manifests.load(teamId, id);
    // A manifest read from the live ledger carries its proof (agent-ledger verify-export checks it offline).
    const proof =
      flags.archive === undefined ? await sessionProof(store, teamId, id, signingKeyFor(store.where)) : null;
    return proof ? { ...m, proof } : m;
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

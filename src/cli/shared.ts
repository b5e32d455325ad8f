// Helpers the CLI commands share: settings from the environment plus flags, and opening the database.
import { existsSync } from "node:fs";
import { loadConfig, type Config } from "../config.js";
import { openDb, type LedgerDb } from "../store/db.js";

/** Flags every database command accepts. */
export type DbFlags = { db?: string };

/** The settings, with `--db` winning over AGENT_LEDGER_DB. */
export function cliConfig(flags: DbFlags & { port?: string; host?: string } = {}): Config {
  return loadConfig(process.env, { AGENT_LEDGER_DB: flags.db, PORT: flags.port, HOST: flags.host });
}

/** Opens and migrates the configured database. */
export function openConfiguredDb(config: Config): LedgerDb {
  return openDb(config.dbFile, { sync: config.sync });
}

/** Opens an archive written by `agent-ledger archive` for reading its sessions, or a CliError naming the file. */
export function openArchiveDb(file: string): LedgerDb {
  if (!existsSync(file)) throw new CliError(`no archive at ${file}: pass the file \`agent-ledger archive --to\` wrote`);
  return openDb(file);
}

/** One line on stdout. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A failure a command reports in plain words, with the exit code main() returns. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

// Helpers the CLI commands share: settings from the environment plus flags, and opening the database.
import { existsSync } from "node:fs";
import { loadConfig, type Config } from "../config.js";
import { openDb, type LedgerDb } from "../store/sqlite/db.js";
import { openStore } from "../store/open.js";
import type { LedgerStore } from "../store/port.js";

/** Flags every database command accepts. */
export type DbFlags = { db?: string };

/** The settings, with `--db` winning over AGENT_LEDGER_DB. */
export function cliConfig(flags: DbFlags & { port?: string; host?: string } = {}): Config {
  return loadConfig(process.env, { AGENT_LEDGER_DB: flags.db, PORT: flags.port, HOST: flags.host });
}

/** Opens the configured SQLite file itself: only for code not yet behind the LedgerStore port (it refuses PostgreSQL). */
export function openConfiguredDb(config: Config): LedgerDb {
  if (config.dbEngine !== "sqlite")
    throw new CliError(
      "this command works on a SQLite file only in this version; set AGENT_LEDGER_DB (or --db) to a SQLite file path",
    );
  return openDb(config.dbFile, { sync: config.sync });
}

/** Opens and migrates the configured store (AGENT_LEDGER_DB or --db: a SQLite file or a postgres:// URL). */
export function openConfiguredStore(config: Config): Promise<LedgerStore> {
  return openStore(config.dbFile, {
    sync: config.sync,
    undeclaredTools: config.undeclaredTools,
    tokenKey: config.tokenKey,
  });
}

/** Runs `fn` on the configured store and closes it afterwards, whatever happens. */
export async function withStore<T>(config: Config, fn: (store: LedgerStore) => Promise<T>): Promise<T> {
  const store = await openConfiguredStore(config);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * The settings of a reading command: with `--archive FILE`, the archive `agent-ledger archive --to` wrote stands in
 * for the database (it has the same schema); a missing archive is a CliError naming the file.
 */
export function readConfig(flags: DbFlags & { archive?: string }): Config {
  const config = cliConfig(flags);
  if (flags.archive === undefined) return config;
  if (!existsSync(flags.archive))
    throw new CliError(`no archive at ${flags.archive}: pass the file \`agent-ledger archive --to\` wrote`);
  return { ...config, dbFile: flags.archive };
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

// `agent-ledger backup <file>`: a consistent copy of the database, taken with SQLite's online backup while the
// server keeps running, checked with integrity_check and written as one self-contained file.
import { existsSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { isPostgresUrl, redactUrl } from "../store/pg/open.js";
import {
  assertLedger,
  describeLedger,
  integrityProblems,
  integritySummary,
  onlineCopy,
  openExisting,
} from "./ledger-file.js";
import { CliError, cliConfig, say } from "./shared.js";

type Flags = { db?: string; force?: boolean };

async function run(file: string, flags: Flags): Promise<void> {
  const src = cliConfig(flags).dbFile;
  if (isPostgresUrl(src))
    throw new CliError(
      `the database is PostgreSQL (${redactUrl(src)}), and agent-ledger backup copies SQLite files only: ` +
        `back PostgreSQL up with its own pg_dump, for example pg_dump --format=custom --file=ledger.dump "$AGENT_LEDGER_DB", ` +
        "and restore it with pg_restore",
    );
  if (src === ":memory:")
    throw new CliError(
      "the database is :memory:, so there is no file to back up: set AGENT_LEDGER_DB or pass --db <file>",
    );
  if (!existsSync(src))
    throw new CliError(`no database at ${src}: nothing to back up (set AGENT_LEDGER_DB or pass --db <file>)`);
  const dest = resolve(file);
  if (dest === resolve(src)) throw new CliError(`${file} is the database itself: write the backup to another path`);
  if (!existsSync(dirname(dest)))
    throw new CliError(`the folder ${dirname(dest)} does not exist: create it, or choose another path`);
  if (existsSync(dest) && !flags.force)
    throw new CliError(`${file} exists: choose a new file name, or pass --force to overwrite it`);

  // Written beside the target and renamed into place, so a failed or interrupted backup never leaves a half file at <file>.
  const partial = `${dest}.partial-${process.pid}`;
  const source = openExisting(src);
  try {
    assertLedger(source, src);
    const pages = await onlineCopy(source, partial);
    const copy = openExisting(partial);
    let summary: string;
    try {
      // The copy carries the live file's WAL flag; DELETE mode makes it one file that can be moved and mailed alone.
      copy.pragma("journal_mode = DELETE");
      const problems = integrityProblems(copy, partial);
      if (problems.length > 0) {
        throw new CliError(
          `the copy of ${src} fails PRAGMA integrity_check (${integritySummary(problems)}): the database itself may be ` +
            "damaged; no backup was written",
        );
      }
      summary = describeLedger(copy);
    } finally {
      copy.close();
    }
    renameSync(partial, dest);
    say(`backed up ${src} to ${file}: ${pages} pages, integrity ok (${summary})`);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  } finally {
    source.close();
  }
}

/** Adds `backup <file>` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .argument("<file>", "where to write the backup (a new file unless --force)")
    .option("--db <file>", "the database to back up (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--force", "overwrite <file> if it exists")
    .action((file: string, flags: Flags) => run(file, flags));
}

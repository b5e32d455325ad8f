// `agent-ledger archive --before DATE --to FILE`: moves older sessions into a SQLite archive that `sessions`,
// `export` and `replay --archive FILE` still read; nothing leaves the live file before the archive holds it.
import type { Command } from "commander";
import { ArchiveError, archiveSessions } from "../store/sqlite/archive.js";
import { isPostgresUrl } from "../store/pg/open.js";
import { CliError, cliConfig, openConfiguredDb, say } from "./shared.js";
import { QueryError, parseInstant } from "../query-params.js";

type Flags = { db?: string; before: string; to: string };

function run(flags: Flags): void {
  let before: string;
  try {
    before = parseInstant(flags.before, "--before");
  } catch (e) {
    if (e instanceof QueryError) throw new CliError(e.message);
    throw e;
  }
  const config = cliConfig(flags);
  if (isPostgresUrl(config.dbFile))
    throw new CliError(
      "archive moves sessions out of a SQLite database; on PostgreSQL, partition or export them with the database's own tools",
    );
  const store = openConfiguredDb(config);
  try {
    const r = archiveSessions(store, before, flags.to);
    const rows = Object.entries(r.rows)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${n} ${t}`)
      .join(", ");
    say(
      `moved ${r.sessions} session(s) created before ${before} from ${config.dbFile} to ${r.archive}` +
        (rows ? ` (${rows}); copy verified before deleting` : ""),
    );
  } catch (e) {
    if (e instanceof ArchiveError) throw new CliError(e.message);
    throw e;
  } finally {
    store.close();
  }
}

/** Adds `archive --before DATE --to FILE`. */
export function configure(cmd: Command): void {
  cmd
    .requiredOption(
      "--before <date>",
      "move sessions created before this date (2026-01-01 or a date-time with an offset)",
    )
    .requiredOption("--to <file>", "the SQLite archive to write (created when absent, added to when present)")
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action((flags: Flags) => run(flags));
}

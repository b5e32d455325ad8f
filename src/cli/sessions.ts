// `agent-ledger sessions`: past sessions of a team by label, tool, violation code and time, newest first.
import type { Command } from "commander";
import type { LedgerStore } from "../store/port.js";
import { CliError, say, withStore, readConfig } from "./shared.js";
import { QueryError, parseInstant, parseLabel } from "../query-params.js";

/** Flags of `sessions`. */
type Flags = {
  db?: string;
  archive?: string;
  team: string;
  label: string[];
  tool?: string;
  code?: string;
  since?: string;
  until?: string;
  limit: string;
};

const collect = (v: string, acc: string[]) => [...acc, v];

/** The id of the team named `name`, or a CliError naming it. */
export async function teamIdOf(store: LedgerStore, name: string): Promise<string> {
  const team = await store.teams.byName(name);
  if (!team) throw new CliError(`no team named '${name}' in this database; pass --team with an existing team's name`);
  return team.id;
}

/** Turns a filter error into a plain command-line error. */
export function asCliError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof QueryError) throw new CliError(e.message.replace(/^since|^until|^label/, (f) => `--${f}`));
    throw e;
  }
}

async function run(flags: Flags): Promise<void> {
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new CliError(`--limit must be a whole number from 1 to 10000, received '${flags.limit}'`);
  const filter = asCliError(() => ({
    labels: flags.label.map((l) => parseLabel(l)),
    tool: flags.tool,
    code: flags.code,
    limit,
    since: flags.since === undefined ? undefined : parseInstant(flags.since, "since"),
    until: flags.until === undefined ? undefined : parseInstant(flags.until, "until"),
  }));
  await withStore(readConfig(flags), async (store) => {
    const teamId = await teamIdOf(store, flags.team);
    const rows = (await store.sessions.list(teamId, filter)).slice(0, limit);
    if (rows.length === 0) say("no sessions match");
    for (const s of rows) {
      const labels = Object.entries(s.labels)
        .map(([k, v]) => `${k}:${v}`)
        .join(" ");
      say(
        `${s.id}  ${s.createdAt}  ${s.enforcement}  calls=${s.callCount} violations=${s.violationCount} ` +
          `would_block=${s.blockedCount}${labels ? `  ${labels}` : ""}`,
      );
    }
  });
}

/** Adds `sessions` and its filters. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--archive <file>", "list the sessions of an archive written by `agent-ledger archive`")
    .option("--team <name>", "the team whose sessions to list", "default")
    .option("--label <k:v>", "sessions with this label (repeat to require several)", collect, [])
    .option("--tool <name>", "sessions that called this tool")
    .option("--code <code>", "sessions with a value refused or flagged with this violation code")
    .option("--since <date>", "created at or after: 2026-11-30 (midnight UTC) or 2026-11-30T04:00:00Z")
    .option("--until <date>", "created before (exclusive)")
    .option("--limit <n>", "at most this many sessions", "50")
    .action((flags: Flags) => run(flags));
}

// `agent-ledger revisions`: readings revised since a date, newest first, each with the released reports it affects.
import type { Command } from "commander";
import { parseInstant } from "../store/queries.js";
import { openStore } from "../store/open.js";
import type { Revision } from "../store/revisions.js";
import { asCliError, teamIdOf } from "./sessions.js";
import { CliError, cliConfig, say } from "./shared.js";

/** Flags of `revisions`. */
type Flags = { db?: string; team: string; since?: string; source?: string; limit: string; format: string };

const side = (s: Revision["before"]): string => `${s.value} ${s.unit}${s.quality ? ` (${s.quality})` : ""}`;

/** One revision as two or more plain lines. */
export function revisionLines(r: Revision): string[] {
  const what = r.source === null ? `crossing ${r.before.crossing_id}` : `${r.source} observed ${r.observed_at}`;
  const by =
    r.kind === "declared"
      ? `declared by ${r.revised_by}: ${r.reason}`
      : `detected in a later reading by ${r.revised_by}`;
  const affected =
    r.affected.length === 0
      ? "  no released evaluation rests on the old value"
      : `  affects ${r.affected.map((a) => `${a.evaluation_id}${a.task ? ` (${a.task}` : " ("}${a.claim_id ? `, claim ${a.claim_id})` : ")"}`).join(", ")}`;
  return [`${r.id}  ${r.detected_at}  ${what}: ${side(r.before)} -> ${side(r.after)}, ${by}`, affected];
}

async function run(flags: Flags): Promise<void> {
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw new CliError(`--limit must be a whole number from 1 to 500, received '${flags.limit}'`);
  if (flags.format !== "text" && flags.format !== "json")
    throw new CliError(`--format must be text or json, received '${flags.format}'`);
  const config = cliConfig(flags);
  const store = await openStore(config.dbFile, { sync: config.sync });
  try {
    const teamId = await teamIdOf(store, flags.team);
    const since =
      flags.since === undefined ? undefined : asCliError(() => parseInstant(flags.since as string, "since"));
    if (!store.revisions) throw new CliError("this database engine does not list revisions yet; use a SQLite file");
    const page = await store.revisions.list(teamId, {
      limit,
      ...(since ? { since } : {}),
      ...(flags.source ? { source: flags.source } : {}),
    });
    if (flags.format === "json") {
      say(JSON.stringify(page.items, null, 2));
      return;
    }
    if (page.items.length === 0) say(since ? `no revisions since ${since}` : "no revisions");
    for (const r of page.items) for (const line of revisionLines(r)) say(line);
  } finally {
    await store.close();
  }
}

/** Adds `revisions` and its filters. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <name>", "the team whose revisions to list", "default")
    .option("--since <date>", "recorded at or after: 2026-06-01 (midnight UTC) or 2026-06-01T00:00:00Z")
    .option("--source <source>", "only revisions of this source, such as usgs:07374000:00060")
    .option("--limit <n>", "at most this many revisions", "50")
    .option("--format <format>", "text or json", "text")
    .action((flags: Flags) => run(flags));
}

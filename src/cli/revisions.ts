// `agent-ledger revisions`: readings revised since a date, newest first, each with the released reports it affects.
import type { Command } from "commander";
import { usgsClient } from "../packs/ogc/client.js";
import { parseInterval } from "../config.js";
import { startWatchLoop, watchPass, watchSummary } from "../packs/ogc/watch.js";
import { openStore } from "../store/open.js";
import { asCliError, teamIdOf } from "./sessions.js";
import { CliError, cliConfig, say } from "./shared.js";
import type { Revision } from "../store/model.js";
import { parseInstant } from "../query-params.js";

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

/** Flags of `revisions watch`. */
type WatchFlags = { db?: string; once?: boolean; interval: string };

async function watch(flags: WatchFlags): Promise<void> {
  const intervalMs = parseInterval(flags.interval);
  if (intervalMs === null)
    throw new CliError(`--interval must be a duration such as 6h, 30m or 1d, received '${flags.interval}'`);
  const config = cliConfig(flags);
  const store = await openStore(config.dbFile, { sync: config.sync });
  const client = usgsClient(config);
  const opts = { intervalMs, now: () => new Date() };
  if (flags.once) {
    try {
      say(watchSummary(await watchPass(store, client, { ...opts, force: true })));
    } finally {
      await store.close();
    }
    return;
  }
  say(`revision watch: re-reading watched USGS readings every ${flags.interval}; stop with Ctrl-C`);
  const loop = startWatchLoop(store, client, {
    ...opts,
    onPass: (p) => say(p instanceof Error ? `pass failed: ${p.message}` : watchSummary(p)),
  });
  await new Promise<void>((resolve) => {
    const stop = () => {
      loop.stop();
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    // Keeps the process alive: the loop's timers are unref'd so that serve can exit without them.
    setInterval(() => undefined, 1 << 30);
  });
  await store.close();
  process.exit(0);
}

/** Adds `revisions` and its filters, and `revisions watch`. */
export function configure(cmd: Command): void {
  cmd
    .command("watch")
    .description("re-read watched USGS readings (not approved, under a released evaluation) and record their revisions")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--once", "one pass now, whatever the interval, then exit 0")
    .option("--interval <duration>", "how often a series is re-read at most: 6h, 30m, 1d", "6h")
    .action((flags: WatchFlags) => watch(flags));
  cmd
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <name>", "the team whose revisions to list", "default")
    .option("--since <date>", "recorded at or after: 2026-06-01 (midnight UTC) or 2026-06-01T00:00:00Z")
    .option("--source <source>", "only revisions of this source, such as usgs:07374000:00060")
    .option("--limit <n>", "at most this many revisions", "50")
    .option("--format <format>", "text or json", "text")
    .action((flags: Flags) => run(flags));
}

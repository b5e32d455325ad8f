// `agent-ledger pins list | approve <upstream> [<tool>]`: the gateway's pinned upstream tool definitions, their drifts,
// and approval of the current definitions, on the local database (SQLite file or postgres:// URL).
import type { Command } from "commander";
import { driftLines } from "../gateway/diff.js";
import { CliError, cliConfig, say, withStore } from "./shared.js";
import type { UpstreamsRepo } from "../store/port.js";
import { DEFAULT_TEAM } from "../store/common/tokens.js";

type Flags = { db?: string; team: string; format?: string };

function withUpstreams<T>(flags: Flags, fn: (repo: UpstreamsRepo, teamId: string) => Promise<T>): Promise<T> {
  return withStore(cliConfig(flags), async (store) => {
    const team =
      (await store.teams.byName(flags.team))?.id ??
      (flags.team === DEFAULT_TEAM ? await store.teams.ensureDefault() : null);
    if (team === null)
      throw new CliError(`no team named '${flags.team}' in this database; pass --team with an existing team's name`);
    return fn(store.upstreams, team);
  });
}

const DB_HELP = "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)";

/** Adds `pins list` and `pins approve`. */
export function configure(cmd: Command): void {
  cmd
    .command("list")
    .description("each upstream's pinned tools (digest, when pinned) and its drifts with what changed")
    .option("--db <file>", DB_HELP)
    .option("--team <name>", "the team whose upstreams to list", "default")
    .option("--format <format>", "text or json", "text")
    .exitOverride()
    .action(async (flags: Flags) => {
      if (flags.format !== "text" && flags.format !== "json")
        throw new CliError(`--format must be text or json, received '${flags.format}'`);
      const items = await withUpstreams(flags, (repo, team) => repo.list(team));
      if (flags.format === "json") return say(JSON.stringify({ items }, null, 2));
      if (items.length === 0)
        return say("no upstreams pinned yet: the gateway pins an upstream's tools when it first lists them");
      for (const u of items) {
        const waiting = u.drifts.filter((d) => d.approved_at === null).length;
        say(`${u.name}: ${u.tools.length} tools pinned, ${waiting} drifts waiting for approval`);
        for (const t of u.tools) say(`  ${t.name}  sha256:${t.digest}  pinned ${t.pinned_at}`);
        for (const d of u.drifts) for (const line of driftLines(d)) say(`  ${line}`);
      }
    });
  cmd
    .command("approve <upstream> [tool]")
    .description("approve the current definitions of an upstream's drifted tools (all, or one)")
    .option("--db <file>", DB_HELP)
    .option("--team <name>", "the team whose upstream to approve", "default")
    .exitOverride()
    .action(async (upstream: string, tool: string | undefined, flags: Flags) => {
      const r = await withUpstreams(flags, (repo, team) => repo.approve(team, upstream, tool));
      if (r.approved.length === 0)
        return say(`nothing to approve: no drift of ${tool ? `'${tool}' of ` : ""}'${upstream}' waits`);
      for (const d of r.approved) say(`approved ${upstream} ${d.tool} (${d.kind}, detected ${d.detected_at})`);
    });
}

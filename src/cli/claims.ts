// `agent-ledger claims import FILE | export`: the team ledger in the original JSON Lines format.
import { readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import type { ClaimsRepo } from "../store/port.js";
import { CliError, cliConfig, say, withStore } from "./shared.js";
import { DEFAULT_TEAM } from "../store/common/tokens.js";

type Flags = { db?: string; team: string };

function withLedger<T>(flags: Flags, fn: (claims: ClaimsRepo, teamId: string) => Promise<T>): Promise<T> {
  return withStore(cliConfig(flags), async (store) => {
    const team =
      (await store.teams.byName(flags.team))?.id ??
      (flags.team === DEFAULT_TEAM ? await store.teams.ensureDefault() : null);
    if (team === null)
      throw new CliError(`no team named '${flags.team}' in this database; pass --team with an existing team's name`);
    return fn(store.claims, team);
  });
}

/** Adds `claims import` and `claims export`. */
export function configure(cmd: Command): void {
  cmd
    .command("import <file>")
    .description("import memory/claims.jsonl; malformed lines are skipped and listed on stderr")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <name>", "the team whose ledger to import into", "default")
    .exitOverride()
    .action(async (file: string, flags: Flags) => {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (e) {
        throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
      }
      const r = await withLedger(flags, (claims, team) => claims.importText(team, text));
      for (const s of r.skipped) process.stderr.write(`line ${s.line} skipped: ${s.reason}\n`);
      for (const w of r.warnings) process.stderr.write(`line ${w.line} (${w.id}) ${w.field}: ${w.reason}\n`);
      say(
        `imported ${r.imported}, updated ${r.updated}, unchanged ${r.unchanged}, skipped ${r.skipped.length}, warnings ${r.warnings.length}`,
      );
    });
  cmd
    .command("export")
    .description("print the ledger as JSON Lines (re-importable)")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <name>", "the team whose ledger to export", "default")
    .option("--out <file>", "write to FILE instead of stdout")
    .exitOverride()
    .action(async (flags: Flags & { out?: string }) => {
      const text = await withLedger(flags, (claims, team) => claims.exportText(team));
      if (flags.out === undefined) process.stdout.write(text);
      else writeFileSync(flags.out, text);
    });
}

// `agent-ledger verify`: walks each team's chain (or one team's), exit 0 when every chain holds, 2 naming the first
// entry that does not; with --anchor FILE, also checks that no anchored head has been rewritten since.
import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { headRefusal, type SignedHead } from "../chain/head.js";
import { signingKeyFor } from "../chain/signing-key.js";
import { chainOf, type LedgerChain } from "../store/chain-access.js";
import type { LedgerStore } from "../store/port.js";
import { CliError, cliConfig, say, withStore } from "./shared.js";

type Flags = { db?: string; team?: string; since?: string; anchor?: string; archive?: string };

/** The team id of `--team` (an id or a name), or every chained team. */
async function teamsOf(store: LedgerStore, chain: LedgerChain, team?: string): Promise<string[]> {
  if (team === undefined) return chain.teams();
  const byName = await store.teams.byName(team);
  return [byName?.id ?? team];
}

/** Why an anchored head no longer matches the chain, or null when the chain still passes through it. */
export async function anchorBreak(chain: LedgerChain, a: SignedHead): Promise<string | null> {
  if (a.count === 0) return null;
  const head = await chain.head(a.team);
  if (!head || head.seq < a.count)
    return `the chain has ${head?.seq ?? 0} entries but ${a.count} were anchored at ${a.at}`;
  const [e] = await chain.entriesAt(a.team, a.count);
  if (!e || e.digest !== a.digest)
    return `entry ${a.count} is not the entry anchored at ${a.at}: history was rewritten since`;
  return null;
}

/** Adds `verify` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <team>", "one team (an id or a name); default every team")
    .option("--since <time>", "check the entries written at or after this ISO time")
    .option("--archive <file>", "an archive written by `agent-ledger archive`: rows moved there are checked there")
    .option("--anchor <file>", "a file written by `agent-ledger anchor`: check each anchored head still holds")
    .action(async (flags: Flags) => {
      const config = cliConfig(flags);
      const broken = await withStore(config, async (store) => {
        const chain = await chainOf(store);
        await chain.backfill();
        let bad = 0;
        for (const team of await teamsOf(store, chain, flags.team)) {
          const t0 = performance.now();
          const v = await chain.verify(team, {
            ...(flags.since === undefined ? {} : { since: flags.since }),
            ...(flags.archive === undefined ? {} : { archive: flags.archive }),
          });
          const secs = (performance.now() - t0) / 1000;
          if (v.ok) say(`team ${team}: intact, ${v.count} entries checked in ${secs.toFixed(2)} s`);
          else {
            bad += 1;
            const f = v.first_bad;
            say(`team ${team}: broken at ${f.table} ${f.id || "-"} (position ${f.seq}): ${f.reason}`);
          }
        }
        if (flags.anchor !== undefined) {
          const key = signingKeyFor(store.where);
          const lines = readFileSync(flags.anchor, "utf8")
            .split("\n")
            .filter((l) => l.trim() !== "");
          for (const [i, line] of lines.entries()) {
            const a = JSON.parse(line) as SignedHead;
            if (flags.team !== undefined && a.team !== (await teamsOf(store, chain, flags.team))[0]) continue;
            const why = headRefusal(a, key.publicKey) ?? (await anchorBreak(chain, a));
            if (why !== null) {
              bad += 1;
              say(`anchor line ${i + 1} (team ${a.team}): ${why}`);
            }
          }
          if (lines.length === 0) throw new CliError(`${flags.anchor} holds no anchored heads`);
        }
        return bad;
      });
      if (broken > 0) throw new CliError(`the ledger does not verify: ${broken} problem(s) named above`, 2);
    });
}

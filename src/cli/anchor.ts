// `agent-ledger anchor --to FILE`: appends every team's signed head to a file the operator keeps elsewhere, so a later
// `verify --anchor FILE` can tell that history was not rewritten since (the simplest external anchor).
import type { Command } from "commander";
import { appendFileSync } from "node:fs";
import { signHead } from "../chain/head.js";
import { signingKeyFor } from "../chain/signing-key.js";
import { chainOf } from "../store/chain-access.js";
import { cliConfig, say, withStore } from "./shared.js";

/** Adds `anchor` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .requiredOption("--to <file>", "the file to append one line of JSON per team head to")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .action(async (flags: { to: string; db?: string }) => {
      await withStore(cliConfig(flags), async (store) => {
        const chain = await chainOf(store);
        const key = signingKeyFor(store.where);
        let n = 0;
        for (const team of await chain.teams()) {
          const h = await chain.head(team);
          if (!h || h.seq === 0) continue;
          const signed = signHead({ team, count: h.seq, digest: h.digest, at: h.at }, key);
          appendFileSync(flags.to, `${JSON.stringify(signed)}\n`);
          n += 1;
        }
        say(`anchored ${n} team head(s) to ${flags.to}`);
      });
    });
}

// `agent-ledger init`: write ./thresholds.toml from the shipped defaults; never overwrite one without --force.
import { copyFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { CliError, say } from "./shared.js";

/** The commented defaults shipped beside package.json. */
export const DEFAULT_THRESHOLDS = fileURLToPath(new URL("../../thresholds.default.toml", import.meta.url));

/** Adds `init` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .option("--force", "overwrite an existing thresholds.toml")
    .option("--dir <dir>", "where to write thresholds.toml", ".")
    .action((flags: { force?: boolean; dir: string }) => {
      const target = resolve(flags.dir, "thresholds.toml");
      if (existsSync(target) && !flags.force)
        throw new CliError(`${target} exists; pass --force to overwrite it with the defaults`);
      copyFileSync(DEFAULT_THRESHOLDS, target);
      say(`wrote ${target}`);
    });
}

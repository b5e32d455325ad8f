// `agent-ledger validate FILE...`: one PASS or BLOCK line per file, gated against the database without recording.
import type { Command } from "commander";
import { finish, gateFiles, openGateTarget, readInputFile, resolveSettings, type GateFlags } from "./gating.js";
import { say } from "./shared.js";

const note = (line: string): void => void process.stderr.write(`${line}\n`);

async function run(files: string[], flags: GateFlags): Promise<void> {
  const { settings } = resolveSettings(flags.settings);
  const inputs = files.map(readInputFile);
  const target = await openGateTarget(flags, false);
  try {
    const results = await gateFiles(inputs, target, settings, note);
    for (const { file, evaluation: e } of results) {
      const score = e.overall_score.toFixed(1);
      say(
        e.status === "released"
          ? `PASS ${file.path} (score ${score})`
          : `BLOCK ${file.path} (score ${score}): ${e.blocked_by.join(", ")}`,
      );
    }
    finish(results);
  } finally {
    await target.close();
  }
}

/** Adds `validate` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .argument("<files...>", "result files, as for evaluate")
    .option("--settings <file>", "thresholds.toml (default ./thresholds.toml, else the built-in defaults)")
    .option("--db <file>", "SQLite file read for history (default AGENT_LEDGER_DB or ./data/ledger.db); never written")
    .option("--team <name>", "the team whose ledger and history to use", "default")
    .action((files: string[], flags: GateFlags) => run(files, flags));
}

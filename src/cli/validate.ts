// `agent-ledger validate FILE...`: one PASS or BLOCK line per file, gated against the database without recording.
import type { Command } from "commander";
import {
  finish,
  gateFiles,
  type GateFlags,
  type InputFile,
  openGateTarget,
  readInputFile,
  resolveSettings,
} from "./gating.js";
import { CliError, say } from "./shared.js";

const note = (line: string): void => void process.stderr.write(`${line}\n`);

async function run(files: string[], flags: GateFlags): Promise<void> {
  const { settings } = resolveSettings(flags.settings);
  // One line per file, in the order given: a file that cannot be read or is not a result gets its ERROR line too.
  const read = files.map((path) => {
    try {
      return readInputFile(path);
    } catch (e) {
      if (e instanceof CliError) return { path, error: e.message };
      throw e;
    }
  });
  const inputs = read.filter((r): r is InputFile => !("error" in r));
  const target = await openGateTarget(flags, false);
  try {
    const results = await gateFiles(inputs, target, settings, note);
    const gated = new Map(results.map((r) => [r.file, r.evaluation]));
    for (const r of read) {
      const e = "error" in r ? undefined : gated.get(r);
      if (e === undefined) say(`ERROR ${"error" in r ? r.error : r.path}`);
      else {
        const score = e.overall_score.toFixed(1);
        say(
          e.status === "released"
            ? `PASS ${r.path} (score ${score})`
            : `BLOCK ${r.path} (score ${score}): ${e.blocked_by.join(", ")}`,
        );
      }
    }
    const errors = read.length - inputs.length;
    if (errors > 0)
      throw new CliError(`${errors} of ${read.length} file(s) could not be validated (ERROR lines above)`);
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

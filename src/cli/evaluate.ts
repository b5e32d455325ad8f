// `agent-ledger evaluate FILE...`: gate results against the local database and record them, so CI builds history.
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import type { Command } from "commander";
import { renderMarkdown } from "../gates/report.js";
import { finish, gateFiles, openGateTarget, readInputFile, resolveSettings, type GateFlags } from "./gating.js";
import { CliError, say } from "./shared.js";

/** Flags of `evaluate`. */
type Flags = GateFlags & { format: string; out?: string; record: boolean };

const FORMATS = { json: ".json", markdown: ".md" } as const;
type Format = keyof typeof FORMATS;

const note = (line: string): void => void process.stderr.write(`${line}\n`);

async function run(files: string[], flags: Flags): Promise<void> {
  if (!(flags.format in FORMATS)) throw new CliError(`--format must be json or markdown, received '${flags.format}'`);
  const format = flags.format as Format;
  const { settings } = resolveSettings(flags.settings);
  const inputs = files.map(readInputFile);
  const target = await openGateTarget(flags, flags.record);
  try {
    const results = await gateFiles(inputs, target, settings, note);
    const reports = results.map(({ file, evaluation, settings: used }) => {
      const id = target.record ? evaluation.id : null;
      if (format === "json") return { file, json: { source: file.path, ...evaluation, id } };
      const md = renderMarkdown(evaluation, {
        title: file.path,
        conjunctive: used.global.conjunctive,
        minScore: used.global.min_score,
      });
      return {
        file,
        markdown: `${md}\n${id === null ? "Not recorded (--no-record)." : `Recorded as evaluation ${id} in ${target.where}.`}\n`,
      };
    });
    const text = (r: (typeof reports)[number]): string =>
      "json" in r ? `${JSON.stringify(r.json, null, 2)}\n` : r.markdown;
    if (flags.out !== undefined) {
      mkdirSync(flags.out, { recursive: true });
      reports.forEach((r, i) => {
        const path = join(flags.out as string, `${basename(r.file.path, extname(r.file.path))}${FORMATS[format]}`);
        writeFileSync(path, text(r));
        say(`wrote ${path} (${results[i]?.evaluation.status})`);
      });
    } else if (format === "json" && reports.length > 1) {
      say(
        JSON.stringify(
          reports.map((r) => ("json" in r ? r.json : null)),
          null,
          2,
        ),
      );
    } else {
      process.stdout.write(reports.map(text).join("\n"));
    }
    finish(results);
  } finally {
    await target.close();
  }
}

/** Adds `evaluate` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .argument(
      "<files...>",
      "result files: a result, {task, result} or {task, runs}, optionally with settings and ledger",
    )
    .option("--settings <file>", "thresholds.toml (default ./thresholds.toml, else the built-in defaults)")
    .option("--format <format>", "json or markdown", "markdown")
    .option("--out <dir>", "write one report per file into DIR instead of stdout")
    .option("--no-record", "gate against the database but write nothing to it")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <name>", "the team whose ledger and history to use", "default")
    .action((files: string[], flags: Flags) => run(files, flags));
}

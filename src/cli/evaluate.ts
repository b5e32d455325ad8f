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

function run(files: string[], flags: Flags): void {
  if (!(flags.format in FORMATS)) throw new CliError(`--format must be json or markdown, received '${flags.format}'`);
  const format = flags.format as Format;
  const { settings } = resolveSettings(flags.settings);
  const inputs = files.map(readInputFile);
  const target = openGateTarget(flags, flags.record);
  try {
    const results = gateFiles(inputs, target, settings, note);
    const rendered = results.map(({ file, evaluation, settings: used }) => {
      const id = target.record ? evaluation.id : null;
      if (format === "json") return { file, text: `${JSON.stringify({ source: file.path, ...evaluation, id }, null, 2)}\n`, value: { source: file.path, ...evaluation, id } };
      const md = renderMarkdown(evaluation, { title: file.path, conjunctive: used.global.conjunctive, minScore: used.global.min_score });
      const tail = id === null ? "Not recorded (--no-record).\n" : `Recorded as evaluation ${id} in ${target.where}.\n`;
      return { file, text: `${md}\n${tail}`, value: null };
    });
    if (flags.out !== undefined) {
      mkdirSync(flags.out, { recursive: true });
      rendered.forEach(({ file, text }, i) => {
        const path = join(flags.out as string, `${basename(file.path, extname(file.path))}${FORMATS[format]}`);
        writeFileSync(path, text);
        say(`wrote ${path} (${results[i]?.evaluation.status})`);
      });
    } else if (format === "json" && rendered.length > 1) {
      say(JSON.stringify(rendered.map((r) => r.value), null, 2));
    } else {
      process.stdout.write(rendered.map((r) => r.text).join("\n"));
    }
    finish(results);
  } finally {
    target.close();
  }
}

/** Adds `evaluate` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .argument("<files...>", "result files: a result, {task, result} or {task, runs}, optionally with settings and ledger")
    .option("--settings <file>", "thresholds.toml (default ./thresholds.toml, else the built-in defaults)")
    .option("--format <format>", "json or markdown", "markdown")
    .option("--out <dir>", "write one report per file into DIR instead of stdout")
    .option("--no-record", "gate against the database but write nothing to it")
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <name>", "the team whose ledger and history to use", "default")
    .action((files: string[], flags: Flags) => run(files, flags));
}

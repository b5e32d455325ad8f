// `agent-ledger bench run` and `bench report`: the evaluation harness (API.md, "Evaluation harness (CLI)").
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { type Cell, runBatch } from "../harness/batch.js";
import { type HarnessLedger, StoreHarnessLedger } from "../harness/ledger.js";
import { RemoteHarnessLedger } from "../harness/remote-ledger.js";
import { Progress } from "../harness/progress.js";
import { anthropicProvider } from "../harness/providers/anthropic.js";
import { DEFAULT_RETRY, type RetryPolicy } from "../harness/providers/http.js";
import { openaiProvider } from "../harness/providers/openai.js";
import { readRecorded, recordedCells, recordedProvider } from "../harness/providers/recorded.js";
import type { ModelProvider } from "../harness/providers/types.js";
import { CONDITION_NAMES, SelectionError, selectConditions, selectTasks, taskData } from "../harness/suites.js";
import { buildTables, renderTables } from "../harness/tables.js";
import { newId } from "../store/common/ids.js";
import { CliError, cliConfig, openConfiguredStore, say } from "./shared.js";
import type { BenchRun } from "../store/model.js";
import { DEFAULT_TEAM } from "../store/common/tokens.js";
import { QueryError, parseLabel } from "../query-params.js";

/** Where runs are recorded: flags shared by run and report. */
type TargetFlags = { db?: string; team: string; ledgerUrl?: string; token?: string };

type RunFlags = TargetFlags & {
  suite?: string;
  tasks?: string;
  conditions?: string;
  model?: string;
  provider: string;
  baseUrl?: string;
  replicates: string;
  concurrency: string;
  maxTurns: string;
  maxTokens: string;
  format: string;
  batch?: string;
  from?: string;
  retries: string;
  retryBaseMs: string;
};

type ReportFlags = TargetFlags & { label: string[]; format: string };

const DEFAULT_BASE = { openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com" } as const;

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new CliError(`${flag} must be a whole number from ${min} to ${max}, received '${text}'`);
  return n;
}

function checkFormat(format: string): "markdown" | "json" {
  if (format !== "markdown" && format !== "json")
    throw new CliError(`--format must be markdown or json, received '${format}'`);
  return format;
}

/** Opens the local database's team, or the service at --ledger-url. */
async function openTarget(flags: TargetFlags): Promise<HarnessLedger> {
  if (flags.ledgerUrl !== undefined) {
    const token = flags.token ?? process.env.AGENT_LEDGER_TOKEN;
    if (!token)
      throw new CliError("--ledger-url needs --token (or AGENT_LEDGER_TOKEN) with a team token of that service");
    return new RemoteHarnessLedger(flags.ledgerUrl, token);
  }
  const store = await openConfiguredStore(cliConfig(flags));
  try {
    const teamId =
      flags.team === DEFAULT_TEAM ? await store.teams.ensureDefault() : (await store.teams.byName(flags.team))?.id;
    if (teamId === undefined)
      throw new CliError(`no team named '${flags.team}' in this database; pass --team with an existing team's name`);
    return new StoreHarnessLedger(store, teamId, flags.team, () => store.close());
  } catch (e) {
    await store.close();
    throw e;
  }
}

function provider(flags: RunFlags, retry: RetryPolicy): ModelProvider {
  if (flags.provider === "openai")
    return openaiProvider(flags.baseUrl ?? DEFAULT_BASE.openai, process.env.OPENAI_API_KEY, retry);
  if (flags.provider === "anthropic")
    return anthropicProvider(flags.baseUrl ?? DEFAULT_BASE.anthropic, process.env.ANTHROPIC_API_KEY, retry);
  throw new CliError(`--provider must be openai, anthropic or recorded, received '${flags.provider}'`);
}

function selection<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SelectionError) throw new CliError(e.message);
    throw e;
  }
}

const list = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);

/** The runs and tables as `--format` asks. */
function printRuns(runs: readonly BenchRun[], format: "markdown" | "json", heading: string): void {
  const tables = buildTables(runs);
  if (format === "json") {
    say(JSON.stringify({ runs, tables }, null, 2));
    return;
  }
  say(`${heading}\n\n${renderTables(tables)}`);
}

async function run(flags: RunFlags): Promise<void> {
  const format = checkFormat(flags.format);
  const data = taskData();
  const recorded = flags.provider === "recorded";
  if (flags.suite === undefined && !recorded)
    throw new CliError("--suite is required: core, hard, grid, proof, uk or all");
  const tasks = selection(() => selectTasks(data, flags.suite ?? "all", list(flags.tasks)));
  const conditions = selection(() => selectConditions(list(flags.conditions) ?? CONDITION_NAMES));
  const retry: RetryPolicy = {
    ...DEFAULT_RETRY,
    retries: wholeNumber("--retries", flags.retries, 0, 20),
    baseDelayMs: wholeNumber("--retry-base-ms", flags.retryBaseMs, 0, 600_000),
  };
  const concurrency = wholeNumber("--concurrency", flags.concurrency, 1, 256);
  const maxTurns = wholeNumber("--max-turns", flags.maxTurns, 1, 64);
  const maxTokens = wholeNumber("--max-tokens", flags.maxTokens, 1, 1_000_000);
  let cells: Cell[];
  let model: ModelProvider;
  if (recorded) {
    const from = flags.from ?? "../shared/corpus/transcripts.jsonl";
    if (!existsSync(from))
      throw new CliError(
        `the recorded transcripts are not at ${from}: --provider recorded replays the shared corpus ` +
          "(../shared/corpus/transcripts.jsonl, outside this repository); pass --from with its path",
      );
    const runs = readRecorded(from);
    cells = recordedCells(runs, tasks, conditions, flags.model);
    model = recordedProvider(runs, from);
  } else {
    if (!flags.model)
      throw new CliError("--model is required: name the model the provider should run, such as gpt-4o-mini");
    const replicates = wholeNumber("--replicates", flags.replicates, 1, 1000);
    model = provider(flags, retry);
    cells = tasks.flatMap((task) =>
      conditions.flatMap((condition) =>
        Array.from({ length: replicates }, (_, replicate) => ({
          task,
          condition,
          model: flags.model as string,
          replicate,
        })),
      ),
    );
  }
  const batch = flags.batch ?? `bench-${newId()}`;
  const ledger = await openTarget(flags);
  try {
    process.stderr.write(
      `bench: batch ${batch}, ${cells.length} runs against ${model.where}, recorded in ${ledger.where}\n`,
    );
    const result = await runBatch({
      batch,
      cells,
      data,
      provider: model,
      ledger,
      concurrency,
      maxTurns,
      maxTokens,
      progress: new Progress(cells.length),
    });
    const all = await ledger.listRuns({ batch });
    const heading = `## Batch ${batch}\n\n${result.runs.length} runs made now, ${result.skipped} already stored (skipped); recorded in ${ledger.where}.`;
    printRuns(all, format, heading);
    if (result.stopped !== null)
      throw new CliError(
        `the batch stopped: ${result.stopped}. ${all.length} runs of batch ${batch} are stored; run the same command with --batch ${batch} to resume`,
      );
  } finally {
    await ledger.close();
  }
}

async function report(flags: ReportFlags): Promise<void> {
  const format = checkFormat(flags.format);
  let labels: ReturnType<typeof parseLabel>[];
  try {
    labels = flags.label.map((l) => parseLabel(l));
  } catch (e) {
    if (e instanceof QueryError) throw new CliError(e.message.replace(/^label/, "--label"));
    throw e;
  }
  const ledger = await openTarget(flags);
  try {
    const runs = await ledger.listRuns({ labels });
    const filter = flags.label.length ? ` with ${flags.label.join(", ")}` : "";
    printRuns(runs, format, `## Harness runs${filter}\n\n${runs.length} stored runs in ${ledger.where}.`);
  } finally {
    await ledger.close();
  }
}

const collect = (v: string, acc: string[]) => [...acc, v];

function targetOptions(cmd: Command): Command {
  return cmd
    .option("--db <file>", "SQLite file (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--team <name>", "the team of the local database that holds the runs", "default")
    .option("--ledger-url <url>", "record in a running agent-ledger service instead of the local database")
    .option("--token <token>", "the team token for --ledger-url (default AGENT_LEDGER_TOKEN)");
}

/** Adds `bench run` and `bench report`. */
export function configure(cmd: Command): void {
  targetOptions(
    cmd
      .command("run")
      .description(
        "run task suites against a model under each condition, every run a ledger session, graded and stored",
      )
      .option("--suite <suite>", "core, hard, grid, proof, uk or all")
      .option("--tasks <names>", "only these tasks of the suite, comma-separated")
      .option("--conditions <names>", `comma-separated, default all: ${CONDITION_NAMES.join(",")}`)
      .option("--model <name>", "the model name the provider runs")
      .option("--provider <name>", "openai (chat completions), anthropic (messages) or recorded", "openai")
      .option("--base-url <url>", "the provider's base URL (openai: https://api.openai.com/v1)")
      .option("--replicates <n>", "runs per task and condition", "8")
      .option("--concurrency <k>", "runs in flight at once", "4")
      .option("--max-turns <n>", "model turns per run", "8")
      .option("--max-tokens <n>", "output tokens per model turn", "2048")
      .option("--format <format>", "markdown or json", "markdown")
      .option("--batch <name>", "the batch label; an existing batch is resumed, skipping the runs it holds")
      .option(
        "--from <file>",
        "with --provider recorded: the corpus transcripts.jsonl",
        "../shared/corpus/transcripts.jsonl",
      )
      .option("--retries <n>", "retries of a request answered 429 or 5xx, or refused", "5")
      .option("--retry-base-ms <ms>", "the first retry's wait, doubled each time (Retry-After wins)", "1000")
      .exitOverride(),
  ).action((flags: RunFlags) => run(flags));
  targetOptions(
    cmd
      .command("report")
      .description("the tables by condition, by task and unit carry-over per model, from stored runs")
      .option("--label <k:v>", "only runs whose session has this label (repeat to require several)", collect, [])
      .option("--format <format>", "markdown or json", "markdown")
      .exitOverride(),
  ).action((flags: ReportFlags) => report(flags));
}

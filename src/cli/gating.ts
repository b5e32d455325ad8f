// What `evaluate` and `validate` share: settings resolution, input files, file ledgers and the database to gate against.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError, loadConfig, redactDbLocation, type Config } from "../config.js";
import { notAResult, splitEvaluationInput } from "../gates/contracts.js";
import { checkClaims, LimitError } from "../limits.js";
import {
  DEFAULT_SETTINGS,
  mergeSettings,
  parseThresholdsToml,
  SettingsError,
  type Settings,
} from "../gates/settings.js";
import { parseLedgerText, type LedgerLine } from "../store/common/claims-jsonl.js";
import { openStore } from "../store/open.js";
import type { LedgerStore } from "../store/port.js";
import { openSqliteStore } from "../store/sqlite/store.js";
import { CliError, cliConfig, type DbFlags } from "./shared.js";
import type { Evaluation } from "../store/model.js";
import { DEFAULT_TEAM } from "../store/common/tokens.js";

/** Flags of `evaluate` and `validate`. */
export type GateFlags = DbFlags & { settings?: string; team: string };

/** Settings and where they came from. */
export type ResolvedSettings = { settings: Settings; source: string };

/** `--settings F`, else ./thresholds.toml, else the defaults; a file that cannot be used is a CliError (exit 1). */
export function resolveSettings(flag: string | undefined, cwd: string = process.cwd()): ResolvedSettings {
  const path = flag ?? (existsSync(join(cwd, "thresholds.toml")) ? join(cwd, "thresholds.toml") : undefined);
  if (path === undefined) return { settings: DEFAULT_SETTINGS, source: "defaults" };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new CliError(
      `cannot read the settings file ${path}: ` +
        `${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}; pass ` +
        `--settings with a thresholds.toml (agent-ledger init writes one)`,
    );
  }
  try {
    return { settings: mergeSettings(DEFAULT_SETTINGS, parseThresholdsToml(text)), source: path };
  } catch (e) {
    if (e instanceof SettingsError) throw new CliError(`${path}: ${e.message}`);
    throw e;
  }
}

/** `global.claim_ledger` when set (relative to cwd), else the nearest memory/claims.jsonl upwards from cwd, else null. */
export function findLedgerFile(settings: Settings, cwd: string = process.cwd()): string | null {
  if (settings.global.claim_ledger !== "") return resolve(cwd, settings.global.claim_ledger);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, "memory", "claims.jsonl");
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** Reads a file ledger for this run only. Like the original, a missing or unreadable file is an empty ledger (noted on stderr). */
export function readLedgerFile(path: string, note: (line: string) => void): LedgerLine[] {
  let text: string;
  try {
    if (!statSync(path).isFile()) throw new Error("not a file");
    text = readFileSync(path, "utf8");
  } catch (e) {
    note(`claim ledger ${path} not read (${(e as Error).message}); using the database ledger only`);
    return [];
  }
  const parsed = parseLedgerText(text);
  note(`claim ledger ${path}: ${parsed.claims.length} claim(s), ${parsed.skipped.length} line(s) skipped`);
  for (const s of parsed.skipped) note(`  line ${s.line} skipped: ${s.reason}`);
  for (const w of parsed.warnings) note(`  line ${w.line} (${w.id}) ${w.field}: ${w.reason}`);
  return parsed.claims.map((c) => c.claim);
}

/** An input file read: its JSON and its own ledger lines. */
export type InputFile = { path: string; input: unknown; ledger: LedgerLine[] };

/**
 * Reads an evaluation file. A file that cannot be read, is not JSON or is not a result is a CliError (exit 1): a usage
 * error, never an evaluation. A `ledger` key (an array of ledger lines, the original claims.jsonl objects) is taken out
 * of the input and used for this evaluation only; it is never written to the database.
 */
export function readInputFile(path: string): InputFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new CliError(
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`,
    );
  }
  let input: unknown;
  try {
    input = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new CliError(`${path} is not JSON (${(e as Error).message}); send a result, {task, result} or {task, runs}`);
  }
  const checked = (file: InputFile): InputFile => {
    const problem = notAResult(file.input);
    if (problem !== null) throw new CliError(`${path} is not a result: ${problem}`);
    return file;
  };
  if (typeof input !== "object" || input === null || Array.isArray(input) || !("ledger" in input))
    return checked({ path, input, ledger: [] });
  const { ledger, ...rest } = input as Record<string, unknown>;
  if (!Array.isArray(ledger))
    throw new CliError(`${path}: "ledger" must be an array of claim objects (the lines of memory/claims.jsonl)`);
  const parsed = parseLedgerText(ledger.map((l) => JSON.stringify(l)).join("\n"));
  for (const s of parsed.skipped) process.stderr.write(`${path}: ledger entry ${s.line} skipped: ${s.reason}\n`);
  return checked({ path, input: rest, ledger: parsed.claims.map((c) => c.claim) });
}

/** The store to gate against, the team, and whether evaluations are written. */
export type GateTarget = {
  store: LedgerStore;
  teamId: string;
  record: boolean;
  where: string;
  /** False for the empty in-memory history: ledger locators then have nothing to resolve against. */
  ledger: boolean;
  close(): Promise<void>;
};

/**
 * Opens the configured database (AGENT_LEDGER_DB or --db). With `record`, it is created when absent and the team
 * `default` made on first use. Without, nothing is written: a missing file or team is an empty history in memory.
 */
export async function openGateTarget(flags: GateFlags, record: boolean): Promise<GateTarget> {
  let config: Config;
  try {
    config = cliConfig(flags);
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(e.message);
    throw e;
  }
  const file = config.dbFile;
  const where = redactDbLocation(file);
  const memory = async (): Promise<GateTarget> => {
    const store = openSqliteStore(":memory:");
    return {
      store,
      teamId: await store.teams.ensureDefault(),
      record: false,
      where: "an empty history (no database written)",
      ledger: false,
      close: () => store.close(),
    };
  };
  if (!record && config.dbEngine === "sqlite" && !existsSync(file)) return memory();
  const store = await openStore(file, { sync: config.sync });
  const team = await store.teams.byName(flags.team);
  if (team)
    return {
      store,
      teamId: team.id,
      record,
      where: `${where} (team ${flags.team})`,
      ledger: true,
      close: () => store.close(),
    };
  if (record && flags.team === DEFAULT_TEAM)
    return {
      store,
      teamId: await store.teams.ensureDefault(),
      record,
      where: `${where} (team default)`,
      ledger: true,
      close: () => store.close(),
    };
  await store.close();
  if (!record && flags.team === DEFAULT_TEAM) return memory();
  throw new CliError(`no team named '${flags.team}' in ${where}; pass --team with an existing team's name`);
}

/** Gates each file against the target, recording when the target says so; a bad setting in any file stops before the first. */
export async function gateFiles(
  files: readonly InputFile[],
  target: GateTarget,
  base: Settings,
  note: (line: string) => void,
): Promise<{ file: InputFile; evaluation: Evaluation; settings: Settings }[]> {
  const fileLedger = findLedgerFile(base);
  const shared = fileLedger === null ? [] : readLedgerFile(fileLedger, note);
  // Every file's own settings are checked before anything is evaluated, so a bad one leaves no partial record.
  const { limits } = loadConfig();
  for (const file of files) {
    try {
      checkClaims(file.input, limits);
    } catch (e) {
      if (e instanceof LimitError) throw new CliError(`${file.path}: ${e.message}`);
      throw e;
    }
    try {
      mergeSettings(base, splitEvaluationInput(file.input).settings);
    } catch (e) {
      if (e instanceof SettingsError) throw new CliError(`${file.path}: invalid settings: ${e.message}`);
      throw e;
    }
  }
  const out: { file: InputFile; evaluation: Evaluation; settings: Settings }[] = [];
  for (const file of files) {
    const { evaluation, settings } = await target.store.evaluations.evaluate(target.teamId, file.input, {
      settings: base,
      record: target.record,
      extraLedger: [...shared, ...file.ledger],
      // evidence.check_paths: file sources are relative to the input file's directory.
      pathExists: (p: string) => existsSync(resolve(dirname(file.path), p)),
      resolveLedger: target.ledger,
    });
    const unchecked = evaluation.sources.filter((l) => l.status === "unchecked").length;
    if (unchecked > 0)
      note(
        `${file.path}: ${unchecked} ledger source(s) not resolved: there is no ledger database here; ` +
          "pass --db FILE or set AGENT_LEDGER_DB to the database the sessions were recorded in",
      );
    out.push({ file, evaluation, settings });
  }
  return out;
}

/** The exit code and message for gated files: 0 when every one is released, 2 (a CliError) when any is blocked. */
export function finish(results: readonly { file: InputFile; evaluation: Evaluation }[]): void {
  const blocked = results.filter((r) => r.evaluation.status === "blocked");
  if (blocked.length === 0) return;
  const list = blocked.map((r) => `${r.file.path} (${r.evaluation.blocked_by.join(", ")})`).join("; ");
  throw new CliError(`${blocked.length} of ${results.length} result(s) blocked: ${list}`, 2);
}

// The agent-ledger command line. Each command is a module imported only when it runs, so --version
// and --help load commander alone (no mathjs, no database).
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { VERSION } from "../version.js";

/** What every src/cli/<name>.ts exports: adds its options, arguments and action to `cmd`. */
export type CommandModule = { configure(cmd: Command): void };

type CommandSpec = { name: string; summary: string; load: () => Promise<CommandModule> };

/** Every command, in help order. Add a command with one line here and a src/cli/<name>.ts module. */
const COMMANDS: readonly CommandSpec[] = [
  {
    name: "serve",
    summary: "migrate, seed and serve the HTTP API (PORT, HOST, AGENT_LEDGER_DB)",
    load: () => import("./serve.js"),
  },
  { name: "migrate", summary: "create or upgrade the database schema, then exit", load: () => import("./migrate.js") },
  { name: "seed", summary: "add the default team and the examples (idempotent)", load: () => import("./seed.js") },
  { name: "admin", summary: "administration: rotate-token", load: () => import("./admin.js") },
  {
    name: "mcp",
    summary: "guard an MCP server: --annotations FILE -- <command> [args...]",
    load: () => import("./mcp.js"),
  },
  {
    name: "sessions",
    summary: "list past sessions by --label, --tool, --code, --since, --until",
    load: () => import("./sessions.js"),
  },
  {
    name: "replay",
    summary: "re-check stored sessions (an id, --label or --since); exit 2 when a verdict differs",
    load: () => import("./replay.js"),
  },
  { name: "export", summary: "print a session's manifest as JSON", load: () => import("./export.js") },
  {
    name: "verify",
    summary:
      "walk each team's hash chain; exit 2 naming the first entry that does not hold (--team, --since, --anchor)",
    load: () => import("./verify.js"),
  },
  {
    name: "anchor",
    summary: "append every team's signed chain head to --to FILE (keep it elsewhere; verify --anchor checks it)",
    load: () => import("./anchor.js"),
  },
  {
    name: "verify-export",
    summary: "check an exported manifest's proof offline with --public-key PEMFILE; exit 2 when it does not hold",
    load: () => import("./verify-export.js"),
  },
  {
    name: "archive",
    summary: "move sessions created before --before into the SQLite archive --to, verified before deleting",
    load: () => import("./archive.js"),
  },
  {
    name: "backup",
    summary: "copy the database to <file> with SQLite's online backup, safe while the server runs",
    load: () => import("./backup.js"),
  },
  {
    name: "copy",
    summary: "copy a SQLite ledger into an empty PostgreSQL database: copy --from FILE --to postgres://...",
    load: () => import("./copy.js"),
  },
  {
    name: "restore",
    summary: "check a backup with integrity_check, then restore it (--force to replace an existing database)",
    load: () => import("./restore.js"),
  },
  {
    name: "init",
    summary: "write ./thresholds.toml with the default release-gate thresholds (--force to overwrite)",
    load: () => import("./init.js"),
  },
  {
    name: "evaluate",
    summary: "gate result files against the local ledger and record them; exit 2 when any is blocked",
    load: () => import("./evaluate.js"),
  },
  {
    name: "validate",
    summary: "one PASS or BLOCK line per result file, recording nothing; exit 2 when any is blocked",
    load: () => import("./validate.js"),
  },
  {
    name: "bench",
    summary: "the evaluation harness: bench run (task suites against a model, per condition), bench report (tables)",
    load: () => import("./bench.js"),
  },
  {
    name: "revisions",
    summary: "readings revised since --since, each with the released evaluations resting on the old value",
    load: () => import("./revisions.js"),
  },
  {
    name: "pins",
    summary: "the gateway's pinned upstream tools: pins list, pins approve <upstream> [<tool>]",
    load: () => import("./pins.js"),
  },
  {
    name: "claims",
    summary: "the team claim ledger as JSON Lines: claims import FILE, claims export",
    load: () => import("./claims.js"),
  },
];

/** The command named on the command line (`help <name>` counts), or undefined. */
function requestedCommand(args: readonly string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}

/** Runs the CLI on `argv` (process.argv form) and resolves to the exit code. */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  const program = new Command("agent-ledger")
    .description("Unit, datum and provenance guard for agent tool calls, with a claim ledger and release gates.")
    .version(VERSION, "-V, --version", "print the version")
    .exitOverride();
  const wanted = requestedCommand(argv.slice(2));
  for (const spec of COMMANDS) {
    const cmd = program.command(spec.name).description(spec.summary).exitOverride();
    if (spec.name === wanted) (await spec.load()).configure(cmd);
  }
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    const err = e as { message?: string; code?: string; exitCode?: number };
    process.stderr.write(`agent-ledger: ${err.message ?? String(e)}\n`);
    if (err.code === "config_error") return 2;
    return typeof err.exitCode === "number" ? err.exitCode : 1;
  }
}

const entry = process.argv[1];
if (entry !== undefined && realpathSync(entry) === fileURLToPath(import.meta.url)) {
  main().then((code) => {
    process.exitCode = code;
  });
}

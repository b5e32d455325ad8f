// `agent-ledger restore <file>`: checks a backup with integrity_check first, then copies it over the database
// with SQLite's backup API. An existing database is replaced only with --force, and is kept beside it first.
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { isPostgresUrl, redactUrl } from "../store/pg/open.js";
import {
  assertLedger,
  assertOurSchema,
  describeLedger,
  integrityProblems,
  integritySummary,
  onlineCopy,
  openExisting,
} from "./ledger-file.js";
import { CliError, cliConfig, say } from "./shared.js";

type Flags = { db?: string; force?: boolean; verbose?: boolean };

/** A timestamp usable in a file name: 2026-11-30T05-59-29-123Z. */
const stamp = (d: Date): string => d.toISOString().replace(/[:.]/g, "-");

/** Every integrity_check problem on stderr, one per line, before the refusal. */
function listProblems(file: string, problems: readonly string[]): void {
  process.stderr.write(`PRAGMA integrity_check on ${file}:\n${problems.map((p) => `  ${p}\n`).join("")}`);
}

async function run(file: string, flags: Flags): Promise<void> {
  const target = cliConfig(flags).dbFile;
  if (isPostgresUrl(target))
    throw new CliError(
      `the database is PostgreSQL (${redactUrl(target)}), and agent-ledger restore writes SQLite files only: ` +
        "restore a pg_dump archive with pg_restore, or move a SQLite ledger in with agent-ledger copy --from FILE --to URL",
    );
  if (target === ":memory:")
    throw new CliError(
      "the database is :memory:, so there is no file to restore into: set AGENT_LEDGER_DB or pass --db <file>",
    );
  if (!existsSync(file)) throw new CliError(`no backup at ${file}: nothing was changed`);
  if (resolve(file) === resolve(target)) throw new CliError(`${file} is the database itself: nothing was changed`);

  // A read-only connection to a WAL-mode file creates its -wal and -shm and cannot remove them on close.
  const sidecars = [`${file}-wal`, `${file}-shm`].filter((f) => !existsSync(f));
  const backup = openExisting(file, { readonly: true });
  try {
    const problems = integrityProblems(backup, file);
    if (problems.length > 0) {
      // A damaged file can answer dozens of lines: one summary line, and the list only when asked for.
      if (flags.verbose) listProblems(file, problems);
      throw new CliError(
        `${file} fails PRAGMA integrity_check (${integritySummary(problems)}): refusing to restore a damaged backup; ` +
          `nothing was changed${flags.verbose ? "" : " (--verbose lists every problem)"}`,
      );
    }
    assertLedger(backup, file);
    await assertOurSchema(backup, file, "restore");

    let kept: string | undefined;
    if (existsSync(target)) {
      const current = openExisting(target);
      try {
        if (!flags.force) {
          throw new CliError(
            `${target} exists and holds a ledger (${describeLedger(current)}): restoring would replace it. Stop the server and run again ` +
              "with --force (the current database is kept beside it first), or pass --db <new file> to restore to another path; nothing was changed",
          );
        }
        kept = `${target}.before-restore-${stamp(new Date())}`;
        await onlineCopy(current, kept);
      } finally {
        current.close();
      }
    } else {
      mkdirSync(dirname(resolve(target)), { recursive: true });
    }
    // The backup API writes the pages under the target's own locks, so a connection still open on it sees the
    // old database or the new one, never a mix (a plain file copy under a live WAL file can corrupt it).
    await onlineCopy(backup, target);
    const restored = openExisting(target);
    try {
      const after = integrityProblems(restored, target);
      if (after.length > 0) {
        if (flags.verbose) listProblems(target, after);
        throw new CliError(
          `${target} fails PRAGMA integrity_check after the restore ` +
            `(${integritySummary(after)})${kept ? `; the previous database is kept as ${kept}` : ""}`,
        );
      }
      say(
        `restored ${file} into ${target}: integrity ok (${describeLedger(restored)})${kept ? `; the previous database is kept as ${kept}` : ""}`,
      );
    } finally {
      restored.close();
    }
  } finally {
    backup.close();
    for (const f of sidecars)
      if (existsSync(f) && (f.endsWith("-shm") || statSync(f).size === 0)) rmSync(f, { force: true });
  }
}

/** Adds `restore <file>` and its flags. */
export function configure(cmd: Command): void {
  cmd
    .argument("<file>", "a backup made by `agent-ledger backup`")
    .option("--db <file>", "the database to restore into (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--force", "replace an existing database (it is kept as <db>.before-restore-<time> first)")
    .option(
      "--verbose",
      "list every PRAGMA integrity_check problem of a damaged file, not only the count and the first",
    )
    .action((file: string, flags: Flags) => run(file, flags));
}

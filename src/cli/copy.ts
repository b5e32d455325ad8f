// `agent-ledger copy --from file.db --to postgres://...`: moves a SQLite ledger into an empty PostgreSQL database with
// every row and id intact, then proves it: the row counts of every table match, and every session's manifest reads
// back the same on PostgreSQL and replays identically there.
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { systemClock } from "../clock.js";
import { replayManifest } from "../provenance/replay.js";
import { openDb } from "../store/sqlite/db.js";
import { Ledger } from "../store/sqlite/ledger.js";
import { loadManifest } from "../store/sqlite/manifests.js";
import { copySqliteToPg, pgCounts, sqliteCounts, TargetNotEmptyError } from "../store/pg/copy.js";
import { isPostgresUrl, redactUrl } from "../store/pg/open.js";
import { openPgStore } from "../store/pg/store.js";
import { schemaDifferences } from "../store/sqlite/schema-check.js";
import { queryOn } from "../store/pg/tx.js";
import { CliError, say } from "./shared.js";

type Flags = { from: string; to: string };

async function run(flags: Flags): Promise<void> {
  if (isPostgresUrl(flags.from) || flags.from === ":memory:")
    throw new CliError(`--from must be a SQLite file such as ./data/ledger.db, received ${redactUrl(flags.from)}`);
  if (!existsSync(flags.from)) throw new CliError(`no SQLite ledger at ${flags.from}: nothing to copy`);
  if (!isPostgresUrl(flags.to))
    throw new CliError(`--to must be a postgres:// or postgresql:// URL, received '${flags.to}'`);
  const source = openDb(flags.from);
  const differences = schemaDifferences(source.sqlite);
  if (differences.length > 0) {
    source.sqlite.close();
    throw new CliError(
      `${flags.from} does not have the schema our migrations make: it has ${differences.join("; ")}. Refusing to copy ` +
        "a database whose schema was changed outside our migrations; nothing was copied",
    );
  }
  const target = await openPgStore(flags.to);
  try {
    let copied: Record<string, number>;
    try {
      copied = await copySqliteToPg(source.sqlite, target.db.pool, target.where);
    } catch (e) {
      if (e instanceof TargetNotEmptyError) throw new CliError(e.message);
      throw e;
    }
    const before = sqliteCounts(source.sqlite);
    const after = await pgCounts(queryOn(target.db.pool));
    const mismatched = Object.keys(before).filter((t) => before[t] !== after[t] || before[t] !== copied[t]);
    if (mismatched.length > 0)
      throw new CliError(
        `row counts differ after the copy: ${mismatched.map((t) => `${t} ${before[t]} in SQLite, ${after[t]} on PostgreSQL`).join("; ")}`,
      );
    const ledger = new Ledger(source, systemClock);
    const sessions = source.sqlite.prepare("SELECT id, team_id FROM sessions ORDER BY id").all() as {
      id: string;
      team_id: string;
    }[];
    let differ = 0;
    for (const s of sessions) {
      const there = await target.manifests.load(s.team_id, s.id);
      const here = loadManifest(ledger, s.team_id, s.id);
      const same = JSON.stringify(there) === JSON.stringify(here);
      if (!same || !replayManifest(there).identical) {
        differ += 1;
        say(
          `DIFFERS    ${s.id}: ${same ? "its replay on PostgreSQL differs from the stored verdicts" : "its manifest reads back differently"}`,
        );
      }
    }
    const total = Object.values(copied).reduce((a, b) => a + b, 0);
    const byTable = Object.entries(copied)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${t} ${n}`)
      .join(", ");
    say(`copied ${total} row(s) from ${flags.from} to ${target.where} (${byTable}); every table's count matches`);
    if (differ > 0)
      throw new CliError(`${differ} of ${sessions.length} session(s) differ on PostgreSQL after the copy`, 2);
    say(`replayed ${sessions.length} session(s) on PostgreSQL: all identical to the SQLite ledger`);
  } finally {
    source.close();
    await target.close();
  }
}

/** Adds `copy --from <file> --to <url>`. */
export function configure(cmd: Command): void {
  cmd
    .requiredOption("--from <file>", "the SQLite ledger to copy")
    .requiredOption("--to <url>", "an empty PostgreSQL database (postgres://user:password@host:5432/name)")
    .action((flags: Flags) => run(flags));
}

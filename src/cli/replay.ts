// `agent-ledger replay`: re-run every check of stored sessions from their rows; exit 2 when any verdict differs.
import type { Command } from "commander";
import { replayManifest, type ReplayDifference } from "../provenance/replay.js";
import type { LedgerStore } from "../store/port.js";
import { asCliError, teamIdOf } from "./sessions.js";
import { CliError, say, withStore, readConfig } from "./shared.js";
import { parseInstant, parseLabel } from "../query-params.js";

/** Exit code when at least one replayed verdict differs from the stored one. */
export const EXIT_DIFFERS = 2;

type Flags = { db?: string; archive?: string; team: string; label: string[]; since?: string };

const collect = (v: string, acc: string[]) => [...acc, v];

/** Draws `[#####.....] 5/10` on stderr: redrawn in place on a terminal, written once at the end otherwise. */
function progress(total: number): { tick(done: number): void } {
  const tty = process.stderr.isTTY === true;
  const draw = (done: number) => {
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`;
  };
  return {
    tick(done: number) {
      if (tty) process.stderr.write(`\r${draw(done)}${done === total ? "\n" : ""}`);
      else if (done === total) process.stderr.write(`${draw(done)}\n`);
    },
  };
}

const show = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? "absent"));

function where(d: ReplayDifference): string {
  if (d.audit_id !== undefined) return `audit ${d.audit_id}`;
  return `call ${d.seq} (${d.call_id})`;
}

/** The sessions to replay: one id (of any team: the command holds the file), or a team's sessions by label and date. */
async function selectSessions(
  store: LedgerStore,
  id: string | undefined,
  flags: Flags,
): Promise<{ teamId: string; id: string }[]> {
  if (id !== undefined) {
    if (flags.label.length || flags.since !== undefined)
      throw new CliError("name either a session id or --label/--since, not both");
    const teamId = await store.sessions.teamOf(id);
    if (teamId === null) throw new CliError(`no session '${id}' in this database`);
    return [{ teamId, id }];
  }
  if (!flags.label.length && flags.since === undefined)
    throw new CliError("name what to replay: a session id, --label k:v, or --since DATE");
  const teamId = await teamIdOf(store, flags.team);
  const labels = asCliError(() => flags.label.map((l) => parseLabel(l)));
  const since = flags.since === undefined ? undefined : asCliError(() => parseInstant(flags.since!, "since"));
  const out: { teamId: string; id: string }[] = [];
  let cursor: [string, string] | null = null;
  for (;;) {
    const page = await store.sessions.list(teamId, { labels, since, limit: 500, cursor });
    out.push(...page.slice(0, 500).map((s) => ({ teamId, id: s.id })));
    if (page.length <= 500) break;
    const last = page[499]!;
    cursor = [last.createdAt, last.id];
  }
  return out.reverse();
}

async function run(id: string | undefined, flags: Flags): Promise<void> {
  await withStore(readConfig(flags), async (store) => {
    const sessions = await selectSessions(store, id, flags);
    if (sessions.length === 0) {
      say("no sessions match; nothing to replay");
      return;
    }
    const bar = progress(sessions.length);
    let differ = 0;
    for (const [i, s] of sessions.entries()) {
      const report = replayManifest(await store.manifests.load(s.teamId, s.id));
      if (report.identical) say(`identical  ${s.id}  ${report.calls} calls, ${report.audits} audits`);
      else {
        differ += 1;
        const d = report.differences[0]!;
        say(
          `DIFFERS    ${s.id}  ${report.difference_count} difference(s); first at ${where(d)}: ${d.field} ` +
            `stored ${show(d.stored)}, replayed ${show(d.replayed)}`,
        );
      }
      bar.tick(i + 1);
    }
    process.stderr.write(
      `replayed ${sessions.length} session(s): ${sessions.length - differ} identical, ${differ} differ\n`,
    );
    if (differ > 0) throw new CliError(`${differ} session(s) replayed with different verdicts`, EXIT_DIFFERS);
  });
}

/** Adds `replay [session-id]` with --label, --since, --team and --db. */
export function configure(cmd: Command): void {
  cmd
    .argument("[session-id]", "one session to replay")
    .option("--db <file>", "SQLite file or postgres:// URL (default AGENT_LEDGER_DB or ./data/ledger.db)")
    .option("--archive <file>", "replay sessions from an archive written by `agent-ledger archive`")
    .option("--label <k:v>", "replay the team's sessions with this label (repeat to require several)", collect, [])
    .option("--since <date>", "replay the team's sessions created at or after this date")
    .option("--team <name>", "the team whose sessions --label and --since select", "default")
    .action((id: string | undefined, flags: Flags) => run(id, flags));
}

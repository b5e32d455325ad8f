// What a crash loses in process: a store-backed library session is SIGKILLed while 8 agents call at once; every call
// whose invoke had settled is in the file with its result, and every stored call is whole.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DECLARED: Record<string, number> = { lib_crash_two: 2, lib_crash_three: 3 };

/** Runs the agents on `db` until `acks` calls have settled, then SIGKILLs the process; answers the settled tags. */
function runAndKill(db: string, run: string, acks: number): Promise<{ tags: string[]; signal: string | null }> {
  const proc = spawn(process.execPath, ["--import", "tsx", "test/library/crash-agents.ts", db, run], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tags: string[] = [];
  let partial = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`only ${tags.length} calls settled within 60 s:\n${err}`));
    }, 60_000);
    proc.stdout!.on("data", (d: Buffer) => {
      const lines = (partial + d.toString()).split("\n");
      partial = lines.pop()!;
      for (const l of lines) if (l.startsWith("ack ")) tags.push(l.slice(4));
      if (tags.length >= acks) proc.kill("SIGKILL");
    });
    proc.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
    });
    proc.once("exit", (_code, signal) => {
      clearTimeout(timer);
      // Lines the child wrote before the kill but the pipe had not delivered are still acknowledgements.
      for (const l of partial.split("\n")) if (l.startsWith("ack ")) tags.push(l.slice(4));
      resolve({ tags, signal });
    });
  });
}

describe("a library session killed mid-write", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-lib-crash-"));
  const db = join(dir, "ledger.db");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps every settled call with its result and stores no call half-way, after two SIGKILLs", async () => {
    const settled: string[] = [];
    for (let kill = 0; kill < 2; kill += 1) {
      const { tags, signal } = await runAndKill(db, `k${kill}`, 300);
      expect(signal).toBe("SIGKILL");
      settled.push(...tags);
    }
    const sqlite = new Database(db, { fileMustExist: true });
    try {
      expect(sqlite.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(sqlite.pragma("foreign_key_check")).toEqual([]);
      const calls = sqlite
        .prepare(
          "SELECT id, tool, json_extract(args_raw, '$.tag') AS tag, result_at FROM calls WHERE tool LIKE 'lib_crash_%'",
        )
        .all() as { id: string; tool: string; tag: string; result_at: string | null }[];
      const byTag = new Map(calls.map((c) => [c.tag, c]));
      // Every settled call is stored, and with its result: invoke answers only after both commits.
      expect(settled.filter((t) => byTag.get(t)?.result_at == null)).toEqual([]);
      // Every stored call is whole: one parameter crossing per declared argument, a return crossing iff a result.
      const crossings = new Map<string, { param: number; ret: number }>();
      for (const r of sqlite
        .prepare(
          "SELECT call_id, direction, count(*) AS n FROM crossings WHERE tool LIKE 'lib_crash_%' GROUP BY call_id, direction",
        )
        .all() as { call_id: string; direction: string; n: number }[]) {
        const x = crossings.get(r.call_id) ?? { param: 0, ret: 0 };
        if (r.direction === "param") x.param = r.n;
        else x.ret = r.n;
        crossings.set(r.call_id, x);
      }
      const broken = calls.filter((c) => {
        const x = crossings.get(c.id) ?? { param: 0, ret: 0 };
        return x.param !== DECLARED[c.tool] || x.ret !== (c.result_at === null ? 0 : 1);
      });
      expect(broken).toEqual([]);
      // Each session's counter matches its calls, numbered 1..n without gaps.
      const gaps = sqlite
        .prepare(`SELECT s.id FROM sessions s LEFT JOIN calls c ON c.session_id = s.id
          WHERE s.context = 'library crash test' GROUP BY s.id
          HAVING s.call_count != count(c.id) OR coalesce(max(c.seq), 0) != count(c.id)`)
        .all();
      expect(gaps).toEqual([]);
      // What a kill can lose: only calls whose invoke had not settled (stored without a result, or not at all).
      const acked = new Set(settled);
      const unsettled = calls.filter((c) => !acked.has(c.tag));
      expect(unsettled.length).toBe(calls.length - acked.size);
      console.info(
        `library crash: 2 SIGKILLs, ${settled.length} settled calls all present with results; ${calls.length} calls ` +
          `checked whole; ${unsettled.filter((c) => c.result_at === null).length} stored without a result at a kill`,
      );
    } finally {
      sqlite.close();
    }
  }, 150_000);
});

// `agent-ledger bench run` and `bench report` as a user runs them: spawned processes against the stub provider, on a
// temporary database or a served agent-ledger (--ledger-url), with the exit codes and messages API.md promises.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, serve } from "../reliability/harness.js";
import { type Script, startStub } from "./stub-provider.js";

/** Spawned processes on a loaded 2-core machine: generous, never a synchronisation. */
const SLOW = 180_000;

const dir = mkdtempSync(join(tmpdir(), "bench-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, ["bin/agent-ledger.js", ...args], {
      cwd: ROOT,
      env: { ...process.env, AGENT_LEDGER_DB: "", OPENAI_API_KEY: "sk-test", ...env },
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

/** Reads the discharge, then refuses: correct on `unsourced_peak` in every condition. */
const refuses: Script = (s) =>
  s.turn === 0
    ? { calls: [{ name: "read_discharge", args: { station: "07374000" } }] }
    : { text: "No tool forecasts it.\nANSWER: unavailable" };

type Run = { session_id: string; condition: string; replicate: number; outcome: string; stated: string | null };

describe("agent-ledger bench", () => {
  it(
    "run records each run in the local database and prints runs and tables as JSON; report filters by label",
    async () => {
      const stub = await startStub(refuses);
      const db = join(dir, "a.db");
      try {
        const base = [
          "--suite",
          "core",
          "--tasks",
          "unsourced_peak",
          "--model",
          "stub-model",
          "--base-url",
          stub.openaiUrl,
          "--db",
          db,
        ];
        const r = await cli([
          "bench",
          "run",
          ...base,
          "--conditions",
          "baseline,guarded",
          "--replicates",
          "2",
          "--batch",
          "cli1",
          "--format",
          "json",
        ]);
        expect(r.code).toBe(0);
        const out = JSON.parse(r.stdout) as { runs: Run[]; tables: { by_condition: Record<string, unknown>[] } };
        expect(out.runs.map((x) => [x.condition, x.replicate, x.outcome, x.stated]).sort()).toEqual([
          ["baseline", 0, "correct", "unavailable"],
          ["baseline", 1, "correct", "unavailable"],
          ["guarded", 0, "correct", "unavailable"],
          ["guarded", 1, "correct", "unavailable"],
        ]);
        expect(out.tables.by_condition.map((x) => [x.condition, x.runs, x.correct, x.calls])).toEqual([
          ["baseline", 2, 2, 1],
          ["guarded", 2, 2, 1],
        ]);
        expect(stub.requests[0]!.headers.authorization).toBe("Bearer sk-test");
        expect(r.stderr).toContain("bench: batch cli1, 4 runs against");
        const rep = await cli(["bench", "report", "--db", db, "--label", "bench.condition:guarded"]);
        expect(rep.code).toBe(0);
        expect(rep.stdout).toContain("2 stored runs in database");
        expect(rep.stdout).toContain("| guarded | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 1.00 |");
        expect(rep.stdout).not.toContain("| baseline |");
      } finally {
        await stub.close();
      }
    },
    SLOW,
  );

  it(
    "a provider that dies mid-batch exits 1 naming the batch to resume; resuming runs only the missing runs",
    async () => {
      const db = join(dir, "b.db");
      const args = (url: string) => [
        "bench",
        "run",
        "--suite",
        "core",
        "--tasks",
        "unsourced_peak",
        "--conditions",
        "baseline",
        "--replicates",
        "3",
        "--concurrency",
        "1",
        "--model",
        "m",
        "--base-url",
        url,
        "--db",
        db,
        "--batch",
        "cli2",
        "--retries",
        "1",
        "--retry-base-ms",
        "1",
      ];
      const dying = await startStub(refuses, { dieAfter: 3 });
      const first = await cli(args(dying.openaiUrl));
      await dying.close();
      expect(first.code).toBe(1);
      expect(first.stderr).toContain("agent-ledger: the batch stopped: POST ");
      expect(first.stderr).toContain(
        "2 runs of batch cli2 are stored; run the same command with --batch cli2 to resume",
      );
      expect(first.stdout).toContain("1 run was cut off by the provider (outcome error) and left out of these tables.");
      const live = await startStub(refuses);
      try {
        const again = await cli(args(live.openaiUrl));
        expect(again.code).toBe(0);
        expect(again.stdout).toContain("2 runs made now, 1 already stored (skipped)");
        expect(live.requests).toHaveLength(4);
      } finally {
        await live.close();
      }
    },
    SLOW,
  );

  it(
    "refuses usage errors with exit 1 and a plain message",
    async () => {
      const noModel = await cli(["bench", "run", "--suite", "core", "--db", join(dir, "c.db")]);
      expect([noModel.code, noModel.stderr.trim()]).toEqual([
        1,
        "agent-ledger: --model is required: name the model the provider should run, such as gpt-4o-mini",
      ]);
      const suite = await cli(["bench", "run", "--suite", "ocean", "--model", "m", "--db", join(dir, "c.db")]);
      expect([suite.code, suite.stderr.trim()]).toEqual([
        1,
        "agent-ledger: unknown suite 'ocean'; choose one of core, hard, grid, proof, uk, all",
      ]);
      const absent = await cli([
        "bench",
        "run",
        "--provider",
        "recorded",
        "--from",
        join(dir, "none.jsonl"),
        "--db",
        join(dir, "c.db"),
      ]);
      expect(absent.code).toBe(1);
      expect(absent.stderr).toContain(
        `the recorded transcripts are not at ${join(dir, "none.jsonl")}: --provider recorded replays the shared corpus`,
      );
    },
    SLOW,
  );

  it(
    "records in a running service with --ledger-url and --token, and reports from it",
    async () => {
      const admin = "bench-cli-admin-token-0123456789abcdef";
      const served = await serve(join(dir, "served.db"), { AGENT_LEDGER_ADMIN_TOKEN: admin });
      const stub = await startStub(refuses);
      try {
        const post = async (path: string, token: string, body: unknown) => {
          const res = await fetch(`${served.url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          return (await res.json()) as Record<string, unknown>;
        };
        const team = await post("/v1/admin/teams", admin, { name: "evals" });
        const token = (await post(`/v1/admin/teams/${team.id as string}/tokens`, admin, { name: "bench" }))
          .token as string;
        const r = await cli([
          "bench",
          "run",
          "--suite",
          "core",
          "--tasks",
          "unsourced_peak",
          "--conditions",
          "guarded_repair",
          "--replicates",
          "2",
          "--model",
          "m",
          "--base-url",
          stub.openaiUrl,
          "--ledger-url",
          served.url,
          "--token",
          token,
          "--batch",
          "remote1",
        ]);
        expect(r.stderr).not.toContain("agent-ledger:");
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`recorded in ${served.url}`);
        const listed = await fetch(`${served.url}/v1/bench/runs?label=bench.batch:remote1`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const items = ((await listed.json()) as { items: Run[] }).items;
        expect(items.map((x) => [x.condition, x.outcome])).toEqual([
          ["guarded_repair", "correct"],
          ["guarded_repair", "correct"],
        ]);
        const session = await fetch(`${served.url}/v1/sessions/${items[0]!.session_id}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(((await session.json()) as { labels: Record<string, string> }).labels["bench.batch"]).toBe("remote1");
        const rep = await cli(["bench", "report", "--ledger-url", served.url, "--token", token, "--format", "json"]);
        expect(rep.code).toBe(0);
        expect((JSON.parse(rep.stdout) as { runs: Run[] }).runs).toHaveLength(2);
      } finally {
        await stub.close();
        await served.stop();
      }
    },
    SLOW,
  );
});

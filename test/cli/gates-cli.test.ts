// The release-gate commands as a CI job runs them: spawned `node bin/agent-ledger.js` on a temporary database.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/sqlite/db.js";
import { CLM1, schedulerResult, stageResult } from "../helpers/gated.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../fixtures/regression/", import.meta.url));
const DEFAULTS = fileURLToPath(new URL("../../thresholds.default.toml", import.meta.url));
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A temporary working directory with a database path (not yet created) and files written into it. */
function workspace(files: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "gates-cli-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  }
  const db = join(dir, "ledger.db");
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd: dir,
        env: { ...process.env, AGENT_LEDGER_DB: db, AGENT_LEDGER_ADMIN_TOKEN: "" },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (b: Buffer) => {
        stdout += b.toString();
      });
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString();
      });
      child.on("close", (code) => done({ code, stdout, stderr }));
    });
  const rows = (table: string): number => {
    const store = openDb(db);
    try {
      return (store.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      store.close();
    }
  };
  return { dir, db, run, rows };
}

// Each test spawns several CLI processes, and the files of a describe run at once: on a loaded machine one spawn
// takes seconds, so the limit is generous (it bounds a hang, not the speed).
const SPAWNING = { timeout: 240_000 };

const crest = (value: string) => ({ task: { id: "crest-report" }, result: stageResult(value) });

describe.concurrent("agent-ledger evaluate", SPAWNING, () => {
  it("exits 0 for a released result and records it, then 2 when a later run drifts (CI builds history)", async () => {
    const w = workspace({
      "march.json": crest("17.1 ft"),
      "metric.json": crest("5.212 m"),
      "june.json": crest("18.6 ft"),
    });
    const first = await w.run(["evaluate", "march.json", "metric.json"]);
    expect([first.code, first.stderr]).toEqual([0, ""]);
    expect(first.stdout).toMatch(/^# Release report: march\.json\n\n\*\*Release: RELEASED\*\*\n/);
    expect(first.stdout).toMatch(/Recorded as evaluation [0-9A-Z]{26} in .*ledger\.db \(team default\)\.\n$/);
    expect(w.rows("runs")).toBe(2);
    const drift = await w.run(["evaluate", "june.json", "--format", "json"]);
    expect(drift.code).toBe(2);
    const report = JSON.parse(drift.stdout) as {
      source: string;
      status: string;
      blocked_by: string[];
      gates: { stability: { findings: { code: string }[] } };
    };
    expect([report.source, report.status, report.blocked_by]).toEqual(["june.json", "blocked", ["stability"]]);
    expect(report.gates.stability.findings.map((f) => f.code)).toEqual(["VALUE_DRIFT"]);
    expect(drift.stderr).toBe("agent-ledger: 1 of 1 result(s) blocked: june.json (stability)\n");
    expect(w.rows("runs")).toBe(3);
  });

  it("exits 2 for demoted_repeated.json through its own ledger key, writing reports with --out, never storing the ledger", async () => {
    const w = workspace();
    const r = await w.run([
      "evaluate",
      join(FIXTURES, "demoted_repeated.json"),
      join(FIXTURES, "junk_source.json"),
      "--format",
      "json",
      "--out",
      "reports",
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      `wrote ${join("reports", "demoted_repeated.json")} (blocked)\nwrote ${join("reports", "junk_source.json")} (blocked)\n`,
    );
    const report = JSON.parse(readFileSync(join(w.dir, "reports", "demoted_repeated.json"), "utf8")) as {
      blocked_by: string[];
      gates: { contradiction: { findings: { code: string }[] } };
    };
    expect(report.blocked_by).toContain("contradiction");
    expect(report.gates.contradiction.findings.map((f) => f.code)).toEqual(["LEDGER_DEMOTED_REAPPEARS"]);
    expect([w.rows("runs"), w.rows("claims")]).toEqual([2, 0]);
  });

  it("with --no-record leaves no trace: no database file, and no new row in an existing one", async () => {
    const w = workspace({ "march.json": crest("17.1 ft"), "june.json": crest("18.6 ft") });
    const dry = await w.run(["evaluate", "march.json", "--no-record"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("Not recorded (--no-record).");
    expect(existsSync(w.db)).toBe(false);
    expect((await w.run(["evaluate", "march.json"])).code).toBe(0);
    const before = [w.rows("runs"), w.rows("run_claims")];
    const blocked = await w.run(["evaluate", "june.json", "--no-record", "--format", "json"]);
    expect(blocked.code).toBe(2);
    expect((JSON.parse(blocked.stdout) as { id: unknown }).id).toBeNull();
    expect([w.rows("runs"), w.rows("run_claims")]).toEqual(before);
  });

  it("exits 1 for a file over AGENT_LEDGER_MAX_CLAIMS, naming the count and the limit, evaluating nothing", async () => {
    const claims = (n: number) => ({
      task: { id: "many" },
      result: {
        output: "Lengths.",
        claims: Array.from({ length: n }, (_, i) => ({
          id: `F${i}`,
          kind: "fact",
          text: `L${i}.`,
          key: "k",
          value: `${i} m`,
        })),
      },
    });
    const w = workspace({ "at.json": claims(1000), "past.json": claims(1001) });
    const past = await w.run(["evaluate", "at.json", "past.json"]);
    expect([past.code, past.stderr]).toEqual([
      1,
      "agent-ledger: past.json: the evaluation has 1001 claims, over the limit of 1000 per evaluation: split the result, " +
        "or raise AGENT_LEDGER_MAX_CLAIMS\n",
    ]);
    expect(existsSync(w.db) ? w.rows("runs") : 0).toBe(0);
    const at = await w.run(["evaluate", "at.json"]);
    expect(at.code).toBe(2);
    expect(w.rows("runs")).toBe(1);
  });

  it("exits 1 for a usage or configuration error, evaluating nothing", async () => {
    const w = workspace({
      "march.json": crest("17.1 ft"),
      "bad.toml": "[simplicity]\nmax_controls = 3\n",
      "bad-request.json": { ...crest("1 m"), settings: { global: { conjuntive: false } } },
    });
    const missingSettings = await w.run(["evaluate", "march.json", "--settings", "nope.toml"]);
    expect([missingSettings.code, missingSettings.stderr]).toEqual([
      1,
      `agent-ledger: cannot read the settings file nope.toml: no such file; pass --settings with a thresholds.toml (agent-ledger init writes one)\n`,
    ]);
    const badSettings = await w.run(["evaluate", "march.json", "--settings", "bad.toml"]);
    expect(badSettings.code).toBe(1);
    expect(badSettings.stderr).toContain(
      "bad.toml: simplicity.max_controls: unknown setting `simplicity.max_controls`",
    );
    const badRequest = await w.run(["evaluate", "march.json", "bad-request.json"]);
    expect(badRequest.code).toBe(1);
    expect(badRequest.stderr).toContain("bad-request.json: invalid settings: global.conjuntive: unknown setting");
    expect((await w.run(["evaluate", "march.json", "--colour"])).code).toBe(1);
    expect(existsSync(w.db) ? w.rows("runs") : 0).toBe(0);
  });

  it("with evidence.check_paths blocks a file source missing next to the input file and passes one that exists", async () => {
    const cites = (source: string) => ({
      task: { id: "crest-report" },
      result: { ...stageResult("17.1 ft"), claims: [{ ...(stageResult("17.1 ft").claims as object[])[0], source }] },
    });
    const w = workspace({
      "paths.toml": "[evidence]\ncheck_paths = true\n",
      "sub/data/stage.csv": "stage\n17.1\n",
      "sub/ok.json": cites("data/stage.csv:2"),
      "sub/gone.json": cites("data/missing.csv:2"),
    });
    const r = await w.run(["validate", join("sub", "ok.json"), join("sub", "gone.json"), "--settings", "paths.toml"]);
    expect(r.code).toBe(2);
    expect(r.stdout.split("\n")).toEqual([
      `PASS ${join("sub", "ok.json")} (score 100.0)`,
      expect.stringMatching(/^BLOCK sub\/gone\.json \(score \d+\.\d\): evidence$/),
      "",
    ]);
  });

  it("reads memory/claims.jsonl found upwards as a ledger for the run", async () => {
    const w = workspace({
      "memory/claims.jsonl": `${JSON.stringify(CLM1)}\nnot json\n`,
      "june.json": { task: { id: "s" }, result: schedulerResult("2.08x") },
    });
    const r = await w.run(["validate", "june.json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^BLOCK june\.json \(score \d+\.\d\): contradiction\n$/);
    expect(r.stderr).toContain(`claim ledger ${join(w.dir, "memory", "claims.jsonl")}: 1 claim(s), 1 line(s) skipped`);
  });
});

describe.concurrent("agent-ledger validate, init and claims", SPAWNING, () => {
  it("validate prints one line per file, exits 2 when any is blocked and 0 when all pass, recording nothing", async () => {
    const w = workspace({ "a.json": crest("17.1 ft"), "b.json": crest("18.6 ft") });
    const both = await w.run(["validate", "a.json", join(FIXTURES, "single_test.json")]);
    expect(both.code).toBe(2);
    expect(both.stdout.split("\n")).toEqual([
      "PASS a.json (score 100.0)",
      expect.stringMatching(/^BLOCK .*single_test\.json \(score \d+\.\d\): statistics$/),
      "",
    ]);
    const pass = await w.run(["validate", "a.json", "b.json"]);
    expect([pass.code, pass.stdout]).toEqual([0, "PASS a.json (score 100.0)\nPASS b.json (score 100.0)\n"]);
    expect(existsSync(w.db)).toBe(false);
  });

  it("init writes thresholds.toml from the defaults, refuses to overwrite it (exit 1), and overwrites with --force", async () => {
    const w = workspace();
    const first = await w.run(["init"]);
    expect([first.code, first.stdout]).toEqual([0, `wrote ${join(w.dir, "thresholds.toml")}\n`]);
    expect(readFileSync(join(w.dir, "thresholds.toml"), "utf8")).toBe(readFileSync(DEFAULTS, "utf8"));
    writeFileSync(join(w.dir, "thresholds.toml"), "# mine\n");
    const again = await w.run(["init"]);
    expect([again.code, again.stderr]).toEqual([
      1,
      `agent-ledger: ${join(w.dir, "thresholds.toml")} exists; pass --force to overwrite it with the defaults\n`,
    ]);
    expect(readFileSync(join(w.dir, "thresholds.toml"), "utf8")).toBe("# mine\n");
    expect((await w.run(["init", "--force"])).code).toBe(0);
    expect(readFileSync(join(w.dir, "thresholds.toml"), "utf8")).toBe(readFileSync(DEFAULTS, "utf8"));
  });

  it("claims import stores the ledger (a bad line reported on stderr), export prints it, and evaluate then blocks the repeat", async () => {
    const w = workspace({
      "claims.jsonl": `${JSON.stringify(CLM1)}\n{"id": 7}\n`,
      "june.json": { task: { id: "s" }, result: schedulerResult("2.08x") },
    });
    const imp = await w.run(["claims", "import", "claims.jsonl"]);
    expect([imp.code, imp.stdout]).toEqual([0, "imported 1, updated 0, unchanged 0, skipped 1, warnings 0\n"]);
    expect(imp.stderr).toBe("line 2 skipped: id must be a string, received number 7; status is missing\n");
    const exp = await w.run(["claims", "export"]);
    expect(JSON.parse(exp.stdout)).toEqual(CLM1);
    const r = await w.run(["evaluate", "june.json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("**Release: BLOCKED** (blocked by contradiction)");
  });
});

// `agent-ledger evaluate` resolving ledger locators against --db, and `agent-ledger revisions`, as spawned processes.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { ledgerFor } from "../../src/store/sqlite/ledger.js";
import { ensureDefaultTeam } from "../../src/store/sqlite/teams.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const run = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, AGENT_LEDGER_DB: join(cwd, "absent.db"), AGENT_LEDGER_ADMIN_TOKEN: "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => void (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => void (stderr += b.toString()));
    child.on("close", (code) => done({ code, stdout, stderr }));
  });

/** A database holding one provisional reading of 1250 cfs and, later, its approved revision to 1310 cfs. */
function ledgerWithRevision() {
  const dir = mkdtempSync(join(tmpdir(), "evidence-cli-"));
  dirs.push(dir);
  const db = join(dir, "ledger.db");
  const store = openDb(db);
  const clock = fixedClock("2026-03-15T09:00:00Z");
  const ledger = ledgerFor(store, clock);
  const team = ensureDefaultTeam(store.db);
  ledger.tools.put(team, "read_discharge", { params: { site: {} }, returns: { unit: "ft^3/s" } }, ledger.datums(team));
  const read = (value: number, quality: string) => {
    const s = ledger.sessions.create(team, {}, clock.now());
    const c = ledger.call(team, s.id, "read_discharge", { site: "07374000" });
    ledger.result(team, s.id, c.call_id, {
      value,
      unit: "cfs",
      quality,
      source: "usgs:07374000:00060",
      observed_at: "2026-03-14T10:15:00-05:00",
    });
    return s.id;
  };
  const march = read(1250, "P");
  clock.advance(80 * 86_400_000);
  read(1310, "A");
  store.close();
  const report = (value: string) => ({
    task: { id: "flood" },
    result: {
      output: "Discharge at Baton Rouge on 14 March.",
      claims: [
        {
          id: "F1",
          kind: "fact",
          text: "Discharge on 14 March.",
          value,
          source: `ledger:sessions/${march}`,
          confidence: 0.9,
          verified: true,
        },
      ],
    },
  });
  writeFileSync(join(dir, "old.json"), JSON.stringify(report("1250 cfs")));
  return { dir, db, march };
}

describe("agent-ledger evaluate and revisions with a ledger", () => {
  it("resolves ledger locators against --db: the revised reading blocks the report (exit 2)", async () => {
    const w = ledgerWithRevision();
    const r = await run(w.dir, ["evaluate", "old.json", "--db", w.db, "--no-record", "--format", "json"]);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as {
      gates: { evidence: { findings: { code: string }[] } };
      sources: { status: string }[];
    };
    expect(report.gates.evidence.findings.map((f) => f.code)).toEqual(["LEDGER_SOURCE_REVISED"]);
    expect(report.sources.map((s) => s.status)).toEqual(["revised"]);
  }, 120_000);

  it("resolves against AGENT_LEDGER_DB too, and says plainly when there is no ledger to resolve against", async () => {
    const w = ledgerWithRevision();
    const env = await run(w.dir, ["evaluate", "old.json", "--no-record", "--format", "json"], {
      AGENT_LEDGER_DB: w.db,
    });
    expect(env.code).toBe(2);
    const none = await run(w.dir, ["evaluate", "old.json", "--no-record", "--format", "json"]);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain(
      "old.json: 1 ledger source(s) not resolved: there is no ledger database here; pass --db FILE or set AGENT_LEDGER_DB " +
        "to the database the sessions were recorded in",
    );
    const report = JSON.parse(none.stdout) as {
      gates: { evidence: { findings: { code: string; severity: string }[] } };
    };
    expect(report.gates.evidence.findings.map((f) => `${f.code} ${f.severity}`)).toEqual([
      "LEDGER_NOT_RESOLVED warning",
    ]);
  }, 120_000);

  it("lists revisions since a date with the value before and after", async () => {
    const w = ledgerWithRevision();
    const r = await run(w.dir, ["revisions", "--db", w.db, "--since", "2026-06-01"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^\S+ {2}2026-06-03T09:00:00\.000Z {2}usgs:07374000:00060 observed 2026-03-14T10:15:00-05:00: 1250 ft\^3\/s \(provisional\) -> 1310 ft\^3\/s \(approved\), detected in a later reading by read_discharge$/,
    );
    expect(lines[1]).toBe("  no released evaluation rests on the old value");
    const later = await run(w.dir, ["revisions", "--db", w.db, "--since", "2026-07-01"]);
    expect(later.stdout).toBe("no revisions since 2026-07-01T00:00:00.000Z\n");
  }, 120_000);
});

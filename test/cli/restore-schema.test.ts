// restore and copy accept a database only when its schema is exactly what our migrations make: integrity_check
// passed a backup carrying a trigger that made every new token an admin's.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/sqlite/db.js";
import { ROOT } from "../reliability/harness.js";

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, ["bin/agent-ledger.js", ...args], {
      cwd: ROOT,
      env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "", AGENT_LEDGER_DB: "" },
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

const TRIGGER =
  "CREATE TRIGGER tokens_grant AFTER INSERT ON tokens BEGIN UPDATE tokens SET is_admin = 1 WHERE id = NEW.id; END";

/** A freshly migrated ledger file, with `extra` SQL run on it afterwards. */
function ledgerFile(file: string, extra = ""): string {
  const db = openDb(file);
  if (extra) db.sqlite.exec(extra);
  db.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  db.sqlite.close();
  return file;
}

describe("restore and copy check the schema", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-schema-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("restore refuses a backup carrying a foreign trigger, naming it, and creates nothing", async () => {
    const backup = ledgerFile(join(dir, "trigger.db"), TRIGGER);
    expect(new Database(backup, { readonly: true }).pragma("integrity_check", { simple: true })).toBe("ok");
    const target = join(dir, "restored-trigger.db");
    const out = await cli(["restore", backup, "--db", target]);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      `agent-ledger: ${backup} does not have the schema our migrations make: it has a trigger tokens_grant (on tokens) ` +
        "that our migrations do not make. Refusing to restore a database whose schema was changed outside our migrations " +
        "(a foreign trigger runs on every write); nothing was changed\n",
    );
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it("restore refuses a backup whose index was dropped or table altered, and accepts an untouched one", async () => {
    const altered = ledgerFile(
      join(dir, "altered.db"),
      "DROP INDEX claims_team_key_idx; ALTER TABLE claims ADD COLUMN note text",
    );
    const refused = await cli(["restore", altered, "--db", join(dir, "restored-altered.db")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the table claims defined differently from what our migrations make");
    expect(refused.stderr).toContain("no index claims_team_key_idx, which our migrations make");
    const clean = ledgerFile(join(dir, "clean.db"));
    const ok = await cli(["restore", clean, "--db", join(dir, "restored-clean.db")]);
    expect([ok.code, ok.stderr]).toEqual([0, ""]);
  }, 60_000);

  it("copy refuses a source carrying a foreign trigger before it connects to PostgreSQL", async () => {
    const source = ledgerFile(join(dir, "copy-trigger.db"), TRIGGER);
    const out = await cli(["copy", "--from", source, "--to", "postgres://nobody@127.0.0.1:1/none"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("it has a trigger tokens_grant (on tokens) that our migrations do not make");
    expect(out.stderr).toContain("nothing was copied");
  }, 60_000);
});

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "", ...env },
  });

// Spawned processes: a generous limit that bounds a hang, not the speed of a loaded machine.
describe("agent-ledger CLI", { timeout: 120_000 }, () => {
  it("--version prints the package version and exits 0", () => {
    const r = run(["--version"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${VERSION}\n`);
  });

  it("--help lists serve, migrate, seed and admin and exits 0", () => {
    const r = run(["--help"]);
    expect(r.status).toBe(0);
    for (const name of ["serve", "migrate", "seed", "admin"]) expect(r.stdout).toMatch(new RegExp(`^  ${name} `, "m"));
  });

  it("migrate, seed and admin rotate-token work on a fresh database file", () => {
    const dir = mkdtempSync(join(tmpdir(), "ledger-cli-"));
    try {
      const db = join(dir, "sub", "ledger.db");
      const m = run(["migrate", "--db", db]);
      expect(m.status).toBe(0);
      expect(m.stdout).toMatch(/^applied \d+ migration\(s\) to .*ledger\.db; the schema is current\n$/);
      expect(run(["migrate", "--db", db]).stdout).toBe(`${db}: the schema was already current\n`);
      const s = run(["seed"], { AGENT_LEDGER_DB: db });
      expect(s.status).toBe(0);
      expect(s.stdout).toMatch(/^seeded .*: team "default" is [0-9A-Z]{26}\n$/);
      const a = run(["admin", "rotate-token", "--db", db]);
      expect(a.status).toBe(0);
      expect(a.stdout).toMatch(/^new admin token \(shown once, keep it\): al_[A-Za-z0-9_-]{43}\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 naming the variable when the environment is invalid", () => {
    const r = run(["migrate"], { PORT: "eighty" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('agent-ledger: PORT must be a whole number from 0 to 65535 (received "eighty")\n');
  });
});

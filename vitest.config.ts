import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    exclude: ["test/**/*.live.test.ts", "node_modules/**"],
    pool: "forks",
    globalSetup: ["test/setup/pg-global.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

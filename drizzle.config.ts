import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/store/sqlite/schema.ts",
  out: "./migrations",
  dbCredentials: { url: "./data/dev.db" },
});

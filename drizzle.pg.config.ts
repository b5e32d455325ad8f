import { defineConfig } from "drizzle-kit";

// The PostgreSQL twin of drizzle.config.ts: `npx drizzle-kit generate --config drizzle.pg.config.ts`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/pg/schema.ts",
  out: "./migrations-pg",
});

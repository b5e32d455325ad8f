// The baseline of bench:http: a route that parses a JSON body with zod and inserts one row, on the same stack.
import { serve } from "@hono/node-server";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import Database from "better-sqlite3";

const db = new Database(process.env.BASELINE_DB ?? ":memory:");
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("busy_timeout = 5000");
db.exec(
  "CREATE TABLE IF NOT EXISTS readings (id INTEGER PRIMARY KEY, site TEXT NOT NULL, value REAL NOT NULL, created_at TEXT NOT NULL)",
);
db.exec("CREATE INDEX IF NOT EXISTS readings_site_idx ON readings (site, created_at)");
const insert = db.prepare("INSERT INTO readings (site, value, created_at) VALUES (?, ?, ?) RETURNING id");

const app = new OpenAPIHono();
const Body = z.object({ site: z.string().max(64), value: z.number() });
app.openapi(
  createRoute({
    method: "post",
    path: "/readings",
    request: { body: { content: { "application/json": { schema: Body } } } },
    responses: { 201: { description: "ok" } },
  }),
  (c) => {
    const b = c.req.valid("json");
    const row = insert.get(b.site, b.value, new Date().toISOString()) as { id: number };
    return c.json({ id: row.id }, 201);
  },
);
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT ?? 8790) }, () =>
  console.log("baseline ready"),
);

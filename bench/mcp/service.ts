// bench:mcp:service — what asking the ledger over its MCP endpoint costs beside the same question over /v1, in process
// (the app's own fetch, no sockets): POST /v1/convert and a tools/call of convert on /mcp, alternated request by request
// in one run, then 40 tools/call requests at once (every one answered by a server of the pool or a new one). Prints each
// leg's p50 and p90 and the ratio of the p50s.
import { createApp } from "../../src/api/app.js";
import { defaultConfig } from "../../src/config.js";
import { openDb } from "../../src/store/sqlite/db.js";
import { seedDatabase } from "../../src/store/sqlite/seed.js";
import { sqliteStore } from "../../src/store/sqlite/store.js";
import { ensureAdminToken } from "../../src/store/sqlite/teams.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const WARMUP = 500;
const TOKEN = "bench-admin-token-0123456789";

const db = openDb(":memory:");
seedDatabase(db);
ensureAdminToken(db.db, TOKEN);
const app = createApp({ store: sqliteStore(db), config: defaultConfig() });
const headers = {
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};
const quantity = "1250 cfs";
// An initialize first, as a client sends one; an endpoint that keeps sessions (before session 7) answers an id to send.
const init = await app.request("/mcp", {
  method: "POST",
  headers,
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  }),
});
const sessionId = init.headers.get("mcp-session-id");
await init.text();
const mcpHeaders = sessionId === null ? headers : { ...headers, "mcp-session-id": sessionId };

const legs = {
  rest: async () => {
    const r = await app.request("/v1/convert", {
      method: "POST",
      headers,
      body: JSON.stringify({ quantity, to: { unit: "m^3/s" } }),
    });
    if (r.status !== 200) throw new Error(`/v1/convert answered ${r.status}: ${await r.text()}`);
    await r.text();
  },
  mcp: async () => {
    const r = await app.request("/mcp", {
      method: "POST",
      headers: mcpHeaders,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "convert", arguments: { quantity, to_unit: "m^3/s" } },
      }),
    });
    // One JSON body; an endpoint before session 7 answered each POST as an SSE stream of one event.
    const body = await r.text();
    const json = r.headers.get("content-type")?.startsWith("text/event-stream")
      ? (/^data: (.*)$/m.exec(body)?.[1] ?? "null")
      : body;
    const answer = JSON.parse(json) as { result?: { isError?: boolean } };
    if (r.status !== 200 || answer.result?.isError)
      throw new Error(`/mcp answered ${r.status}: ${JSON.stringify(answer)}`);
  },
};
type Leg = keyof typeof legs;
const lat: Record<Leg, number[]> = { rest: [], mcp: [] };
for (let i = 0; i < REQUESTS + WARMUP; i += 1) {
  for (const leg of (i % 2 === 0 ? ["rest", "mcp"] : ["mcp", "rest"]) as Leg[]) {
    const t0 = performance.now();
    await legs[leg]();
    if (i >= WARMUP) lat[leg].push(performance.now() - t0);
  }
}
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
console.log("| request (in process) | p50 ms | p90 ms |");
console.log("|---|---|---|");
console.log(`| POST /v1/convert | ${pct(lat.rest, 0.5).toFixed(3)} | ${pct(lat.rest, 0.9).toFixed(3)} |`);
console.log(`| POST /mcp tools/call convert | ${pct(lat.mcp, 0.5).toFixed(3)} | ${pct(lat.mcp, 0.9).toFixed(3)} |`);
console.log(`\n/mcp / /v1 p50: ${(pct(lat.mcp, 0.5) / pct(lat.rest, 0.5)).toFixed(2)}`);
const t0 = performance.now();
await Promise.all(Array.from({ length: 40 }, () => legs.mcp()));
console.log(`40 tools/call at once: ${(performance.now() - t0).toFixed(1)} ms in all`);

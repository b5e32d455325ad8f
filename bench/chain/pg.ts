// bench:chain:pg: `verify` over PostgreSQL, as GET /v1/ledger/verify runs it in a service on PostgreSQL: entries per
// second, and the event loop's largest delay while it walks (the loop is what other teams' requests wait for). The
// ledger, CHAIN_PG_CALLS guarded calls with their results (default 20,000, about 80,000 entries) in one team, is written
// through the store's group commit. The server is bench/pg-server.ts's (BENCH_PG_URL, or a private embedded cluster).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { chainOf } from "../../src/store/chain-access.js";
import { openStore } from "../../src/store/open.js";
import { benchPg } from "../pg-server.js";

const CALLS = Number(process.env.CHAIN_PG_CALLS ?? 20_000);
const log = (line: string) => console.log(line);

const server = await benchPg();
try {
  const store = await openStore(await server.newDatabase("bench_chain_pg"));
  try {
    const team = await store.teams.create("bench-chain-pg");
    await store.tools.put(team.id, "read_discharge", { params: { site: {} }, returns: { unit: "cfs" } });
    const sessions = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.sessions.create(team.id, { context: `s${i}` })),
    );
    log(`writing ${CALLS.toLocaleString("en")} calls with results on ${server.describe}`);
    const t0 = performance.now();
    let next = 0;
    const writer = async () => {
      for (;;) {
        const i = next++;
        if (i >= CALLS) return;
        const s = sessions[i % sessions.length]!.id;
        const c = await store.calls.call(team.id, s, "read_discharge", { site: "07374000" });
        await store.calls.result(team.id, s, c.call_id, `${1000 + (i % 500)} cfs`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, writer));
    log(`  written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const chain = await chainOf(store);
    for (const pass of ["first", "second"]) {
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const v0 = performance.now();
      const v = await chain.verify(team.id);
      const secs = (performance.now() - v0) / 1000;
      // One turn more, so a delay that lasted to the end is recorded too.
      await new Promise((r) => setTimeout(r, 20));
      delay.disable();
      if (!v.ok) throw new Error(`verify failed: ${JSON.stringify(v)}`);
      log(
        `verify on PostgreSQL, ${pass} pass: ${v.count.toLocaleString("en")} entries in ${secs.toFixed(2)} s = ` +
          `${(v.count / secs).toFixed(0)} entries/s; the event loop's largest delay ${(delay.max / 1e6).toFixed(0)} ms`,
      );
    }
  } finally {
    await store.close();
  }
} finally {
  await server.stop();
}

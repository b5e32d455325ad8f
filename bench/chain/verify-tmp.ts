import { existsSync } from "node:fs";
import { openDb } from "../../src/store/sqlite/db.js";
import { sqliteChain } from "../../src/store/sqlite/chain.js";
import { buildLedger } from "../scale/build.js";
const file = process.env.VFILE ?? "/tmp/verify-200k.db";
const fresh = !existsSync(file);
const store = openDb(file);
if (fresh) {
  const b = buildLedger(store, Number(process.env.VN ?? 200000), () => {});
  console.log("built", b.crossings, b.buildSeconds.toFixed(0), "s");
}
const chain = sqliteChain(store.sqlite);
for (let k = 0; k < Number(process.env.REPS ?? 2); k++) {
  let entries = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (const teamId of store.sqlite.prepare("SELECT team_id FROM ledger_heads").pluck().all() as string[]) {
    const v = chain.verify(teamId);
    if (!v.ok) throw new Error(JSON.stringify(v));
    entries += v.count;
  }
  const secs = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  console.log(
    `verify ${entries} entries ${secs.toFixed(2)} s = ${(entries / secs).toFixed(0)}/s; cpu ${((c.user + c.system) / 1e6).toFixed(2)} s = ${(entries / ((c.user + c.system) / 1e6)).toFixed(0)}/cpu-s`,
  );
}
store.close();

// A writer process for the chain tests: opens the SQLite file given, and makes N guarded calls with results in one
// session of the default team, as a second `serve` process writing the same team would.
import { openSqliteStore } from "../../src/store/sqlite/store.js";

const [file, n] = process.argv.slice(2);
const store = openSqliteStore(file!);
const team = await store.teams.ensureDefault();
const s = await store.sessions.create(team, { context: `writer ${process.pid}` });
for (let i = 0; i < Number(n); i += 1) {
  const c = await store.calls.call(team, s.id, "read_discharge", { site: "07374000" });
  await store.calls.result(team, s.id, c.call_id, `${1000 + i} cfs`);
}
await store.close();

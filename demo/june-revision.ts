// The README's third worked example, offline: a provisional March reading, revised in June, found by the revision
// watch. USGS is played by a local server of recorded responses (demo/usgs-server.ts); the ledger is a real
// `agent-ledger serve` on a fresh SQLite file, and the watch is the real `agent-ledger revisions watch --once`.
//
//   node --import tsx demo/june-revision.ts
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer } from "../src/cli/serve.js";
import { loadConfig } from "../src/config.js";
import { openStore } from "../src/store/open.js";
import { type Responder, startRecordedServer } from "./usgs-server.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TOKEN = "demo-admin-token-0123456789";

/** USGS as recorded: in March the latest value is provisional; by June `continuous` holds the approved record. */
const recorded: Responder = (url) => {
  const p = url.pathname.replace(/^\/ogcapi\/v[01]\/collections\//, "");
  if (p === "monitoring-locations/items/USGS-07374000")
    return { file: "derived_monitoring-locations_USGS-07374000.json" };
  if (p === "latest-continuous/items") return { file: "derived_latest-continuous_07374000_march.json" };
  if (p === "continuous/items") return { file: "derived_continuous_07374000_june.json" };
  return null;
};

const example = (name: string, session: string) =>
  readFileSync(join(ROOT, "examples", name), "utf8").replaceAll(
    "ledger:sessions/SESSION",
    `ledger:sessions/${session}`,
  );

function show(title: string): void {
  console.log(`\n== ${title}`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agent-ledger-june-"));
  const usgs = await startRecordedServer(recorded);
  const env = {
    AGENT_LEDGER_DB: join(dir, "ledger.db"),
    AGENT_LEDGER_USGS_URL: usgs.base,
    AGENT_LEDGER_ADMIN_TOKEN: TOKEN,
  };
  const config = loadConfig({ ...env, PORT: "0" });
  const store = await openStore(config.dbFile);
  await store.seed();
  await store.teams.ensureAdminToken(TOKEN);
  const ledger = await startServer(config, store);
  const call = async (method: string, path: string, body?: string) => {
    const res = await fetch(`${ledger.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body }),
    });
    return (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- printed JSON
  };
  try {
    console.log(`USGS (recorded responses) at ${usgs.base}; agent-ledger at ${ledger.url}`);
    show("March: read the latest discharge at Baton Rouge into a session");
    const s1 = (await call("POST", "/v1/sessions", JSON.stringify({ context: "March flood report" }))).id as string;
    const read = await call("GET", `/v1/packs/usgs/sites/07374000/reading?session=${s1}`);
    const q = read.readings[0];
    console.log(
      `reading ${q.parameter} ${q.quantity.value} ${q.quantity.unit} ${q.quality} observed ${q.observed_at} (series ${q.series})`,
    );

    show("March: release the report that cites it (examples/march-flood-report.json)");
    const march = await call("POST", "/v1/evaluations", example("march-flood-report.json", s1));
    console.log(
      `evaluation ${march.id}: ${march.status} (${march.gates.evidence.findings.map((f: { code: string }) => f.code).join(", ")})`,
    );
    console.log(`watch: ${JSON.stringify(await call("GET", "/v1/revisions/watch"))}`);

    show("June: agent-ledger revisions watch --once");
    const cli = await promisify(execFile)(
      process.execPath,
      [join(ROOT, "bin/agent-ledger.js"), "revisions", "watch", "--once"],
      {
        env: { ...process.env, ...env },
        cwd: ROOT,
      },
    );
    process.stdout.write(cli.stdout);

    show("GET /v1/revisions");
    for (const r of (await call("GET", "/v1/revisions")).items)
      console.log(
        `revision ${r.source} observed ${r.observed_at}: ${r.before.value} ${r.before.unit} (${r.before.quality}) -> ` +
          `${r.after.value} ${r.after.unit} (${r.after.quality}); affects ${r.affected.map((a: { evaluation_id: string; task: string }) => `${a.evaluation_id} (${a.task})`).join(", ")}`,
      );

    show("June: a report repeating the March figure (examples/june-flood-report.json)");
    const june = await call("POST", "/v1/evaluations", example("june-flood-report.json", s1));
    console.log(`evaluation ${june.id}: ${june.status} by ${june.blocked_by.join(", ")}`);
    for (const f of june.gates.evidence.findings) console.log(`  ${f.code}: ${f.message}`);
    console.log(`watch: ${JSON.stringify(await call("GET", "/v1/revisions/watch"))}`);
  } finally {
    await ledger.close();
    await store.close();
    await usgs.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

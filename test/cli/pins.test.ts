// `agent-ledger pins list` and `pins approve` on a real SQLite file, spawned as a user runs them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../src/clock.js";
import { toolDigest } from "../../src/gateway/pins.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const run = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "" },
  });
const dir = mkdtempSync(join(tmpdir(), "ledger-pins-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = { name: "read_discharge", description: "Discharge in cfs", inputSchema: { type: "object" } };
const changed = { ...read, inputSchema: { type: "object", properties: { site: { type: "number" } } } };

describe("agent-ledger pins", { timeout: 120_000 }, () => {
  it("lists pins and a drift with what changed, approves it, then says nothing waits", async () => {
    const db = join(dir, "ledger.db");
    const store = openSqliteStore(db, { clock: fixedClock("2026-03-02T09:00:00Z") });
    const team = await store.teams.ensureDefault();
    await store.upstreams.observe(team, "usgs", "block", [read]);
    await store.upstreams.observe(team, "usgs", "block", [changed]);
    await store.close();

    const list = run(["pins", "list", "--db", db]);
    expect(list.stderr).toBe("");
    expect(list.stdout).toBe(
      [
        "usgs: 1 tools pinned, 1 drifts waiting for approval",
        `  read_discharge  sha256:${toolDigest(read)}  pinned 2026-03-02T09:00:00.000Z`,
        "  read_discharge: changed, detected 2026-03-02T09:00:00.000Z, not approved",
        '    inputSchema.properties: (absent) -> {"site":{"type":"number"}}',
        "",
      ].join("\n"),
    );
    const approve = run(["pins", "approve", "usgs", "read_discharge", "--db", db]);
    expect(approve.status).toBe(0);
    expect(approve.stdout).toMatch(/^approved usgs read_discharge \(changed, detected 2026-03-02T09:00:00.000Z\)\n$/);
    expect(run(["pins", "approve", "usgs", "--db", db]).stdout).toBe("nothing to approve: no drift of 'usgs' waits\n");
    const json = JSON.parse(run(["pins", "list", "--db", db, "--format", "json"]).stdout) as {
      items: { tools: { digest: string }[] }[];
    };
    expect(json.items[0]!.tools[0]!.digest).toBe(toolDigest(changed));
    const unknown = run(["pins", "approve", "nope", "--db", db]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe(
      "agent-ledger: no upstream named 'nope' in this team; an upstream is listed once the gateway has served it\n",
    );
  });
});

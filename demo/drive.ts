// Drives the proxy as an agent would: starts `agent-ledger mcp` over stdio with the SDK client, in front of
// demo/server.ts, and prints each outcome (ok, converted, refused with its repair text, passed through).
// Run: node --import tsx demo/drive.ts [--db FILE]   (default: a fresh database in a temporary folder)
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const dbFlag = process.argv.indexOf("--db");
const db =
  dbFlag > 0 && process.argv[dbFlag + 1]
    ? process.argv[dbFlag + 1]!
    : join(mkdtempSync(join(tmpdir(), "agent-ledger-demo-")), "ledger.db");

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    join(ROOT, "bin/agent-ledger.js"),
    "mcp",
    "--annotations",
    join(ROOT, "demo/water.toml"),
    "--db",
    db,
    "--",
    process.execPath,
    "--import",
    "tsx",
    join(ROOT, "demo/server.ts"),
  ],
  cwd: ROOT,
  stderr: "ignore",
});
const agent = new Client({ name: "demo-drive", version: "1.0.0" });
await agent.connect(transport);

const line = (kind: string, text: string) => console.log(`${kind.padEnd(10)}${text}`);
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

const { tools } = await agent.listTools();
const runoff = tools.find((t) => t.name === "runoff_depth")!;
for (const [param, schema] of Object.entries(runoff.inputSchema.properties ?? {})) {
  line("schema", `runoff_depth.${param} x-unit = ${(schema as Record<string, unknown>)["x-unit"]}`);
}
line("schema", `read_discharge: ${tools.find((t) => t.name === "read_discharge")!.description}`);

/** Calls a tool and prints what came back; `kind` names the outcome expected (a tool error is "refused" unless "error" was expected). */
async function step(
  kind: "ok" | "converted" | "passed" | "error",
  name: string,
  args: Record<string, unknown> = {},
): Promise<void> {
  const r = (await agent.callTool({ name, arguments: args })) as CallToolResult;
  const call = `${name} ${JSON.stringify(args)}`;
  if (r.isError) {
    line(kind === "error" ? "error" : "refused", call);
    for (const l of textOf(r).split("\n")) line("", l);
    return;
  }
  line(kind, `${call} -> ${r.structuredContent ? JSON.stringify(r.structuredContent) : textOf(r)}`);
}

await step("ok", "read_discharge", { station: "07374000" });
await step("ok", "runoff_depth", { discharge: 1250, area: 29000 });
await step("converted", "echo_arguments", { discharge: "1250 cfs" });
await step("converted", "runoff_depth", { discharge: "1250 cfs", area: 29000 });
await step("ok", "runoff_depth", { discharge: { value: 12.4, unit: "ft" }, area: 29000 });
await step("converted", "read_discharge_si", { station: "07374000" });
await step("ok", "read_drainage_area", { station: "07374000" });
await step("passed", "station_name", { station: "07374000" });
await step("error", "crash");
await step("ok", "read_discharge", { station: "07374000" });

await agent.close();
line("recorded", `in ${db} (agent-ledger serve --db ${db}, then GET /v1/sessions?label=source:mcp-proxy)`);

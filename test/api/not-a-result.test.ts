// Input that is not a result at all is a usage error at every door (CLI exit 1, HTTP 400, MCP tool error), never an
// evaluation: nothing is stored, so no "(no task id)" blocked run shows on the dashboard.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/sqlite/db.js";
import { createTestApp, type TestApp } from "../helpers/db.js";
import { stageResult } from "../helpers/gated.js";

const BIN = fileURLToPath(new URL("../../bin/agent-ledger.js", import.meta.url));
const JUST_TEXT =
  '`result` must be a JSON object (a result: output, claims, comparisons, ...); received the string "just text". ' +
  'Send for example {"result": {"output": "...", "claims": [...]}}.';

let t: TestApp;
let http: ServerType;
let client: Client;
const dirs: string[] = [];

beforeAll(async () => {
  t = createTestApp();
  http = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  client = new Client({ name: "not-a-result", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${t.adminToken}` } },
    }),
  );
});

afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    (http as Server).closeAllConnections();
  });
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const stored = async (): Promise<number> =>
  ((await t.call("GET", "/v1/evaluations")).body as { items: unknown[] }).items.length;

describe("input that is not a result", () => {
  it("HTTP: 400 with the envelope naming what is wrong, nothing stored", async () => {
    const r = await t.call("POST", "/v1/evaluations", { body: { result: "just text" } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: { code: "invalid_request", details: [{ path: "result", message: JUST_TEXT }] },
    });
    const runs = await t.call("POST", "/v1/evaluations", { body: { runs: [stageResult("1 m"), 7] } });
    expect(runs.status).toBe(400);
    expect((runs.body as { error: { details: { message: string }[] } }).error.details[0]?.message).toMatch(
      /^runs\[1\] must be a JSON object .*received number 7\./,
    );
    expect(await stored()).toBe(0);
  });

  it("MCP evaluate_result: a tool error naming what is wrong, nothing stored", async () => {
    // The tool takes a result as JSON text (strict mode has no open object) or as an object: neither form here is one.
    const text = async (args: Record<string, unknown>) => {
      const r = (await client.callTool({ name: "evaluate_result", arguments: args })) as CallToolResult;
      return [r.isError, (r.content[0] as { text: string }).text];
    };
    expect(await text({ result: "just text" })).toEqual([
      true,
      expect.stringMatching(
        /^\[invalid_request\] result is not JSON text \(.+\); send it as a JSON object, or as that object's JSON text$/,
      ),
    ]);
    expect(await text({ result: '"just text"' })).toEqual([true, `[invalid_request] ${JUST_TEXT}`]);
    expect(await text({ task: null, result: ["just", "text"], runs: null, settings: null })).toEqual([
      true,
      "[invalid_request] `result` must be a JSON object (a result: output, claims, comparisons, ...); received an array. " +
        'Send for example {"result": {"output": "...", "claims": [...]}}.',
    ]);
    expect(await stored()).toBe(0);
  });
});

describe("the CLI over files that are not results", () => {
  function workspace(files: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), "not-a-result-"));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const db = join(dir, "ledger.db");
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd: dir,
          env: { ...process.env, AGENT_LEDGER_DB: db, AGENT_LEDGER_ADMIN_TOKEN: "" },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (b: Buffer) => void (stdout += b.toString()));
        child.stderr.on("data", (b: Buffer) => void (stderr += b.toString()));
        child.on("close", (code) => done({ code, stdout, stderr }));
      });
    return { dir, db, run };
  }

  it("evaluate exits 1 with what is wrong and records nothing", { timeout: 120_000 }, async () => {
    const w = workspace({
      "bad.json": JSON.stringify({ result: "just text" }),
      "notes.json": "peak was 1.2 million cfs",
      "good.json": JSON.stringify({ task: { id: "crest" }, result: stageResult("1 m") }),
    });
    const bad = await w.run(["evaluate", "good.json", "bad.json"]);
    expect([bad.code, bad.stdout, bad.stderr.trim()]).toEqual([
      1,
      "",
      `agent-ledger: bad.json is not a result: ${JUST_TEXT}`,
    ]);
    const text = await w.run(["evaluate", "notes.json"]);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(
      /^agent-ledger: notes\.json is not JSON \(.+\); send a result, \{task, result\} or \{task, runs\}\n$/,
    );
    const db = openDb(w.db);
    try {
      expect((db.sqlite.prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n).toBe(0);
    } finally {
      db.close();
    }
  });

  it("validate prints one line per file, good, bad and missing, and exits 1", { timeout: 120_000 }, async () => {
    const w = workspace({
      "good.json": JSON.stringify({ task: { id: "crest" }, result: stageResult("1 m") }),
      "bad.json": JSON.stringify({ result: "just text" }),
    });
    const r = await w.run(["validate", "good.json", "bad.json", "missing.json"]);
    const lines = r.stdout.trim().split("\n");
    expect(lines.map((l) => l.split(" ").slice(0, 2).join(" "))).toEqual([
      lines[0]?.startsWith("PASS") ? "PASS good.json" : "BLOCK good.json",
      "ERROR bad.json",
      "ERROR cannot",
    ]);
    expect(lines.slice(1)).toEqual([
      `ERROR bad.json is not a result: ${JUST_TEXT}`,
      "ERROR cannot read missing.json: no such file",
    ]);
    expect([r.code, r.stderr.trim()]).toEqual([
      1,
      "agent-ledger: 2 of 3 file(s) could not be validated (ERROR lines above)",
    ]);
  });
});

// The MCP Inspector's CLI (@modelcontextprotocol/inspector, which needs Node 22.19 or later), as a team would point it
// at what we serve, in both protocol eras (2025-11-25 "legacy", 2026-07-28 "modern"): the proxy's --listen front and
// its stdio front in front of the demo server (which speaks 2025-11-25 only, so a 2026-07-28 request is answered by
// the proxy itself), a gateway of two upstreams (`--config`), and the service's own /mcp with a bearer token. Each tools/list passes the Inspector's schema
// portability check (--strict) without a warning; a guarded call converts, and a refused one is a tool error carrying
// its repair message.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/db.js";
import { LEDGER_TOOL_NAMES } from "../helpers/ledger-tools.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const usable = major > 22 || (major === 22 && minor >= 19);
const ERAS = ["legacy", "modern"] as const;

if (!usable) console.log("test/mcp/inspector.test.ts skipped on Node 20: the MCP Inspector needs Node 22.19+");

let dir = "";
let proxy: ChildProcess;
let listenUrl = "";
let gateway: ChildProcess;
let gatewayUrl = "";
let t: TestApp;
let http: ServerType;
let serviceUrl = "";

type Ran = { code: number; out: Record<string, unknown>; err: string };

/** Runs the Inspector's CLI with `args` (server first) and answers its exit code, its JSON output and its stderr. */
function inspector(args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      // Its own options before the arguments: after a "--" everything is the stdio server's command.
      [INSPECTOR, "--cli", "--format", "json", ...args],
      {
        cwd: ROOT,
        timeout: 60_000,
        // Its catalog and client settings in the test's own folder, never the user's home.
        env: {
          ...process.env,
          HOME: dir,
          MCP_CATALOG_PATH: join(dir, "catalog.json"),
          MCP_CLIENT_CONFIG_PATH: join(dir, "client.json"),
        },
      },
      (e, stdout, stderr) => {
        const code = e === null ? 0 : typeof e.code === "number" ? e.code : -1;
        let out: Record<string, unknown> = {};
        try {
          out = JSON.parse(stdout) as Record<string, unknown>;
        } catch {
          out = { unparsed: stdout };
        }
        resolve({ code, out, err: stderr });
      },
    );
  });
}

/** The URL a proxy serves at, once it says so on stderr. */
function served(child: ChildProcess): Promise<string> {
  let said = "";
  return new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString("utf8");
      const m = /over Streamable HTTP at (http:\/\/\S+)/.exec(said);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the proxy exited (${code}): ${said}`)));
  });
}

/** The Inspector's lines of warning or error about a listing (its --strict report), if any. */
const complaints = (err: string) => err.split("\n").filter((l) => /^(Warning|Error)\b/.test(l));

type Tool = { name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } };
const toolsOf = (r: Ran) => ((r.out.result as { tools?: Tool[] } | undefined)?.tools ?? []) as Tool[];
const DEMO = ["--annotations", "demo/water.toml"];
const stdioTarget = () => [
  "--",
  process.execPath,
  BIN,
  "mcp",
  ...DEMO,
  "--db",
  join(dir, "stdio.db"),
  "--",
  process.execPath,
  "--import",
  "tsx",
  "demo/server.ts",
];
const RUNOFF = ["--method", "tools/call", "--tool-name", "runoff_depth", "--tool-args-json"];

describe.skipIf(!usable)("the MCP Inspector's CLI (skipped on Node 20: needs Node 22.19+)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ledger-inspector-"));
    const demo = [process.execPath, "--import", "tsx", "demo/server.ts"];
    proxy = spawn(
      process.execPath,
      [BIN, "mcp", ...DEMO, "--db", join(dir, "listen.db"), "--listen", "127.0.0.1:0", "--", ...demo],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    listenUrl = await served(proxy);
    const rich = (name: string) =>
      `command = ${JSON.stringify([process.execPath, "--import", "tsx", join(ROOT, "test/mcp/rich-upstream.ts"), name])}`;
    const config = join(dir, "gateway.toml");
    writeFileSync(config, `listen = "127.0.0.1:0"\n\n[upstreams.a]\n${rich("a")}\n\n[upstreams.b]\n${rich("b")}\n`);
    gateway = spawn(process.execPath, [BIN, "mcp", "--config", config, "--db", join(dir, "gateway.db")], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    gatewayUrl = await served(gateway);
    t = createTestApp();
    http = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
    });
    serviceUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  }, 60_000);

  afterAll(async () => {
    proxy?.kill("SIGKILL");
    gateway?.kill("SIGKILL");
    await new Promise<void>((done) => (http ? http.close(() => done()) : done()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(ERAS)(
    "lists the proxy's --listen tools in the %s era with units, and no portability warning",
    async (era) => {
      const r = await inspector([listenUrl, "--protocol-era", era, "--method", "tools/list", "--strict"]);
      expect([r.code, complaints(r.err)]).toEqual([0, []]);
      const runoff = toolsOf(r).find((x) => x.name === "runoff_depth");
      expect(runoff?.inputSchema.properties.discharge).toMatchObject({
        "x-unit": "m^3/s",
        "x-ogc-unit": "m3/s",
        "x-ogc-unitLang": "UCUM",
      });
      expect(toolsOf(r).map((x) => x.name)).toContain("read_discharge");
    },
    60_000,
  );

  it.each(ERAS)(
    "calls a guarded tool through --listen in the %s era: converted, or refused with its repair",
    async (era) => {
      const ok = await inspector([
        listenUrl,
        "--protocol-era",
        era,
        ...RUNOFF,
        '{"discharge": "50 m**3/s", "area": "100 km**2"}',
      ]);
      expect(ok.code).toBe(0);
      expect((ok.out.result as { structuredContent?: unknown }).structuredContent).toEqual({
        value: 43.2,
        unit: "mm/day",
      });
      const refused = await inspector([
        listenUrl,
        "--protocol-era",
        era,
        ...RUNOFF,
        '{"discharge": "50 furlongs", "area": "100 km**2"}',
      ]);
      // The Inspector exits 5 on a tool error (isError: true) and prints the result.
      expect(refused.code).toBe(5);
      expect(((refused.out.result as { content: { text: string }[] }).content[0] ?? { text: "" }).text).toBe(
        "[unit_parse_error] for `discharge` cannot parse quantity '50 furlongs': cannot parse unit 'furlongs': " +
          'Unit "furlongs" not found; send a unit such as "m^3/s", "ft", "cfs" or "km^2"',
      );
    },
    60_000,
  );

  it.each(ERAS)(
    "lists and calls the stdio proxy's tools in the %s era",
    async (era) => {
      const listed = await inspector(["--protocol-era", era, "--method", "tools/list", "--strict", ...stdioTarget()]);
      expect([listed.code, complaints(listed.err)]).toEqual([0, []]);
      expect(toolsOf(listed).find((x) => x.name === "runoff_depth")?.inputSchema.properties.area).toMatchObject({
        "x-unit": "km^2",
        "x-ogc-unit": "km2",
      });
      const called = await inspector([
        "--protocol-era",
        era,
        ...RUNOFF,
        '{"discharge": "50 m**3/s", "area": "100 km**2"}',
        ...stdioTarget(),
      ]);
      expect([called.code, (called.out.result as { structuredContent?: unknown }).structuredContent]).toEqual([
        0,
        { value: 43.2, unit: "mm/day" },
      ]);
    },
    60_000,
  );

  it.each(ERAS)(
    "lists, reads and prompts through a gateway of two upstreams in the %s era",
    async (era) => {
      const at = [gatewayUrl, "--protocol-era", era];
      const listed = await inspector([...at, "--method", "tools/list", "--strict"]);
      expect([listed.code, complaints(listed.err)]).toEqual([0, []]);
      expect(toolsOf(listed).map((x) => x.name)).toEqual(expect.arrayContaining(["a__level", "b__level"]));
      const read = await inspector([...at, "--method", "resources/read", "--uri", "b://status"]);
      expect([read.code, read.out.result]).toMatchObject([
        0,
        { contents: [{ uri: "b://status", text: "b read b://status" }] },
      ]);
      const prompt = await inspector([
        ...at,
        "--method",
        "prompts/get",
        "--prompt-name",
        "a__summary",
        "--prompt-args",
        "station=07",
      ]);
      expect([prompt.code, prompt.out.result]).toMatchObject([
        0,
        { messages: [{ role: "user", content: { type: "text", text: "a summary of 07" } }] },
      ]);
    },
    60_000,
  );

  it.each(ERAS)(
    "lists the service's seven /mcp tools in the %s era with a bearer token, and converts",
    async (era) => {
      const auth = ["--header", `Authorization: Bearer ${t.adminToken}`];
      const listed = await inspector([
        serviceUrl,
        ...auth,
        "--protocol-era",
        era,
        "--method",
        "tools/list",
        "--strict",
      ]);
      expect([listed.code, complaints(listed.err)]).toEqual([0, []]);
      expect(
        toolsOf(listed)
          .map((x) => x.name)
          .sort(),
      ).toEqual([...LEDGER_TOOL_NAMES]);
      const converted = await inspector([
        serviceUrl,
        ...auth,
        "--protocol-era",
        era,
        "--method",
        "tools/call",
        "--tool-name",
        "convert",
        "--tool-args-json",
        '{"quantity": "1250 cfs", "to_unit": "m^3/s"}',
      ]);
      expect(converted.code).toBe(0);
      expect(
        (converted.out.result as { structuredContent?: { quantity?: { unit?: string } } }).structuredContent?.quantity
          ?.unit,
      ).toBe("m^3/s");
      // Without the token: the Inspector's exit 3 (auth required); the 2025-11-25 client shows the service's error
      // envelope, the 2026-07-28 one the 401 of its first request (server/discover).
      const refused = await inspector([
        serviceUrl,
        "--protocol-era",
        era,
        "--method",
        "tools/list",
        "--stored-auth-only",
      ]);
      expect(refused.code).toBe(3);
      expect(`${JSON.stringify(refused.out)}${refused.err}`).toContain(
        era === "legacy"
          ? "missing bearer token: send Authorization: Bearer <token>"
          : "the server requires authorization (HTTP 401)",
      );
    },
    60_000,
  );
});

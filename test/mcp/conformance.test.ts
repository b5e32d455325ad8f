// The official MCP conformance suite (@modelcontextprotocol/conformance, which needs Node 22 or later) against its own
// reference server, directly and through `agent-ledger mcp --listen --upstream-url` with an empty annotations file:
// every scenario that passes directly passes through, for MCP 2025-11-25 and 2026-07-28. And the same server over stdio
// (its own McpServer on a stdio transport: a 2025-11-25 server, since its 2026-07-28 side lives in its HTTP layer) behind
// `--listen -- COMMAND`: every 2025-11-25 scenario that passes directly passes through the command's children too.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const REFERENCE = join(ROOT, "test/fixtures/mcp-conformance/everything-server.ts");
// Written next to the reference at the start (so its imports resolve), removed at the end; .gitignore names it.
const REFERENCE_STDIO = join(ROOT, "test/fixtures/mcp-conformance/everything-stdio.generated.ts");
const major = Number(process.versions.node.split(".")[0]);
const run = promisify(execFile);

if (major < 22) console.log("test/mcp/conformance.test.ts skipped on Node 20: needs Node 22+");

let dir: string;
let reference: ChildProcess;
let proxy: ChildProcess;
let direct: string;
let through: string;
let stdioProxy: ChildProcess;
let throughStdio: string;

/**
 * The reference server's source with its HTTP listener replaced by a stdio transport for the same McpServer. Its
 * console.log lines go to stderr, as stdout is the protocol.
 */
function stdioReference(): string {
  const source = readFileSync(REFERENCE, "utf8").replace(/^#!.*\n/, "");
  const start = source.indexOf("// Start server");
  if (start < 0) throw new Error(`${REFERENCE} no longer has its "// Start server" section`);
  return (
    "console.log = console.error;\n" +
    source.slice(0, start) +
    "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\n" +
    "await createMcpServer().connect(new StdioServerTransport());\n"
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts a child and waits for a line of its output matching `ready`; answers the match. */
function started(child: ChildProcess, ready: RegExp, what: string): Promise<RegExpExecArray> {
  let seen = "";
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const m = ready.exec(seen);
      if (m) resolve(m);
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}): ${seen}`)));
  });
}

/** The scenarios of one suite run whose every check passed, and those with a failed check. */
async function scenarios(
  url: string,
  revision: string,
  tag: string,
  timeout = 120_000,
): Promise<{ passed: string[]; failed: string[] }> {
  const out = join(dir, `${tag}-${revision}`);
  await run(process.execPath, [SUITE, "server", "--url", url, "--requirements", revision, "-o", out], {
    cwd: ROOT,
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((e: { code?: number }) => {
    // The suite exits non-zero when a scenario fails; the results are in `out` either way.
    if (typeof e.code !== "number") throw e;
  });
  const passed: string[] = [];
  const failed: string[] = [];
  for (const entry of readdirSync(out)) {
    const name = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    const checks = JSON.parse(readFileSync(join(out, entry, "checks.json"), "utf8")) as { status: string }[];
    (checks.some((c) => c.status === "FAILURE") ? failed : passed).push(name);
  }
  return { passed: passed.sort(), failed: failed.sort() };
}

describe.skipIf(major < 22)(
  "the MCP conformance suite, directly and through --listen (skipped on Node 20: needs Node 22+)",
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "ledger-mcp-conformance-"));
      const annotations = join(dir, "empty.toml");
      writeFileSync(annotations, "");
      const port = await freePort();
      reference = spawn(process.execPath, ["--import", "tsx", REFERENCE], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      await started(reference, /MCP endpoint: http:\/\/localhost:\d+\/mcp/, "the reference server");
      direct = `http://127.0.0.1:${port}/mcp`;
      proxy = spawn(
        process.execPath,
        [
          BIN,
          "mcp",
          "--annotations",
          annotations,
          "--db",
          join(dir, "ledger.db"),
          "--upstream-url",
          direct,
          "--listen",
          "127.0.0.1:0",
        ],
        { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
      );
      through = (await started(proxy, /over Streamable HTTP at (http:\/\/\S+)/, "the proxy"))[1]!;
      writeFileSync(REFERENCE_STDIO, stdioReference());
      stdioProxy = spawn(
        process.execPath,
        [
          BIN,
          "mcp",
          "--annotations",
          annotations,
          "--db",
          join(dir, "ledger-stdio.db"),
          "--listen",
          "127.0.0.1:0",
          "--",
          process.execPath,
          "--import",
          "tsx",
          REFERENCE_STDIO,
        ],
        { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
      );
      throughStdio = (await started(stdioProxy, /over Streamable HTTP at (http:\/\/\S+)/, "the stdio proxy"))[1]!;
    }, 120_000);

    afterAll(() => {
      proxy?.kill("SIGKILL");
      stdioProxy?.kill("SIGKILL");
      reference?.kill("SIGKILL");
      rmSync(REFERENCE_STDIO, { force: true });
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const revision of ["2025-11-25", "2026-07-28"]) {
      it(`passes through every ${revision} scenario the reference server passes directly`, async () => {
        const alone = await scenarios(direct, revision, "direct");
        const relayed = await scenarios(through, revision, "through");
        // The reference server passes the revision's scored scenarios (31 and 30); a broken run would pass none.
        expect(alone.passed.length).toBeGreaterThanOrEqual(30);
        expect(alone.passed.filter((s) => !relayed.passed.includes(s))).toEqual([]);
      }, 180_000);
    }

    it("passes through a command's children every 2025-11-25 scenario the reference server passes directly", async () => {
      const alone = await scenarios(direct, "2025-11-25", "direct-for-stdio");
      // Each scenario's session starts a child (node --import tsx): minutes on a loaded machine.
      const relayed = await scenarios(throughStdio, "2025-11-25", "through-stdio", 480_000);
      expect(alone.passed.length).toBeGreaterThanOrEqual(30);
      expect(alone.passed.filter((s) => !relayed.passed.includes(s))).toEqual([]);
    }, 660_000);
  },
);

// The README's worked example as a new user runs it: every fenced block marked `sh readme-run` is run as written, in
// order, by bash against a started `agent-ledger serve` (only its port differs: a free one instead of 8787). Each
// `# {...}` line under a command (one without "...") is an exact line of what the commands print.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
// The README's commands use curl and jq; CI installs both (.ci/run). Elsewhere, without them, say so and skip.
const missing = ["curl", "jq"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
if (missing.length)
  console.log(`readme-commands: skipped: ${missing.join(" and ")} not installed (apt-get install curl jq)`);
const TOKEN = "my-admin-token-0123456789";

/** The README's runnable blocks, in order. */
function runnableBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh readme-run\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });

let dir: string;
let port: number;
let service: ChildProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "readme-run-"));
  // The commands read examples/ relative to the checkout and write manifest.json beside them.
  symlinkSync(join(ROOT, "examples"), join(dir, "examples"));
  port = await freePort();
  service = spawn(process.execPath, [join(ROOT, "bin/agent-ledger.js"), "serve"], {
    cwd: dir,
    env: {
      ...process.env,
      AGENT_LEDGER_DB: join(dir, "ledger.db"),
      AGENT_LEDGER_ADMIN_TOKEN: TOKEN,
      PORT: String(port),
      HOST: "127.0.0.1",
    },
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    service.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("listening on")) resolve();
    });
    service.once("exit", (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}, 120_000);

afterAll(() => {
  service?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(missing.length > 0)("the README's commands, as written", () => {
  it("run in order against a started service and print what the README shows", { timeout: 120_000 }, async () => {
    const blocks = runnableBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const script = blocks.join("\n").replaceAll("localhost:8787", `127.0.0.1:${port}`);
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const bash = spawn("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: dir });
      let stdout = "";
      let stderr = "";
      bash.stdout.on("data", (b: Buffer) => void (stdout += b.toString()));
      bash.stderr.on("data", (b: Buffer) => void (stderr += b.toString()));
      bash.on("close", (code) => done({ code, stdout, stderr }));
    });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const shown = script
      .split("\n")
      .filter((l) => l.startsWith("# {") && !l.includes("..."))
      .map((l) => l.slice(2));
    expect(shown.length).toBeGreaterThanOrEqual(4);
    // curl prints no newline after a body: a shown line is found anywhere in what was printed.
    expect(shown.filter((l) => !r.stdout.includes(l))).toEqual([]);
    // The refusal the README shows, with the outcome field it really has.
    expect(r.stdout).toContain('"outcome":"refused"');
  });
});

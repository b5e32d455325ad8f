// The demo server started on a port that is taken: one line saying so and a non-zero exit, not an unhandled stack.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
let taken: Server;
let port = 0;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  port = (taken.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

describe("demo server on a taken port", () => {
  it("says the port is in use in one line and exits 1", { timeout: 60_000 }, async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, ["--import", "tsx", "demo/server.ts", "--http", String(port)], {
        cwd: ROOT,
      });
      let stderr = "";
      child.stderr.on("data", (b: Buffer) => void (stderr += b.toString()));
      child.on("close", (code) => done({ code, stderr }));
    });
    expect([r.code, r.stderr]).toEqual([
      1,
      `demo-water: cannot listen on 127.0.0.1:${port}: the port is already in use (is another demo server running?); ` +
        "pass another port: --http PORT\n",
    ]);
  });
});

// `agent-ledger serve` as a real process: OpenTelemetry loaded and exporting only when OTEL_EXPORTER_OTLP_ENDPOINT
// is set, and not one OpenTelemetry module loaded when it is not.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(ROOT, "bin/agent-ledger.js");
const HOOK = join(ROOT, "test/telemetry/record-loads.mjs");
const TOKEN = "otel-admin-token-0123456789";

let dir: string;
let receiver: OtlpReceiver;

type Served = { child: ChildProcess; url: string; out: () => string; exited: Promise<number | null> };

/** Starts `serve` on a free port with `env` over the test's own (OTEL_* variables removed first). */
async function serve(name: string, env: Record<string, string>): Promise<Served> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  const child = spawn(process.execPath, ["--import", HOOK, BIN, "serve", "--port", "0"], {
    cwd: ROOT,
    env: { ...base, AGENT_LEDGER_DB: join(dir, `${name}.db`), AGENT_LEDGER_ADMIN_TOKEN: TOKEN, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => void (out += c.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`serve exited (${code}): ${out}`));
    });
  });
  return { child, url, out: () => out, exited };
}

async function guardedCall(url: string): Promise<{ ok: boolean; outcome: string }> {
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const send = async (method: string, path: string, body: unknown) =>
    (await fetch(`${url}${path}`, { method, headers, body: JSON.stringify(body) })).json() as Promise<{
      id: string;
      ok: boolean;
      outcome: string;
    }>;
  await send("PUT", "/v1/tools/runoff_depth", {
    params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } },
    returns: { unit: "mm/day" },
  });
  const session = await send("POST", "/v1/sessions", { context: "Runoff over the 29,000 km2 basin?" });
  return send("POST", `/v1/sessions/${session.id}/calls`, {
    tool: "runoff_depth",
    args: { discharge: "1250 cfs", area: 29000 },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-otel-serve-"));
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("agent-ledger serve and OpenTelemetry", () => {
  it("loads no OpenTelemetry module and exports nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset", async () => {
    const loads = join(dir, "unset-loads.txt");
    const s = await serve("unset", { RECORD_LOADS: loads, OTEL_SERVICE_NAME: "unset-ledger" });
    try {
      expect(await guardedCall(s.url)).toMatchObject({ ok: true, outcome: "converted" });
    } finally {
      s.child.kill("SIGTERM");
      await s.exited;
    }
    expect(existsSync(loads) ? readFileSync(loads, "utf8") : "").toBe("");
    expect(s.out()).not.toContain("OpenTelemetry");
    expect(receiver.requests).toHaveLength(0);
  });

  it("exports the guarded call's span to OTEL_EXPORTER_OTLP_ENDPOINT, flushed on SIGTERM", async () => {
    const loads = join(dir, "set-loads.txt");
    const s = await serve("set", {
      RECORD_LOADS: loads,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    });
    try {
      expect(await guardedCall(s.url)).toMatchObject({ ok: true, outcome: "converted" });
    } finally {
      s.child.kill("SIGTERM");
      expect(await s.exited).toBe(0);
    }
    expect(s.out()).toContain(`exporting OpenTelemetry spans to ${receiver.endpoint}/v1/traces (http/json)`);
    expect(readFileSync(loads, "utf8")).toContain("/@opentelemetry/sdk-trace/");
    const spans = receiver.spans();
    expect(spans.map((x) => [x.name, x.attributes["agent_ledger.outcome"], x.resource["service.name"]])).toEqual([
      ["execute_tool runoff_depth", "converted", "agent-ledger"],
    ]);
  });
});

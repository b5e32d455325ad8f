// bench:http's load, shared by its benchmarks: a `serve` (or any script) started under tsx, the guarded call it is
// loaded with, and autocannon's per-session load against it.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import autocannon from "autocannon";

/** The admin token every benchmark server is started with. */
export const TOKEN = "bench-admin-token-0123456789";

/** Seconds per measured row (`BENCH_SECONDS`). */
export const DURATION = Number(process.env.BENCH_SECONDS ?? 8);

/** Starts `args` under tsx with `env` added, resolved once its output matches `ready`. */
export function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const onData = (d: Buffer) => {
      if (ready.test(d.toString())) resolve(child);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Waits until `url` answers 2xx (10 s at most). */
export async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never became healthy`);
}

/** Sends `body` as JSON with the admin token; answers the parsed body. */
export async function json(url: string, method: string, body: unknown): Promise<{ id: string }> {
  const r = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await r.json()) as { id: string };
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The declaration of the benchmark's tool. */
export const DECL = { params: { discharge: { unit: "m**3/s" }, area: { unit: "km**2" } }, returns: { unit: "mm/day" } };
/** The guarded call every benchmark sends. */
export const CALL = JSON.stringify({ tool: "runoff_depth", args: { discharge: "1250 cfs", area: 29000 } });
/** JSON with the admin token. */
export const HEADERS = { "content-type": "application/json", authorization: `Bearer ${TOKEN}` };

/** Declares the tool and opens `n` sessions on the server at `base`. */
export async function prepare(base: string, n: number): Promise<string[]> {
  await json(`${base}/v1/tools/runoff_depth`, "PUT", DECL);
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) ids.push((await json(`${base}/v1/sessions`, "POST", { context: "bench" })).id);
  return ids;
}

/** Guarded calls against `base` with each connection in its own session from `sessions`. */
export function perSession(base: string, sessions: string[], connections: number): autocannon.Options {
  let next = 0;
  type Ctx = { session?: string };
  const setupRequest = ((req: autocannon.Request, ctx: Ctx) => {
    ctx.session ??= sessions[next++ % sessions.length];
    return { ...req, path: `/v1/sessions/${ctx.session}/calls` };
  }) as unknown as NonNullable<autocannon.Request["setupRequest"]>;
  return {
    url: base,
    connections,
    duration: DURATION,
    requests: [{ method: "POST", headers: HEADERS, body: CALL, setupRequest }],
  };
}

/** Runs one autocannon load to its end. */
export function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, res) => (err ? reject(err) : resolve(res))));
}

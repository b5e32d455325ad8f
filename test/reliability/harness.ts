// Reliability test harness: real `agent-ledger serve` child processes on file databases, a fake upstream for the
// retrieval packs, a small JSON client, and the route list read from the live /openapi.json.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

/** The repository root (the child processes run from here). */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A served API in a child process. */
export type Served = {
  url: string;
  proc: ChildProcess;
  /** Everything the child wrote to stdout and stderr so far. */
  output(): string;
  /** True until the child exits. */
  alive(): boolean;
  /** Sends `signal` and resolves once the child has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
};

/** Starts `agent-ledger serve` on `db` at a free port; resolves once it prints its URL. */
export function serve(db: string, env: Record<string, string> = {}): Promise<Served> {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", AGENT_LEDGER_DB: db, AGENT_LEDGER_ADMIN_TOKEN: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let exited = false;
  const exit = new Promise<void>((done) =>
    proc.once("exit", () => {
      exited = true;
      done();
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 30 s:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          proc,
          output: () => out,
          alive: () => !exited,
          stop: (signal = "SIGTERM") => {
            if (!exited) proc.kill(signal);
            return exit;
          },
        });
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
}

/** The admin token `serve` generated and printed once (the line follows the "listening" line). */
export async function printedAdminToken(s: Served): Promise<string> {
  for (let i = 0; i < 100; i += 1) {
    const m = /admin token \(shown once[^)]*\): (\S+)/.exec(s.output());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no admin token printed:\n${s.output()}`);
}

const FIXTURES = fileURLToPath(new URL("../fixtures/packs/", import.meta.url));
/** Upstream paths the fake answers from recorded fixtures; everything else is a 404 like an unknown site. */
const UPSTREAM: readonly { test: RegExp; file: string }[] = [
  { test: /^\/nwis\/site\/\?.*sites=07374000\b/, file: "usgs_site_07374000.rdb" },
  { test: /^\/nwis\/iv\/\?.*sites=07374000\b/, file: "usgs_iv_07374000.json" },
  { test: /^\/id\/stations\/E21136\/measures\b/, file: "ea_measures_E21136.json" },
  { test: /^\/id\/stations\/E21136\b/, file: "ea_station_E21136.json" },
  // The USGS OGC API (the usgs pack and its tools), from the derived Baton Rouge records.
  {
    test: /^\/collections\/monitoring-locations\/items\/USGS-07374000\b/,
    file: "../usgs-ogc/derived_monitoring-locations_USGS-07374000.json",
  },
  {
    test: /^\/collections\/latest-continuous\/items\?.*USGS-07374000\b/,
    file: "../usgs-ogc/derived_latest-continuous_07374000_march.json",
  },
  { test: /^\/collections\/(continuous|daily)\/items\?.*USGS-07374000\b/, file: "../usgs-ogc/usgs_daily_empty.json" },
];

/** A local stand-in for the USGS and EA services, so pack routes never touch the network. */
export async function fakeUpstream(): Promise<{ url: string; env: Record<string, string>; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const hit = UPSTREAM.find((u) => u.test.test(req.url ?? ""));
    if (!hit) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": hit.file.endsWith(".json") ? "application/json" : "text/plain" });
    res.end(readFileSync(FIXTURES + hit.file));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: { AGENT_LEDGER_USGS_URL: url, AGENT_LEDGER_USGS_LEGACY_URL: url, AGENT_LEDGER_EA_URL: url },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A parsed answer. */
export type Reply = { status: number; text: string; body: unknown; ms: number };

/**
 * Sends one request. An object `body` goes as JSON with its content type; a string or bytes go as they are, with
 * only the headers given (so a test can send no content type at all).
 */
export async function send(
  url: string,
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: Uint8Array | string | undefined;
  if (typeof options.body === "string") body = new TextEncoder().encode(options.body);
  else if (options.body instanceof Uint8Array) body = options.body;
  else if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  Object.assign(headers, options.headers);
  const t0 = performance.now();
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text.length ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, text, body: parsed, ms: performance.now() - t0 };
}

/** Sends a body in chunks with Transfer-Encoding: chunked (no Content-Length), through node:http. */
export function sendChunked(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: readonly Uint8Array[],
): Promise<Reply> {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    let answered = false;
    const req = request(url + path, { method, headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        done({ status: res.statusCode ?? 0, text, body, ms: performance.now() - t0 });
      });
    });
    // The server may answer 413 and close before every chunk is written; the answer is what counts.
    req.on("error", (e) => {
      if (!answered) fail(e);
    });
    const write = (i: number): void => {
      if (i >= chunks.length) {
        req.end();
        return;
      }
      if (req.destroyed) return;
      req.write(chunks[i], () => write(i + 1));
    };
    write(0);
  });
}

/** True when `body` is the error envelope `{error: {code, message}}` with non-empty strings. */
export function isEnvelope(body: unknown): boolean {
  const e = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof e?.code === "string" && e.code.length > 0 && typeof e.message === "string" && e.message.length > 0;
}

// --- the route list, from the live OpenAPI document ------------------------------------------------

/** A JSON Schema node as the OpenAPI document carries it. */
export type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  example?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  pattern?: string;
  nullable?: boolean;
};
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema };
type Operation = {
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
};
/** The parts of an OpenAPI 3.1 document the walks read. */
export type OpenApiDoc = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

/** One route: method, path template, and what its operation declares. */
export type Route = {
  method: string;
  path: string;
  public: boolean;
  pathParams: string[];
  query: Parameter[];
  /** The media type of the request body, when the route takes one. */
  bodyType?: string;
  bodySchema?: Schema;
  bodyRequired: boolean;
};

const METHODS = new Set(["get", "put", "post", "delete", "patch"]);

/** Every route (paths × methods) of the live document, in document order. */
export function routesOf(doc: OpenApiDoc): Route[] {
  const out: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!METHODS.has(method)) continue;
      const params = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      const bodyType = Object.keys(content)[0];
      out.push({
        method: method.toUpperCase(),
        path,
        public: Array.isArray(op.security) && op.security.length === 0,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        query: params.filter((p) => p.in === "query"),
        bodyType,
        bodySchema: bodyType ? content[bodyType]!.schema : undefined,
        bodyRequired: op.requestBody?.required === true,
      });
    }
  }
  return out;
}

/** The live document (served without a token). */
export async function fetchDoc(url: string): Promise<OpenApiDoc> {
  const r = await fetch(`${url}/openapi.json`);
  if (!r.ok) throw new Error(`/openapi.json answered ${r.status}`);
  return (await r.json()) as OpenApiDoc;
}

/** Follows `$ref`s into the document's components. */
export function resolve(doc: OpenApiDoc, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 32 && cur.$ref; i += 1) {
    const name = cur.$ref.replace("#/components/schemas/", "");
    cur = doc.components?.schemas?.[name] ?? {};
  }
  return cur;
}

/** The path with each `{param}` replaced by `fill(param, path)`, URL-encoded. */
export function fillPath(route: Route, fill: (param: string, path: string) => string): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, p: string) => encodeURIComponent(fill(p, route.path)));
}

/** The resource a path parameter names, read from the segment before it ("sessions/{id}" → "sessions"). */
export function resourceOf(path: string, param: string): string {
  const parts = path.split("/");
  const i = parts.indexOf(`{${param}}`);
  return i > 0 ? parts[i - 1]! : "";
}

/**
 * A minimal body that satisfies `schema`, built from its examples, enums and bounds. Good enough for the
 * routes whose bodies the tests do not spell out; known routes get hand-written bodies instead.
 */
export function minimalValue(doc: OpenApiDoc, schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (s.example !== undefined) return s.example;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (branches?.length) return minimalValue(doc, branches[0], depth + 1);
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map((b) => minimalValue(doc, b, depth + 1) as object));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  if (depth > 12) return null;
  switch (type) {
    case "object": {
      const o: Record<string, unknown> = {};
      for (const k of s.required ?? []) o[k] = minimalValue(doc, s.properties?.[k], depth + 1);
      return o;
    }
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => minimalValue(doc, s.items, depth + 1));
    case "string":
      return "x".repeat(Math.max(1, s.minLength ?? 1));
    case "integer":
    case "number":
      return s.minimum ?? 1;
    case "boolean":
      return false;
    default:
      return {};
  }
}

// --- the database, read directly -------------------------------------------------------------------

/** Row counts of every table of the database file (read through a separate connection). */
export function tableCounts(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    return Object.fromEntries(names.map((n) => [n, db.prepare(`SELECT count(*) FROM "${n}"`).pluck().get() as number]));
  } finally {
    db.close();
  }
}

/** Runs `fn` over a read-only connection to the database file. */
export function withDb<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** A seeded pseudo-random generator (mulberry32), so every run of a test draws the same numbers. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Hostile input against a real server: thousands of malformed bodies, queries and unit strings to every route of
// the live /openapi.json. Every answer is a 4xx envelope (never a 5xx), nothing malformed is stored, and the
// process stays up. Seeded (fast-check), so a failure replays exactly.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanWatches } from "../../src/gates/watch.js";
import {
  fakeUpstream,
  fetchDoc,
  fillPath,
  isEnvelope,
  resolve,
  routesOf,
  send,
  sendChunked,
  serve,
  tableCounts,
  type OpenApiDoc,
  type Reply,
  type Route,
  type Served,
} from "./harness.js";
import { INVALID_UTF8, concat, deepJson, leaves, malformedBodies, withRawLeaf } from "./malformed.js";
import { has, pathValue, seedTeam, validBody, type TeamRows } from "./rows.js";

const TOKEN = "fuzz-admin-token-0123456789";
const SEED = 20261130;
const BODY_LIMIT = 1024 * 1024;
const RANDOM_BODIES = 2500;
const RANDOM_ANY = 1200;
const utf8 = new TextEncoder();

/** Unit strings that must be refused wherever a unit goes: expressions, code, unknown names, non-finite powers. */
const HOSTILE_UNITS = [
  "2*3",
  "sqrt(4) m",
  "import('fs')",
  'import("fs")',
  "f(x) = x^2",
  "a = 5",
  "cos(0) m",
  "1/0",
  "m^(1/0)",
  "m^1e308",
  "[1, 2]",
  "{a: 1}",
  "m; process.exit(1)",
  "evaluate('1 m')",
  "__proto__",
  "constructor",
  "furlongs_per_fortnight",
  "xqzunit",
  "NaN",
  "Infinity",
  "1e309",
  "m/",
  "/s",
  "m^",
  "ft^^2",
  "m**",
  "\u0000",
  "require('child_process')",
  "this.constructor",
  "m to ft",
];

describe("hostile input to every route", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-fuzz-"));
  const db = join(dir, "ledger.db");
  let server: Served;
  let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
  let doc: OpenApiDoc;
  let routes: Route[];
  let rows: TeamRows;
  const statuses = new Map<number, number>();
  const byTest = new Map<string, number>();
  let cases = 0;

  beforeAll(async () => {
    upstream = await fakeUpstream();
    server = await serve(db, { AGENT_LEDGER_ADMIN_TOKEN: TOKEN, ...upstream.env });
    doc = await fetchDoc(server.url);
    routes = routesOf(doc);
    const team = (await send(server.url, "POST", "/v1/admin/teams", { token: TOKEN, body: { name: "fuzz-extra" } }))
      .body as { id: string };
    const token = (await send(server.url, "POST", `/v1/admin/teams/${team.id}/tokens`, { token: TOKEN, body: {} }))
      .body as { id: string };
    rows = await seedTeam(server.url, TOKEN, team.id, token.id, routes);
  }, 60_000);

  afterAll(async () => {
    await server?.stop("SIGKILL");
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pathOf = (route: Route) => fillPath(route, (param, path) => pathValue(rows, path, param));
  const jsonRoutes = () => routes.filter((r) => r.bodyType !== undefined && /^application\/json$/i.test(r.bodyType));
  const bodyRoutes = () => routes.filter((r) => r.bodyType !== undefined);
  const record = (r: Reply) => {
    cases += 1;
    const name = expect.getState().currentTestName?.split(" > ").pop()?.split(/[:(,]/)[0] ?? "?";
    byTest.set(name, (byTest.get(name) ?? 0) + 1);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  };
  /** Throws with the request named unless the answer is a 4xx carrying the error envelope. */
  const expect4xx = (r: Reply, what: string) => {
    record(r);
    if (r.status < 400 || r.status > 499 || !isEnvelope(r.body))
      throw new Error(`${what} answered ${r.status}: ${r.text.slice(0, 300)}`);
  };

  it("answers malformed bodies (syntax, types, unknown fields, long strings, 1e309, deep nesting, bad UTF-8) with a 4xx envelope and stores nothing", async () => {
    const before = tableCounts(db);
    // Fixed cases first: each leaf of each route's valid body replaced by each kind of damage.
    const json = { "content-type": "application/json" };
    for (const route of jsonRoutes()) {
      const base = validBody(doc, route, rows);
      const schema = resolve(doc, route.bodySchema);
      const paths = leaves(base).filter((p) => p.length > 0);
      for (const [i, path] of (paths.length ? paths : [null]).entries()) {
        const [a, b] = withRawLeaf(base, schema, path);
        const fixed: [string, string | Uint8Array][] = [
          ["10,000 nested arrays", a + deepJson(10_000, "array") + b],
          ["10,000 nested objects", a + deepJson(10_000, "object") + b],
          ["1e309", `${a}1e309${b}`],
          ...(i === 0 ? INVALID_UTF8 : INVALID_UTF8.slice(0, 1)).map((bad): [string, Uint8Array] => [
            `invalid UTF-8 ${bad.map((x) => x.toString(16)).join(" ")}`,
            concat(utf8.encode(`${a}"ab`), Uint8Array.from(bad), utf8.encode(`cd"${b}`)),
          ]),
        ];
        for (const [kind, body] of fixed) {
          const where = `${kind} at ${path?.join(".") ?? "(first property)"}: ${route.method} ${route.path}`;
          expect4xx(await send(server.url, route.method, pathOf(route), { token: TOKEN, body, headers: json }), where);
        }
      }
      if (route.bodyRequired) {
        const text = JSON.stringify(base);
        for (const [kind, body, headers] of [
          ["empty body", "", json],
          ["no content type", text, {}],
          ["text/plain", text, { "content-type": "text/plain" }],
        ] as const) {
          expect4xx(
            await send(server.url, route.method, pathOf(route), { token: TOKEN, body, headers }),
            `${kind}: ${route.method} ${route.path}`,
          );
        }
      }
    }
    // Routes with a text body (JSON Lines): bytes that are not UTF-8 are refused before the route reads a line.
    for (const route of bodyRoutes().filter((r) => !jsonRoutes().includes(r))) {
      for (const bad of INVALID_UTF8) {
        const body = concat(
          utf8.encode('{"id":"CLM-U","text":"a'),
          Uint8Array.from(bad),
          utf8.encode('","status":"live"}\n'),
        );
        expect4xx(
          await send(server.url, route.method, pathOf(route), {
            token: TOKEN,
            body,
            headers: { "content-type": route.bodyType! },
          }),
          `invalid UTF-8 in ${route.bodyType}: ${route.method} ${route.path}`,
        );
      }
    }
    const arb = fc
      .constantFrom(...jsonRoutes())
      .chain((route) =>
        malformedBodies(doc, route, validBody(doc, route, rows), BODY_LIMIT).map((m) => ({ route, ...m })),
      );
    await fc.assert(
      fc.asyncProperty(arb, async (c) => {
        const r = await send(server.url, c.route.method, pathOf(c.route), {
          token: TOKEN,
          body: c.body,
          headers: c.headers,
        });
        expect4xx(r, `${c.kind}: ${c.route.method} ${c.route.path}`);
      }),
      { seed: SEED, numRuns: RANDOM_BODIES },
    );
    expect(tableCounts(db)).toEqual(before);
  }, 120_000);

  it("answers bodies over the limit with 413 payload_too_large, with a Content-Length or chunked, and stores nothing", async () => {
    const before = tableCounts(db);
    const big = utf8.encode(JSON.stringify({ context: "x".repeat(BODY_LIMIT) }));
    const chunks = Array.from({ length: Math.ceil(big.length / 65_536) }, (_, i) =>
      big.subarray(i * 65_536, (i + 1) * 65_536),
    );
    for (const route of bodyRoutes()) {
      const headers = { "content-type": route.bodyType!, authorization: `Bearer ${TOKEN}` };
      for (const r of [
        await send(server.url, route.method, pathOf(route), {
          token: TOKEN,
          body: big,
          headers: { "content-type": route.bodyType! },
        }),
        await sendChunked(server.url, route.method, pathOf(route), headers, chunks),
      ]) {
        record(r);
        expect([route.method, route.path, r.status, (r.body as { error?: { code?: string } }).error?.code]).toEqual([
          route.method,
          route.path,
          413,
          "payload_too_large",
        ]);
      }
    }
    expect(tableCounts(db)).toEqual(before);
  }, 60_000);

  it("parses unit strings and never evaluates them: expressions and unknown units are refused wherever a unit goes", async () => {
    const before = tableCounts(db);
    const all: { route: string; send: (u: string) => Promise<Reply> }[] = [
      {
        route: "POST /v1/convert",
        send: (u) => send(server.url, "POST", "/v1/convert", { token: TOKEN, body: { quantity: `5 ${u}`, to: {} } }),
      },
      {
        route: "POST /v1/convert",
        send: (u) =>
          send(server.url, "POST", "/v1/convert", { token: TOKEN, body: { quantity: { value: 5, unit: u }, to: {} } }),
      },
      {
        route: "POST /v1/convert",
        send: (u) =>
          send(server.url, "POST", "/v1/convert", {
            token: TOKEN,
            body: { quantity: { value: 5, unit: "m" }, to: { unit: u } },
          }),
      },
      {
        route: "POST /v1/compute",
        send: (u) =>
          send(server.url, "POST", "/v1/compute", {
            token: TOKEN,
            body: { op: "mul", a: { value: 2, unit: u }, b: 3 },
          }),
      },
      {
        route: "POST /v1/datums/offsets",
        send: (u) =>
          send(server.url, "POST", "/v1/datums/offsets", {
            token: TOKEN,
            body: { from: rows.datum, to: "NGVD29", offset: { value: 0.3, unit: u } },
          }),
      },
      {
        route: "PUT /v1/tools/{name}",
        send: (u) =>
          send(server.url, "PUT", "/v1/tools/fuzz_unit", { token: TOKEN, body: { params: { x: { unit: u } } } }),
      },
      {
        route: "PUT /v1/tools/{name}",
        send: (u) =>
          send(server.url, "PUT", "/v1/tools/fuzz_unit", {
            token: TOKEN,
            body: { params: { x: {} }, returns: { unit: u } },
          }),
      },
      {
        route: "GET /v1/crossings",
        send: (u) => send(server.url, "GET", `/v1/crossings?value=1&unit=${encodeURIComponent(u)}`, { token: TOKEN }),
      },
    ];
    const positions = all.filter((p) => routes.some((r) => `${r.method} ${r.path}` === p.route));
    expect(positions.length).toBe(8);
    const units = fc.oneof(
      fc.constantFrom(...HOSTILE_UNITS),
      fc
        .tuple(
          fc.constantFrom("sqrt", "log", "exp", "abs", "import", "eval", "require"),
          fc.integer({ min: 0, max: 99 }),
          fc.constantFrom("m", "ft", "cfs", ""),
        )
        .map(([f, n, u]) => `${f}(${n}) ${u}`.trim()),
      fc
        .tuple(
          fc.integer({ min: 1, max: 9 }),
          fc.constantFrom("*", "+", "-", "/", "^"),
          fc.integer({ min: 1, max: 9 }),
          fc.constantFrom(" m", " cfs", ""),
        )
        .map(([a, op, b, u]) => `${a}${op}${b}${u}`),
      fc.stringMatching(/^xq[a-z]{3,12}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...positions), units, async (p, u) =>
        expect4xx(await p.send(u), `${p.route} with unit ${JSON.stringify(u)}`),
      ),
      { seed: SEED, numRuns: 600 },
    );
    expect(tableCounts(db)).toEqual(before);

    // In a guarded call the same strings are a stored refusal (200, ok false), never a computed value.
    for (const u of HOSTILE_UNITS) {
      const r = await send(server.url, "POST", `/v1/sessions/${rows.session}/calls`, {
        token: TOKEN,
        body: { tool: rows.tool, args: { discharge: `5 ${u}`, area: 29000 } },
      });
      record(r);
      const body = r.body as {
        ok: boolean;
        args: Record<string, unknown>;
        violations: { code: string; param: string }[];
      };
      expect([u, r.status, body.ok, body.violations.map((v) => [v.param, v.code])]).toEqual([
        u,
        200,
        false,
        [["discharge", "unit_parse_error"]],
      ]);
      expect(body.args.discharge).toBeUndefined();
    }
  }, 60_000);

  it("never answers a 5xx to arbitrary JSON bodies, query strings and path parameters on any route", async () => {
    const hostileText = fc.oneof(
      fc.constantFrom(
        "1e309",
        "-1",
        "0",
        "NaN",
        "Infinity",
        "' OR 1=1 --",
        "%00",
        "..%2f..%2fetc%2fpasswd",
        "x".repeat(5000),
        "2026-13-45",
        "\u202e",
        "null",
        "[]",
        "{}",
      ),
      fc.string({ maxLength: 60 }),
    );
    const arb = fc.record({
      route: fc.constantFrom(...routes.filter((r) => !r.public)),
      body: fc.option(fc.jsonValue({ maxDepth: 4 }), { nil: undefined }),
      query: fc.dictionary(
        fc.constantFrom(
          "limit",
          "cursor",
          "since",
          "until",
          "label",
          "tool",
          "code",
          "value",
          "unit",
          "tolerance",
          "format",
          "version",
          "session",
          "status",
          "task",
          "q",
        ),
        hostileText,
        { maxKeys: 4 },
      ),
      realIds: fc.boolean(),
      randomId: hostileText,
    });
    await fc.assert(
      fc.asyncProperty(arb, async (c) => {
        const path = fillPath(c.route, (param, p) => (c.realIds ? pathValue(rows, p, param) : c.randomId || "x"));
        const qs = new URLSearchParams(c.query).toString();
        const body = c.route.method === "GET" ? undefined : c.body;
        const r = await send(server.url, c.route.method, qs ? `${path}?${qs}` : path, { token: TOKEN, body });
        record(r);
        if (r.status >= 500 || (r.status >= 400 && !isEnvelope(r.body))) {
          throw new Error(`${c.route.method} ${path}?${qs} answered ${r.status}: ${r.text.slice(0, 300)}`);
        }
      }),
      { seed: SEED, numRuns: RANDOM_ANY },
    );
  }, 120_000);

  it("cannot be hung by a watch pattern: (a+)+$ against 'a'×40 + '!' answers at once", async (ctx) => {
    const text = `${"a".repeat(40)}!`;
    const t0 = performance.now();
    const scan = scanWatches(["(a+)+$", "(a|aa)+$", "(x+x+)+y"], text);
    expect([...scan.matched]).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(100);
    if (!has(routes, "POST", "/v1/claims") || !has(routes, "POST", "/v1/evaluations")) {
      ctx.skip("POST /v1/claims or POST /v1/evaluations is not served yet; the pure watch scan above still ran");
      return;
    }
    const claim = await send(server.url, "POST", "/v1/claims", {
      token: TOKEN,
      body: {
        id: "CLM-REDOS",
        text: "catastrophic watch",
        status: "demoted",
        reason: "ReDoS probe",
        demoted_by: "fuzz",
        watch: "(a+)+$",
      },
    });
    expect(claim.status).toBe(201);
    const evaluation = await send(server.url, "POST", "/v1/evaluations", {
      token: TOKEN,
      body: { task: { id: "redos" }, result: { output: text } },
    });
    record(evaluation);
    expect(evaluation.status).toBe(200);
    expect(evaluation.ms).toBeLessThan(2000);
  }, 30_000);

  it("is still up afterwards and logged no internal error", async () => {
    expect(server.alive()).toBe(true);
    expect((await send(server.url, "GET", "/healthz")).status).toBe(200);
    expect(server.output()).not.toMatch(/^(GET|POST|PUT|PATCH|DELETE) \S+ failed/m);
    const byStatus = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(", ");
    const parts = [...byTest].map(([name, n]) => `${n} ${name.trim()}`).join("; ");
    console.info(
      `fuzz: ${cases} requests to ${routes.length} routes (${jsonRoutes().length} with JSON bodies), seed ${SEED}; answers ${byStatus}; 0 5xx\n  by test: ${parts}`,
    );
  });
});

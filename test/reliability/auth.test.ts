// Auth on every route of the live /openapi.json: no token and a wrong token are 401; another team's token on team
// A's ids is a 404 indistinguishable from a random id's; tokens are stored hashed; the admin token rotates.
import { spawn } from "node:child_process";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ROOT,
  fakeUpstream,
  fetchDoc,
  fillPath,
  isEnvelope,
  printedAdminToken,
  resourceOf,
  routesOf,
  send,
  serve,
  tableCounts,
  withDb,
  type OpenApiDoc,
  type Reply,
  type Route,
  type Served,
} from "./harness.js";
import { pathValue, queryFor, randomRows, seedTeam, validBody, type TeamRows } from "./rows.js";

/** Routes anyone may call; every other route needs a token. Adding one here is a security decision. */
const PUBLIC = new Set(["GET /healthz"]);
/** Path parameters that name public upstream records, not a team's rows. */
const PUBLIC_RESOURCES = new Set(["sites", "stations"]);
const ORDER: Record<string, number> = { GET: 0, POST: 1, PATCH: 2, PUT: 3, DELETE: 4 };

type Issued = { id: string; token: string };

/** The strings that identify team A's rows; none may reach another team except echoed from its own request. */
function secrets(rows: TeamRows): string[] {
  return [
    rows.marker,
    rows.session,
    rows.call,
    rows.callWithoutResult,
    rows.tool,
    rows.datum,
    rows.audit,
    rows.claim,
    rows.evaluation,
  ].filter((s): s is string => typeof s === "string");
}

/** An answer with the given rows' ids, ULIDs and timestamps replaced by placeholders, for shape comparison. */
function normalise(text: string, rows: TeamRows): string {
  // Times first, so a numeric id (a crossing's) cannot match inside a date; a numeric id only as a whole number.
  let out = text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, "<time>");
  for (const [k, v] of Object.entries(rows)) {
    if (typeof v !== "string" || v.length === 0) continue;
    out = /^\d+$/.test(v) ? out.replace(new RegExp(`\\b${v}\\b`, "g"), `<${k}>`) : out.split(v).join(`<${k}>`);
  }
  return out.replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, "<ulid>");
}

describe("auth on every route", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-auth-"));
  const db = join(dir, "ledger.db");
  let server: Served;
  let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
  let doc: OpenApiDoc;
  let routes: Route[];
  let admin: string;
  let a: Issued;
  let b: Issued;
  let teamA: string;
  let rowsA: TeamRows;

  beforeAll(async () => {
    upstream = await fakeUpstream();
    server = await serve(db, upstream.env);
    admin = await printedAdminToken(server);
    doc = await fetchDoc(server.url);
    routes = routesOf(doc).sort((x, y) => (ORDER[x.method] ?? 9) - (ORDER[y.method] ?? 9));
    const team = async (name: string): Promise<[string, Issued]> => {
      const t = (await send(server.url, "POST", "/v1/admin/teams", { token: admin, body: { name } })).body as {
        id: string;
      };
      const tok = (
        await send(server.url, "POST", `/v1/admin/teams/${t.id}/tokens`, {
          token: admin,
          body: { name: `${name} token` },
        })
      ).body as Issued;
      return [t.id, tok];
    };
    [teamA, a] = await team("team-a");
    [, b] = await team("team-b");
    rowsA = await seedTeam(server.url, a.token, teamA, a.id, routes);
    const pack = routes.find((r) => r.method === "GET" && r.path === "/v1/packs/usgs-legacy/sites/{site}/reading");
    if (pack)
      expect(
        (
          await send(server.url, "GET", `/v1/packs/usgs-legacy/sites/07374000/reading?session=${rowsA.session}`, {
            token: a.token,
          })
        ).status,
      ).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await server?.stop("SIGKILL");
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const target = (route: Route, rows: TeamRows) =>
    fillPath(route, (param, p) => pathValue(rows, p, param)) + (route.method === "GET" ? queryFor(route, rows) : "");
  /** The path, query and body a walk sends for these rows, as one text to search. */
  const requestText = (route: Route, rows: TeamRows) =>
    `${target(route, rows)} ${JSON.stringify(route.bodyType ? validBody(doc, route, rows) : "")}`;

  /** Sends route with team rows filled into its path, query and body, as `token` (or none). */
  const hit = (
    route: Route,
    rows: TeamRows,
    token: string | null,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const path = target(route, rows);
    const body = route.bodyType ? validBody(doc, route, rows) : undefined;
    const raw =
      typeof body === "string" ? { body, headers: { "content-type": route.bodyType!, ...headers } } : { body, headers };
    return send(server.url, route.method, path, { token, ...raw });
  };

  it("lists no public route but /healthz", () => {
    expect(routes.filter((r) => r.public).map((r) => `${r.method} ${r.path}`)).toEqual([...PUBLIC]);
    expect(routes.length).toBeGreaterThan(20);
  });

  it("answers 401 on every route without a token, with a wrong, revoked or malformed one, and stores nothing", async () => {
    const revoked = (
      await send(server.url, "POST", `/v1/admin/teams/${teamA}/tokens`, { token: admin, body: { name: "to revoke" } })
    ).body as Issued;
    expect((await send(server.url, "DELETE", `/v1/admin/tokens/${revoked.id}`, { token: admin })).status).toBe(204);
    const before = tableCounts(db);
    const attempts: [string, string | null, Record<string, string>][] = [
      ["no token", null, {}],
      ["an unknown token", `al_${randomBytes(32).toString("base64url")}`, {}],
      ["a revoked token", revoked.token, {}],
      ["team A's token with a byte changed", a.token.slice(0, -1) + (a.token.endsWith("A") ? "B" : "A"), {}],
      ["Basic credentials", null, { authorization: `Basic ${Buffer.from(`x:${a.token}`).toString("base64")}` }],
      ["an empty Bearer", null, { authorization: "Bearer " }],
      ["a token in the query string instead", null, {}],
    ];
    let checked = 0;
    for (const route of routes.filter((r) => !r.public)) {
      for (const [what, token, headers] of attempts) {
        const r = what.includes("query string")
          ? await send(
              server.url,
              route.method,
              `${fillPath(route, (param, p) => pathValue(rowsA, p, param))}?access_token=${a.token}&token=${a.token}`,
            )
          : await hit(route, rowsA, token, headers);
        checked += 1;
        expect([
          what,
          route.method,
          route.path,
          r.status,
          (r.body as { error?: { code?: string } }).error?.code,
        ]).toEqual([what, route.method, route.path, 401, "unauthenticated"]);
      }
    }
    expect(tableCounts(db)).toEqual(before);
    console.info(`auth: ${checked} unauthenticated requests over ${routes.length - PUBLIC.size} routes, all 401`);
  }, 60_000);

  it("shows team B nothing of team A: id routes answer 404 exactly as for a random id, lists hold none of A's rows", async () => {
    const countA = () =>
      withDb(db, (s) => {
        const tables = s
          .prepare(
            "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'team_id')",
          )
          .pluck()
          .all() as string[];
        return Object.fromEntries(
          tables.map((t) => [t, s.prepare(`SELECT count(*) FROM "${t}" WHERE team_id = ?`).pluck().get(teamA)]),
        );
      });
    const before = countA();
    const leaks: string[] = [];
    let compared = 0;
    let searched = 0;
    for (const [who, token] of [
      ["team B", b.token],
      ["the admin (team default)", admin],
    ] as const) {
      for (const route of routes.filter((r) => !r.public)) {
        const name = `${who}: ${route.method} ${route.path}`;
        // The admin may use admin routes on any team (that is what they are for); team B must be refused.
        if (route.path.startsWith("/v1/admin/") && who !== "team B") continue;
        const owned = route.pathParams.some((p) => !PUBLIC_RESOURCES.has(resourceOf(route.path, p)));
        const onA = await hit(route, rowsA, token);
        expect(onA.status, `${name}: ${onA.text.slice(0, 200)}`).toBeLessThan(500);
        if (route.path.startsWith("/v1/admin/")) {
          expect([name, onA.status, (onA.body as { error?: { code?: string } }).error?.code]).toEqual([
            name,
            403,
            "forbidden",
          ]);
          continue;
        }
        const request = requestText(route, rowsA);
        if (owned || secrets(rowsA).some((s) => request.includes(s))) {
          // The request names A's rows (path, query or body): the answer must be the one random ids get.
          const randomR = randomRows();
          const onRandom = await hit(route, randomR, token);
          compared += 1;
          expect([name, onA.status, normalise(onA.text, rowsA)]).toEqual([
            name,
            onRandom.status,
            normalise(onRandom.text, randomR),
          ]);
          // A PUT, and a gateway's observe of an upstream by name, write the caller's own row under that name.
          const writesOwn = route.method === "PUT" || route.path.endsWith("/observe");
          if (owned && !writesOwn) expect([name, onA.status, isEnvelope(onA.body)]).toEqual([name, 404, true]);
        } else {
          searched += 1;
          for (const s of secrets(rowsA))
            if (onA.text.includes(s)) leaks.push(`${name} answered ${s}: ${onA.text.slice(0, 200)}`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(compared).toBeGreaterThan(10);
    console.info(
      `auth: team B and the admin sent ${compared} requests naming team A's rows (each answered as a random id is) and ${searched} others (no row of A's in any answer)`,
    );

    // A's own view is intact: nothing of A's was changed, revoked or added to by the walks.
    expect(countA()).toEqual(before);
    const mine = await send(server.url, "GET", `/v1/sessions/${rowsA.session}`, { token: a.token });
    expect([mine.status, (mine.body as { calls: number }).calls]).toEqual([200, before.calls]);
    const tool = await send(server.url, "GET", `/v1/tools/${rowsA.tool}`, { token: a.token });
    expect([
      tool.status,
      (tool.body as { version: number; description: string }).version,
      (tool.body as { description: string }).description,
    ]).toEqual([200, 1, `${rowsA.marker} tool`]);
  }, 120_000);

  it("stores tokens only as keyed digests: no clear token anywhere in the database files, no bare SHA-256", async () => {
    const clear = [admin, a.token, b.token];
    const files = [db, `${db}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f));
    for (const t of clear) for (const bytes of files) expect(bytes.includes(Buffer.from(t))).toBe(false);
    const stored = withDb(db, (s) => s.prepare("SELECT hash FROM tokens WHERE id = ?").pluck().get(a.id));
    // The key file the server created next to the database keys the digest (HMAC-SHA-256), not a bare SHA-256.
    const key = readFileSync(join(dirname(db), "token.key"), "utf8").trim();
    const id = createHmac("sha256", key).update("agent-ledger token key id").digest("hex").slice(0, 12);
    expect(stored).toBe(`hmac:${id}:${createHmac("sha256", key).update(a.token).digest("hex")}`);
    expect(stored).not.toContain(createHash("sha256").update(a.token).digest("hex"));
  });

  it("rotates the admin token with `agent-ledger admin rotate-token` while serving: the old one stops, the new one works", async () => {
    const out = await new Promise<{ code: number | null; stdout: string }>((done) => {
      const p = spawn(process.execPath, ["bin/agent-ledger.js", "admin", "rotate-token", "--db", db], {
        cwd: ROOT,
        env: { ...process.env, AGENT_LEDGER_ADMIN_TOKEN: "" },
      });
      let stdout = "";
      p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      p.on("exit", (code) => done({ code, stdout }));
    });
    expect(out.code).toBe(0);
    const fresh = /^new admin token \(shown once, keep it\): (al_[A-Za-z0-9_-]{43})\n$/.exec(out.stdout)?.[1];
    expect(fresh).toBeDefined();
    const old = await send(server.url, "GET", "/v1/sessions", { token: admin });
    expect([old.status, (old.body as { error: { code: string } }).error.code]).toEqual([401, "unauthenticated"]);
    expect((await send(server.url, "GET", "/v1/sessions", { token: fresh! })).status).toBe(200);
    expect(
      (await send(server.url, "POST", "/v1/admin/teams", { token: fresh!, body: { name: "after-rotation" } })).status,
    ).toBe(201);
    expect((await send(server.url, "GET", `/v1/sessions/${rowsA.session}`, { token: a.token })).status).toBe(200);
  }, 30_000);
});

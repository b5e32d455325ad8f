import { describe, expect, it } from "vitest";
import { DatumMismatch } from "../../src/quantity/errors.js";
import { ConflictError, NotFoundError } from "../../src/store/common/errors.js";
import { VERSION } from "../../src/version.js";
import { captureLogger, createTestApp } from "../helpers/db.js";

describe("public routes", () => {
  it("GET /healthz answers ok and the package version without a token", async () => {
    const { call } = createTestApp();
    const res = await call("GET", "/healthz", { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", version: VERSION });
  });

  it("GET /openapi.json is an OpenAPI 3.1 document with the admin paths and a bearer scheme", async () => {
    const { call } = createTestApp();
    const res = await call("GET", "/openapi.json", { token: null });
    expect(res.status).toBe(200);
    const doc = res.body as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { securitySchemes: unknown; schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths["/v1/admin/teams"]!)).toEqual(["post"]);
    expect(Object.keys(doc.paths["/v1/admin/teams/{id}/tokens"]!)).toEqual(["post"]);
    expect(Object.keys(doc.paths["/v1/admin/tokens/{token_id}"]!)).toEqual(["delete"]);
    expect(doc.components.securitySchemes).toEqual({ bearer: { type: "http", scheme: "bearer" } });
    expect(Object.keys(doc.components.schemas)).toContain("Error");
  });
});

describe("auth", () => {
  it("answers 401 unauthenticated without a token", async () => {
    const { call } = createTestApp();
    const res = await call("POST", "/v1/admin/teams", { token: null, body: { name: "x" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { code: "unauthenticated", message: "missing bearer token: send Authorization: Bearer <token>" },
    });
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("answers 401 unauthenticated for an unknown token", async () => {
    const { call } = createTestApp();
    const res = await call("POST", "/v1/admin/teams", { token: "al_wrong", body: { name: "x" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: "unauthenticated", message: "the bearer token is unknown or revoked" } });
  });

  it("answers 401 for a scheme other than Bearer", async () => {
    const { app, adminToken } = createTestApp();
    const res = await app.request("/v1/admin/teams", {
      method: "POST",
      headers: { authorization: `Basic ${adminToken}` },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
  });

  it("answers 403 forbidden when a team token calls an admin route", async () => {
    const { call, teamToken } = createTestApp();
    const res = await call("POST", "/v1/admin/teams", { token: teamToken("alpha"), body: { name: "x" } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: { code: "forbidden", message: "this route needs the admin token; the token sent is a team token" },
    });
  });

  it("answers 401 for a revoked token", async () => {
    const { call, teamToken, db } = createTestApp();
    const token = teamToken("alpha");
    const id = (db.sqlite.prepare("SELECT id FROM tokens WHERE name = 'test alpha'").get() as { id: string }).id;
    expect((await call("DELETE", `/v1/admin/tokens/${id}`)).status).toBe(204);
    expect((await call("GET", "/v1/anything", { token })).status).toBe(401);
  });
});

describe("error envelope", () => {
  it("answers an unknown route with 404 not_found", async () => {
    const { call } = createTestApp();
    const res = await call("GET", "/nowhere", { token: null });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: "not_found", message: "no route for GET /nowhere" } });
  });

  it("answers malformed JSON with 400 invalid_request", async () => {
    const { app, authHeaders } = createTestApp();
    const res = await app.request("/v1/admin/teams", { method: "POST", headers: authHeaders(), body: '{"name": ' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: "invalid_request", message: "malformed JSON in the request body: send one JSON document" },
    });
  });

  it("answers a body that is not JSON with 400 invalid_request", async () => {
    const { app, adminToken } = createTestApp();
    const res = await app.request("/v1/admin/teams", {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "text/plain" },
      body: "name=x",
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: "invalid_request", message: "the request body must be JSON: send Content-Type: application/json" },
    });
  });

  it("answers a schema failure with 400 invalid_request listing each field", async () => {
    const { call } = createTestApp();
    const res = await call("POST", "/v1/admin/teams", { body: { name: 7, extra: true } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: "invalid_request",
        message:
          'invalid request body: name: Invalid input: expected string, received number; (root): Unrecognized key: "extra"',
        details: [
          { path: "name", message: "Invalid input: expected string, received number" },
          { path: "", message: 'Unrecognized key: "extra"' },
        ],
      },
    });
  });

  it("answers a body over the limit with 413 payload_too_large", async () => {
    const { call } = createTestApp({ config: { bodyLimit: 64 } });
    const res = await call("POST", "/v1/admin/teams", { body: { name: "x".repeat(100) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: { code: "payload_too_large", message: "the request body is over the limit of 64 bytes" },
    });
  });

  it("maps thrown domain, not-found and conflict errors to 422, 404 and 409", async () => {
    const { app, call } = createTestApp();
    app.get("/v1/test/domain", () => {
      throw new DatumMismatch("NAVD88 and NGVD29 differ", { field: "stage" });
    });
    app.get("/v1/test/missing", () => {
      throw new NotFoundError('no session has id "s1"');
    });
    app.get("/v1/test/dup", () => {
      throw new ConflictError('datum "X" is already registered');
    });
    expect(await call("GET", "/v1/test/domain")).toMatchObject({
      status: 422,
      body: { error: { code: "datum_mismatch", message: "NAVD88 and NGVD29 differ", details: { field: "stage" } } },
    });
    expect(await call("GET", "/v1/test/missing")).toMatchObject({
      status: 404,
      body: { error: { code: "not_found", message: 'no session has id "s1"' } },
    });
    expect(await call("GET", "/v1/test/dup")).toMatchObject({ status: 409, body: { error: { code: "conflict" } } });
  });

  it("answers an unexpected fault with 500 internal and no stack, and logs it", async () => {
    const logger = captureLogger();
    const { app, call } = createTestApp({ logger });
    app.get("/v1/test/boom", () => {
      throw new Error("secret detail at /work/main/src/x.ts:1");
    });
    const res = await call("GET", "/v1/test/boom");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: "internal", message: "internal error" } });
    expect(logger.lines).toEqual(["GET /v1/test/boom failed"]);
  });
});

describe("admin routes", () => {
  it("creates a team, issues it a token that works, and refuses a duplicate team with 409", async () => {
    const { call } = createTestApp();
    const team = await call("POST", "/v1/admin/teams", { body: { name: "hydro" } });
    expect(team.status).toBe(201);
    const { id, name } = team.body as { id: string; name: string };
    expect(name).toBe("hydro");
    const issued = await call("POST", `/v1/admin/teams/${id}/tokens`, { body: { name: "ci" } });
    expect(issued.status).toBe(201);
    const tok = issued.body as { id: string; team_id: string; name: string; token: string };
    expect(tok).toMatchObject({ team_id: id, name: "ci" });
    expect(tok.token).toMatch(/^al_/);
    // The new team token authenticates (403 on an admin route, not 401).
    expect((await call("POST", "/v1/admin/teams", { token: tok.token, body: { name: "y" } })).status).toBe(403);
    const dup = await call("POST", "/v1/admin/teams", { body: { name: "hydro" } });
    expect(dup).toMatchObject({
      status: 409,
      body: { error: { code: "conflict", message: 'a team named "hydro" exists' } },
    });
  });

  it("issues a token with no body at all", async () => {
    const { app, adminToken, call } = createTestApp();
    const { id } = (await call("POST", "/v1/admin/teams", { body: { name: "hydro" } })).body as { id: string };
    const res = await app.request(`/v1/admin/teams/${id}/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { name: string }).name).toBe("");
  });

  it("answers 404 for a token of an unknown team and for revoking an unknown token", async () => {
    const { call } = createTestApp();
    expect(await call("POST", "/v1/admin/teams/nope/tokens", { body: {} })).toMatchObject({
      status: 404,
      body: { error: { code: "not_found", message: 'no team has id "nope"' } },
    });
    expect(await call("DELETE", "/v1/admin/tokens/nope")).toMatchObject({
      status: 404,
      body: { error: { code: "not_found", message: 'no token has id "nope"' } },
    });
  });

  it("refuses a team name with spaces with 400 naming the field", async () => {
    const { call } = createTestApp();
    const res = await call("POST", "/v1/admin/teams", { body: { name: "two words" } });
    expect(res.status).toBe(400);
    expect((res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path)).toEqual(["name"]);
  });
});

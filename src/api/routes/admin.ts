// Admin routes: create teams, issue team tokens, revoke tokens. The admin-only check is in app.ts.
import { createRoute, z } from "@hono/zod-openapi";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonBody, jsonResponse } from "../http.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const TeamCreateSchema = z
  .strictObject({
    name: z.string().regex(NAME, "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"),
  })
  .openapi("TeamCreate");

const TeamSchema = z.object({ id: z.string(), name: z.string(), created_at: z.string() }).openapi("Team");

const TokenCreateSchema = z
  .strictObject({ name: z.string().max(128, "must be at most 128 characters").optional() })
  .openapi("TokenCreate");

const IssuedTokenSchema = z
  .object({
    id: z.string(),
    team_id: z.string(),
    name: z.string(),
    token: z.string().openapi({ description: "the bearer token, shown this once only" }),
  })
  .openapi("IssuedToken");

const TeamIdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" } }),
});
const TokenIdParam = z.object({
  token_id: z
    .string()
    .min(1)
    .openapi({ param: { name: "token_id", in: "path" } }),
});

const createTeamRoute = createRoute({
  method: "post",
  path: "/v1/admin/teams",
  summary: "Create a team (admin only)",
  tags: ["admin"],
  request: { body: jsonBody(TeamCreateSchema) },
  responses: { 201: jsonResponse(TeamSchema, "the team"), ...errorResponses(400, 401, 403, 409, 413) },
});

const createTokenRoute = createRoute({
  method: "post",
  path: "/v1/admin/teams/{id}/tokens",
  summary: "Issue a bearer token for a team (admin only); the token is shown once",
  tags: ["admin"],
  request: { params: TeamIdParam, body: { ...jsonBody(TokenCreateSchema), required: false } },
  responses: {
    201: jsonResponse(IssuedTokenSchema, "the token, shown once"),
    ...errorResponses(400, 401, 403, 404, 413),
  },
});

const revokeTokenRoute = createRoute({
  method: "delete",
  path: "/v1/admin/tokens/{token_id}",
  summary: "Revoke a token (admin only)",
  tags: ["admin"],
  request: { params: TokenIdParam },
  responses: { 204: { description: "revoked" }, ...errorResponses(401, 403, 404) },
});

/** Registers POST /v1/admin/teams, POST /v1/admin/teams/{id}/tokens and DELETE /v1/admin/tokens/{token_id}. */
export function registerAdminRoutes(app: LedgerApp, deps: AppDeps): void {
  const teams = deps.store.teams;

  app.openapi(createTeamRoute, async (c) => {
    const team = await teams.create(c.req.valid("json").name);
    return c.json({ id: team.id, name: team.name, created_at: team.createdAt }, 201);
  });

  app.openapi(createTokenRoute, async (c) => {
    const issued = await teams.createToken(c.req.valid("param").id, c.req.valid("json").name ?? "");
    return c.json({ id: issued.id, team_id: issued.teamId, name: issued.name, token: issued.token }, 201);
  });

  app.openapi(revokeTokenRoute, async (c) => {
    await teams.revokeToken(c.req.valid("param").token_id);
    return c.body(null, 204);
  });
}

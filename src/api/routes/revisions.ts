// Readings and their revisions over HTTP: declare one, list and read them, and follow a crossing to the reports resting on it.
import { createRoute, z } from "@hono/zod-openapi";
import type { AppDeps, LedgerApp } from "../env.js";
import { ApiError } from "../errors.js";
import {
  decodeCursor,
  encodeCursor,
  errorResponses,
  jsonBody,
  jsonResponse,
  pageSchema,
  PageQuerySchema,
  sinceQuery,
} from "../http.js";
import { parseInstant } from "../../query-params.js";

const SideSchema = z
  .object({
    crossing_id: z.number().int().nullable(),
    session_id: z.string().nullable(),
    value: z.number(),
    unit: z.string(),
    quality: z.string().nullable(),
  })
  .openapi("RevisionSide");

const RevisionSchema = z
  .object({
    id: z.string(),
    kind: z
      .enum(["detected", "declared"])
      .openapi({ description: "found from a later reading, or declared by a person" }),
    source: z.string().nullable(),
    observed_at: z.string().nullable(),
    reason: z.string(),
    revised_by: z.string(),
    detected_at: z.string(),
    before: SideSchema,
    after: SideSchema.openapi({ description: "crossing_id and session_id are null for a declared revision" }),
    affected: z
      .array(z.object({ evaluation_id: z.string(), task: z.string().nullable(), claim_id: z.string().nullable() }))
      .openapi({ description: "released evaluations whose claims resolved to the before crossing" }),
  })
  .openapi("Revision");

const ReviseBody = z
  .strictObject({
    value: z.number().openapi({ description: "the revised magnitude" }),
    unit: z.string().min(1).max(200).openapi({ description: "its unit; it must convert to the crossing's unit" }),
    quality: z.string().min(1).max(64).optional(),
    reason: z.string().trim().min(1).max(2000),
    revised_by: z.string().trim().min(1).max(256),
  })
  .openapi("ReviseRequest");

const CrossingClaimSchema = z
  .object({
    evaluation_id: z.string(),
    task: z.string().nullable(),
    claim_id: z.string().nullable(),
    claim_text: z.string(),
    locator: z.string(),
    status: z.string(),
    run: z.number().int(),
    created_at: z.string(),
  })
  .openapi("CrossingClaim");

const CrossingParam = z.object({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, description: "a crossing id" }),
});
const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
const ListQuery = PageQuerySchema.extend({
  source: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .openapi({
      param: { name: "source", in: "query" },
      description: "only revisions of this source (usgs:07374000:00060)",
    }),
  since: sinceQuery("a date (midnight UTC) or a date-time with an offset"),
});

const reviseRoute = createRoute({
  method: "post",
  path: "/v1/crossings/{id}/revise",
  summary: "Declare a revision of a stored value that no tool will re-read",
  tags: ["revisions"],
  request: { params: CrossingParam, body: jsonBody(ReviseBody) },
  responses: {
    201: jsonResponse(RevisionSchema, "the revision"),
    ...errorResponses(400, 401, 404, 409, 413, 422),
  },
});
const listRoute = createRoute({
  method: "get",
  path: "/v1/revisions",
  summary: "Revisions of readings, newest first, each with the released evaluations it affects",
  tags: ["revisions"],
  request: { query: ListQuery },
  responses: {
    200: jsonResponse(pageSchema(RevisionSchema, "RevisionPage"), "a page of revisions"),
    ...errorResponses(400, 401),
  },
});
const getRoute = createRoute({
  method: "get",
  path: "/v1/revisions/{id}",
  summary: "One revision",
  tags: ["revisions"],
  request: { params: IdParam },
  responses: { 200: jsonResponse(RevisionSchema, "the revision"), ...errorResponses(401, 404) },
});
const claimsRoute = createRoute({
  method: "get",
  path: "/v1/crossings/{id}/claims",
  summary: "The released evaluations and claims that rest on a crossing",
  tags: ["revisions", "release gates"],
  request: { params: CrossingParam, query: PageQuerySchema },
  responses: {
    200: jsonResponse(pageSchema(CrossingClaimSchema, "CrossingClaimPage"), "the claims, oldest first"),
    ...errorResponses(400, 401, 404),
  },
});

/** Registers the revision routes and the crossing-to-claims link. */
export function registerRevisionRoutes(app: LedgerApp, deps: AppDeps): void {
  const revisions = deps.store.revisions;

  app.openapi(reviseRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const revision = await revisions.declare(c.get("teamId"), id, body);
    return c.json(revision, 201);
  });

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const before = decodeCursor(q.cursor);
    if (before !== null && before.length !== 2) {
      throw new ApiError("invalid_request", "cursor is not a revisions cursor", [
        { path: "cursor", message: "not a revisions cursor" },
      ]);
    }
    const page = await revisions.list(c.get("teamId"), {
      limit: q.limit,
      ...(q.source ? { source: q.source } : {}),
      ...(q.since ? { since: parseInstant(q.since, "since") } : {}),
      before: before ? [String(before[0]), String(before[1])] : null,
    });
    return c.json({ items: page.items, next_cursor: page.next_cursor ? encodeCursor(page.next_cursor) : null }, 200);
  });

  app.openapi(getRoute, async (c) => c.json(await revisions.get(c.get("teamId"), c.req.valid("param").id), 200));

  app.openapi(claimsRoute, async (c) => {
    const q = c.req.valid("query");
    const after = decodeCursor(q.cursor);
    if (after !== null && (after.length !== 1 || typeof after[0] !== "number")) {
      throw new ApiError("invalid_request", "cursor is not a crossing-claims cursor", [
        { path: "cursor", message: "not a crossing-claims cursor" },
      ]);
    }
    const page = await revisions.claimsOf(c.get("teamId"), c.req.valid("param").id, {
      limit: q.limit,
      after: after ? Number(after[0]) : null,
    });
    return c.json({ items: page.items, next_cursor: page.next_cursor ? encodeCursor([page.next_cursor]) : null }, 200);
  });
}

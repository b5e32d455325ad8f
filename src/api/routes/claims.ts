// The team claim ledger: add, demote, list, read with history, import and export JSON Lines.
import { createRoute, z } from "@hono/zod-openapi";
import type { AppDeps, LedgerApp } from "../env.js";
import {
  decodeCursor,
  encodeCursor,
  errorResponses,
  jsonBody,
  jsonResponse,
  pageSchema,
  PageQuerySchema,
} from "../http.js";

const NDJSON = "application/x-ndjson";
const ID = z.string().trim().min(1).max(256);
const OptionalText = z.string().max(10_000).nullable().optional();

const ClaimSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    key: z.string().nullable(),
    value: z.unknown(),
    status: z.enum(["live", "demoted", "superseded"]),
    reason: z.string().nullable(),
    demoted_by: z.string().nullable(),
    watch: z.string().nullable(),
    supersedes: z.array(z.string()),
    superseded_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Claim");
const ClaimEventSchema = z
  .object({
    kind: z.enum(["created", "demoted", "superseded", "restored"]),
    status: z.enum(["live", "demoted", "superseded"]),
    reason: z.string().nullable(),
    demoted_by: z.string().nullable(),
    watch: z.string().nullable(),
    superseded_by: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("ClaimEvent");
const ClaimWithHistorySchema = ClaimSchema.extend({ events: z.array(ClaimEventSchema) }).openapi("ClaimWithHistory");

const ClaimCreateSchema = z
  .strictObject({
    id: ID.optional(),
    text: z.string().trim().min(1).max(10_000),
    key: z.string().trim().min(1).max(256).optional(),
    value: z.unknown().optional(),
    status: z.enum(["live", "demoted"]),
    reason: OptionalText,
    demoted_by: z.string().max(1_000).nullable().optional(),
    watch: z
      .string()
      .max(2_000)
      .nullable()
      .optional()
      .openapi({ description: "RE2 syntax; backreferences and lookaround are refused" }),
    supersedes: z.union([ID, z.array(ID).max(100)]).optional(),
  })
  .openapi("ClaimCreate");
const DemoteSchema = z
  .strictObject({
    reason: z.string().trim().min(1).max(10_000),
    demoted_by: z.string().trim().min(1).max(1_000),
    watch: z
      .string()
      .max(2_000)
      .nullable()
      .optional()
      .openapi({ description: "omit to keep the current watch, null to remove it" }),
  })
  .openapi("Demotion");
const ImportReportSchema = z
  .object({
    imported: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    skipped: z.array(z.object({ line: z.number().int(), reason: z.string() })),
    warnings: z.array(z.object({ line: z.number().int(), id: z.string(), field: z.string(), reason: z.string() })),
  })
  .openapi("ClaimImportReport");

const IdParam = z.object({ id: ID.openapi({ param: { name: "id", in: "path" } }) });
const ListQuery = PageQuerySchema.extend({
  status: z
    .enum(["live", "demoted", "superseded"])
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  q: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: "q", in: "query" }, description: "substring of id, text or key, any case" }),
});

const createClaimRoute = createRoute({
  method: "post",
  path: "/v1/claims",
  summary: "Add a claim to the team ledger (live or demoted)",
  tags: ["claims"],
  request: { body: jsonBody(ClaimCreateSchema) },
  responses: { 201: jsonResponse(ClaimSchema, "the claim"), ...errorResponses(400, 401, 409, 413) },
});
const demoteRoute = createRoute({
  method: "post",
  path: "/v1/claims/{id}/demote",
  summary: "Demote a claim: a new event, the history kept",
  tags: ["claims"],
  request: { params: IdParam, body: jsonBody(DemoteSchema) },
  responses: { 200: jsonResponse(ClaimSchema, "the claim, now demoted"), ...errorResponses(400, 401, 404, 413) },
});
const listRoute = createRoute({
  method: "get",
  path: "/v1/claims",
  summary: "The ledger, oldest first",
  tags: ["claims"],
  request: { query: ListQuery },
  responses: {
    200: jsonResponse(pageSchema(ClaimSchema, "ClaimPage"), "a page of claims"),
    ...errorResponses(400, 401),
  },
});
const getRoute = createRoute({
  method: "get",
  path: "/v1/claims/{id}",
  summary: "One claim with every event of its history",
  tags: ["claims"],
  request: { params: IdParam },
  responses: { 200: jsonResponse(ClaimWithHistorySchema, "the claim"), ...errorResponses(401, 404) },
});
const importRoute = createRoute({
  method: "post",
  path: "/v1/claims/import",
  summary: "Import JSON Lines (memory/claims.jsonl); bad lines are skipped and reported",
  tags: ["claims"],
  request: {
    body: {
      required: true,
      content: { [NDJSON]: { schema: z.string().openapi({ description: "one claim object a line" }) } },
    },
  },
  responses: {
    200: jsonResponse(ImportReportSchema, "what was imported, updated, skipped and warned about"),
    ...errorResponses(400, 401, 413),
  },
});
const exportRoute = createRoute({
  method: "get",
  path: "/v1/claims/export",
  summary: "The ledger as JSON Lines, re-importable",
  tags: ["claims"],
  responses: {
    200: { description: "one claim a line, current state", content: { [NDJSON]: { schema: z.string() } } },
    ...errorResponses(401),
  },
});

/** Registers the claim ledger routes (export before `{id}`, so "export" is never read as an id). */
export function registerClaimRoutes(app: LedgerApp, deps: AppDeps): void {
  const claims = deps.store.claims;

  app.openapi(createClaimRoute, async (c) => {
    const b = c.req.valid("json");
    const supersedes = b.supersedes === undefined ? [] : Array.isArray(b.supersedes) ? b.supersedes : [b.supersedes];
    const row = await claims.create(c.get("teamId"), { ...b, value: b.value ?? null, supersedes });
    return c.json(row, 201);
  });

  app.openapi(demoteRoute, async (c) =>
    c.json(await claims.demote(c.get("teamId"), c.req.valid("param").id, c.req.valid("json")), 200),
  );

  // A text answer with no JSON alternative: documented through the registry, served by a plain handler.
  app.openAPIRegistry.registerPath(exportRoute);
  app.get(exportRoute.path, async (c) =>
    c.body(await claims.exportText(c.get("teamId")), 200, { "content-type": `${NDJSON}; charset=utf-8` }),
  );

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const after = decodeCursor(q.cursor);
    const page = await claims.list(c.get("teamId"), {
      limit: q.limit,
      ...(q.status ? { status: q.status } : {}),
      ...(q.q ? { q: q.q } : {}),
      after: after && after.length === 2 ? [String(after[0]), String(after[1])] : null,
    });
    return c.json({ items: page.items, next_cursor: page.next_cursor ? encodeCursor(page.next_cursor) : null }, 200);
  });

  app.openapi(getRoute, async (c) => {
    const teamId = c.get("teamId");
    const id = c.req.valid("param").id;
    const claim = await claims.get(teamId, id);
    return c.json({ ...claim, events: await claims.events(teamId, id) }, 200);
  });

  // The body is JSON Lines, read as text whatever its content type (curl --data-binary sends a form type).
  app.openapi(importRoute, async (c) => c.json(await claims.importText(c.get("teamId"), await c.req.text()), 200));
}

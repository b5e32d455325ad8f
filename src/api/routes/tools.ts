// Tool declarations: PUT a declaration (a changed one is a new version), read them, export provider schemas.
import { createRoute, z } from "@hono/zod-openapi";
import { declarationToJSON, TOOL_NAME, ToolDeclarationSchema, type ToolDeclaration } from "../../guard/declaration.js";
import { FLAVOURS, toolDefinition } from "../../guard/schema.js";
import { NotFoundError } from "../../store/common/errors.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { decodeCursor, errorResponses, jsonBody, jsonResponse, PageQuerySchema, pageSchema, toPage } from "../http.js";
import type { ToolRow } from "../../store/model.js";

const ToolSchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    description: z.string(),
    params: z.record(z.string(), z.unknown()),
    returns: z.unknown(),
    created_at: z.string(),
  })
  .openapi("Tool");
const NameParam = z.object({
  name: z
    .string()
    .regex(TOOL_NAME, "tool names match [A-Za-z0-9_.:-]{1,128}")
    .openapi({ param: { name: "name", in: "path" } }),
});

const putRoute = createRoute({
  method: "put",
  path: "/v1/tools/{name}",
  summary: "Declare a tool; a changed declaration becomes a new version",
  tags: ["tools"],
  request: { params: NameParam, body: jsonBody(ToolDeclarationSchema) },
  responses: {
    200: jsonResponse(ToolSchema, "unchanged: the current version"),
    201: jsonResponse(ToolSchema, "a new version"),
    ...errorResponses(400, 401, 413),
  },
});
const listRoute = createRoute({
  method: "get",
  path: "/v1/tools",
  summary: "The latest declaration of every tool",
  tags: ["tools"],
  request: { query: PageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(ToolSchema, "ToolPage"), "tools by name"), ...errorResponses(400, 401) },
});
const getRoute = createRoute({
  method: "get",
  path: "/v1/tools/{name}",
  summary: "A tool's latest declaration (or ?version=N)",
  tags: ["tools"],
  request: { params: NameParam, query: z.object({ version: z.coerce.number().int().min(1).optional() }) },
  responses: { 200: jsonResponse(ToolSchema, "the declaration"), ...errorResponses(400, 401, 404) },
});
const schemaRoute = createRoute({
  method: "get",
  path: "/v1/tools/{name}/schema",
  summary: "The tool definition for MCP, OpenAI or Anthropic, with x-unit, x-datum, x-crs and x-tz",
  tags: ["tools"],
  request: { params: NameParam, query: z.object({ format: z.enum(FLAVOURS as [string, ...string[]]).default("mcp") }) },
  responses: {
    200: jsonResponse(z.record(z.string(), z.unknown()), "the definition"),
    ...errorResponses(400, 401, 404),
  },
});

/** A declaration as the API answers it. */
export function toolJson(row: ToolRow, decl: ToolDeclaration) {
  const returns =
    decl.returns === null
      ? null
      : decl.returns.kind === "single"
        ? declarationToJSON(decl.returns.decl)
        : Object.fromEntries(Object.entries(decl.returns.keys).map(([k, d]) => [k, declarationToJSON(d)]));
  return {
    name: row.name,
    version: row.version,
    description: decl.description,
    params: Object.fromEntries(Object.entries(decl.params).map(([p, d]) => [p, declarationToJSON(d)])),
    returns,
    created_at: row.createdAt,
  };
}

/** Registers the tool declaration routes. */
export function registerToolRoutes(app: LedgerApp, deps: AppDeps): void {
  const tools = deps.store.tools;
  const find = async (teamId: string, name: string, version?: number) => {
    const found = await tools.get(teamId, name, version);
    if (!found)
      throw new NotFoundError(
        version
          ? `no version ${version} of tool '${name}'`
          : `no tool named '${name}'; declare it with PUT /v1/tools/${name}`,
      );
    return found;
  };

  app.openapi(putRoute, async (c) => {
    const { row, declaration, created } = await tools.put(
      c.get("teamId"),
      c.req.valid("param").name,
      c.req.valid("json"),
    );
    const body = toolJson(row, declaration);
    return created ? c.json(body, 201) : c.json(body, 200);
  });

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const after = decodeCursor(q.cursor)?.[0];
    const rows = await tools.list(c.get("teamId"), {
      after: typeof after === "string" ? after : "",
      limit: q.limit + 1,
    });
    const page = toPage(rows, q.limit, (t) => [t.row.name]);
    return c.json({ items: page.items.map((t) => toolJson(t.row, t.declaration)), next_cursor: page.next_cursor }, 200);
  });

  app.openapi(getRoute, async (c) => {
    const { row, declaration } = await find(c.get("teamId"), c.req.valid("param").name, c.req.valid("query").version);
    return c.json(toolJson(row, declaration), 200);
  });

  app.openapi(schemaRoute, async (c) => {
    const { declaration } = await find(c.get("teamId"), c.req.valid("param").name);
    return c.json(toolDefinition(declaration, c.req.valid("query").format as (typeof FLAVOURS)[number]), 200);
  });
}

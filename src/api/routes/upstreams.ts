// The gateway's upstreams over HTTP: their pinned tool definitions and drifts, and approval of the drifted ones.
import { createRoute, z } from "@hono/zod-openapi";
import { UPSTREAM_NAME } from "../../gateway/names.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonBody, jsonResponse } from "../http.js";

const DefinitionSchema = z
  .record(z.string(), z.unknown())
  .openapi("ToolDefinition", { description: "name, description, inputSchema, outputSchema and annotations as listed" });

const DriftSchema = z
  .object({
    tool: z.string(),
    kind: z.enum(["changed", "removed", "added"]),
    before: DefinitionSchema.nullable().openapi({ description: "the pinned definition; null for an added tool" }),
    after: DefinitionSchema.nullable().openapi({ description: "the listed definition; null for a removed tool" }),
    detected_at: z.string(),
    approved_at: z.string().nullable(),
  })
  .openapi("Drift");

const UpstreamSchema = z
  .object({
    name: z.string(),
    tools: z.array(
      z.object({
        name: z.string(),
        digest: z.string().openapi({ description: "SHA-256 (lowercase hex) of the definition's RFC 8785 JSON" }),
        pinned_at: z.string(),
      }),
    ),
    drifts: z.array(DriftSchema).openapi({ description: "oldest first, approved ones included" }),
  })
  .openapi("Upstream");

const NameParam = z.object({
  name: z
    .string()
    .regex(UPSTREAM_NAME, "upstream names take letters, digits, - and single _ (at most 64)")
    .openapi({ param: { name: "name", in: "path" } }),
});

const ApproveBody = z
  .strictObject({ tool: z.string().min(1).max(128).optional().openapi({ description: "one tool; all when absent" }) })
  .openapi("ApproveRequest");

const listRoute = createRoute({
  method: "get",
  path: "/v1/upstreams",
  summary: "The gateway's upstreams: pinned tool definitions and their drifts",
  tags: ["gateway"],
  responses: {
    200: jsonResponse(z.object({ items: z.array(UpstreamSchema) }), "upstreams by name"),
    ...errorResponses(401),
  },
});
const approveRoute = createRoute({
  method: "post",
  path: "/v1/upstreams/{name}/approve",
  summary: "Approve the current definitions of an upstream's drifted tools (or one tool)",
  tags: ["gateway"],
  request: { params: NameParam, body: jsonBody(ApproveBody) },
  responses: {
    200: jsonResponse(
      z.object({ upstream: z.string(), approved: z.array(DriftSchema) }),
      "the drifts approved now (none when nothing waited)",
    ),
    ...errorResponses(400, 401, 404),
  },
});

/** Registers GET /v1/upstreams and POST /v1/upstreams/{name}/approve where the store keeps upstreams. */
export function registerUpstreamRoutes(app: LedgerApp, deps: AppDeps): void {
  const upstreams = deps.store.upstreams;
  if (!upstreams) return;

  app.openapi(listRoute, async (c) => c.json({ items: await upstreams.list(c.get("teamId")) }, 200));

  app.openapi(approveRoute, async (c) => {
    const { tool } = c.req.valid("json");
    return c.json(await upstreams.approve(c.get("teamId"), c.req.valid("param").name, tool), 200);
  });
}

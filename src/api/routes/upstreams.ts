// The gateway's upstreams over HTTP: their pinned tool definitions and drifts, and approval of the drifted ones.
import { createRoute, z } from "@hono/zod-openapi";
import { UPSTREAM_NAME } from "../../gateway/names.js";
import { definitionOf } from "../../gateway/pins.js";
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

const ObserveBody = z
  .strictObject({
    pin: z.enum(["warn", "block", "off"]).default("warn"),
    tools: z
      .array(z.looseObject({ name: z.string().min(1).max(128) }))
      .max(10_000)
      .openapi({ description: "the upstream's tools/list answer (its `tools` array); only the pinned fields count" }),
  })
  .openapi("ObserveRequest");

const CheckSchema = z
  .object({
    newPins: z.array(
      z.object({ tool: z.string(), definition: DefinitionSchema, digest: z.string(), pinned_at: z.string() }),
    ),
    newDrifts: z.array(DriftSchema),
    served: z.array(z.string()),
    blocked: z.array(z.object({ tool: z.string(), message: z.string() })),
    drifted: z.array(z.string()),
    digests: z.record(z.string(), z.string()),
  })
  .openapi("PinCheck");

const observeRoute = createRoute({
  method: "post",
  path: "/v1/upstreams/{name}/observe",
  summary: "Check an upstream's tools/list against its pins (a gateway recording into this service calls it)",
  tags: ["gateway"],
  request: { params: NameParam, body: jsonBody(ObserveBody) },
  responses: {
    200: jsonResponse(CheckSchema, "what was pinned or drifted now, what is served, what blocked, each tool's digest"),
    ...errorResponses(400, 401, 413),
  },
});

/** Registers GET /v1/upstreams, POST /v1/upstreams/{name}/approve and .../observe. */
export function registerUpstreamRoutes(app: LedgerApp, deps: AppDeps): void {
  const upstreams = deps.store.upstreams;

  app.openapi(listRoute, async (c) => c.json({ items: await upstreams.list(c.get("teamId")) }, 200));

  app.openapi(approveRoute, async (c) => {
    const { tool } = c.req.valid("json");
    return c.json(await upstreams.approve(c.get("teamId"), c.req.valid("param").name, tool), 200);
  });

  app.openapi(observeRoute, async (c) => {
    const { pin, tools } = c.req.valid("json");
    const listed = tools.map((t) => definitionOf(t));
    return c.json(await upstreams.observe(c.get("teamId"), c.req.valid("param").name, pin, listed), 200);
  });
}

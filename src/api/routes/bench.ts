// Evaluation-harness runs: store a graded run beside its session, list stored runs by label (for `bench run
// --ledger-url` and `bench report --ledger-url`).
import { createRoute, z } from "@hono/zod-openapi";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonBody, jsonResponse } from "../http.js";
import { parseLabel } from "../../query-params.js";

const Count = z.number().int().min(0);
const BenchRunBody = z
  .strictObject({
    batch: z.string().min(1).max(256),
    suite: z.string().min(1).max(64),
    task: z.string().min(1).max(128),
    condition: z.string().min(1).max(64),
    model: z.string().min(1).max(256),
    replicate: Count,
    recorded_id: z.string().max(256).nullable(),
    outcome: z.enum(["correct", "wrong", "blocked", "error"]),
    stated: z.string().max(10_000).nullable(),
    detail: z.string().max(10_000),
    violations: Count,
    audit_unsourced: Count,
    audit_mislabelled: Count,
    audit_flagged: z.boolean(),
    undetected: z.boolean(),
    silent_error: z.boolean(),
    tool_calls: Count,
    turns: Count,
    prompt_tokens: Count.nullable(),
    completion_tokens: Count.nullable(),
    derived: z.record(z.string(), z.unknown()),
    answer: z.string().max(200_000).nullable(),
    error: z.string().max(10_000).nullable(),
    created_at: z.string().datetime(),
  })
  .openapi("BenchRunInput");
const BenchRunSchema = BenchRunBody.extend({ session_id: z.string() }).openapi("BenchRun");
const SessionParam = z.object({ session_id: z.string().openapi({ param: { name: "session_id", in: "path" } }) });

const putRoute = createRoute({
  method: "put",
  path: "/v1/bench/runs/{session_id}",
  summary: "Store a graded harness run beside its session (once per session)",
  tags: ["bench"],
  request: { params: SessionParam, body: jsonBody(BenchRunBody) },
  responses: { 201: jsonResponse(BenchRunSchema, "stored"), ...errorResponses(400, 401, 404, 409, 413) },
});
const listRoute = createRoute({
  method: "get",
  path: "/v1/bench/runs",
  summary: "Stored harness runs whose sessions carry every label (and of one batch), oldest first",
  tags: ["bench"],
  request: {
    query: z.object({
      label: z
        .union([z.string(), z.array(z.string())])
        .optional()
        .openapi({
          param: { name: "label", in: "query" },
          description: "key:value; repeat it to require several labels",
        }),
      batch: z.string().optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ items: z.array(BenchRunSchema) }), "the runs"),
    ...errorResponses(400, 401),
  },
});

/** Registers PUT /v1/bench/runs/{session_id} and GET /v1/bench/runs. */
export function registerBenchRoutes(app: LedgerApp, deps: AppDeps): void {
  app.openapi(putRoute, async (c) => {
    const run = { ...c.req.valid("json"), session_id: c.req.valid("param").session_id };
    await deps.store.benchRuns.insert(c.get("teamId"), run);
    return c.json(run, 201);
  });
  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const labels =
      q.label === undefined ? [] : (Array.isArray(q.label) ? q.label : [q.label]).map((l) => parseLabel(l));
    return c.json({ items: await deps.store.benchRuns.list(c.get("teamId"), { labels, batch: q.batch }) }, 200);
  });
}

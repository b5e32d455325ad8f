// Release gates over HTTP: evaluate a result against the team's ledger and earlier runs, list and read stored reports.
import { checkClaims, claimCount } from "../../limits.js";
import { createRoute, z } from "@hono/zod-openapi";
import { notAResult } from "../../gates/contracts.js";
import { GATE_STATUSES } from "../../gates/outcome-kit.js";
import { renderMarkdown } from "../../gates/report.js";
import { SettingsError } from "../../gates/settings.js";
import { nowMs, traceParentOf } from "../../telemetry/telemetry.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { ApiError } from "../errors.js";
import { LARGE_COUNT, nextTurn } from "../turn.js";
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
import type { Evaluation } from "../../store/model.js";
import { parseInstant } from "../../query-params.js";

const FindingSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    severity: z.enum(["error", "warning", "info"]),
    claim_id: z.string().optional(),
    run: z.number().int().optional(),
  })
  .openapi("Finding");
const GateSchema = z
  .object({
    status: z.enum(GATE_STATUSES).openapi({
      description:
        "not_comparable: stability was measured (several runs, or earlier runs of the task) but the result has no " +
        "keyed claims to compare; it blocks, as blocked does.",
    }),
    score: z.number().nullable(),
    findings: z.array(FindingSchema),
  })
  .openapi("GateOutcome");
const SourceSchema = z
  .object({
    claim_id: z.string().nullable(),
    locator: z.string(),
    status: z.enum(["resolved", "not_found", "value_mismatch", "unit_mislabelled", "revised", "unchecked"]),
    crossing_id: z.number().int().nullable(),
    session_id: z.string().nullable(),
    seq: z.number().int().nullable(),
    tool: z.string().nullable(),
    value: z.number().nullable(),
    unit: z.string().nullable(),
    quality: z.string().nullable(),
    observed_at: z.string().nullable(),
    match: z.enum(["restated", "derived"]).nullable(),
    run: z.number().int().optional(),
  })
  .openapi("EvaluationSource");
const EvaluationSchema = z
  .object({
    id: z.string(),
    task: z.string().nullable(),
    created_at: z.string(),
    status: z.enum(["released", "blocked"]),
    blocked_by: z
      .array(z.string())
      .openapi({ description: "gate names in report order; also overall_score or pre_run" }),
    overall_score: z.number(),
    gates: z.record(z.string(), GateSchema),
    findings: z.array(FindingSchema),
    sources: z.array(SourceSchema).openapi({
      description: "each fact's ledger locators and the crossings they rest on (empty when none cites the ledger)",
    }),
  })
  .openapi("Evaluation");
const SummarySchema = EvaluationSchema.pick({
  id: true,
  task: true,
  status: true,
  blocked_by: true,
  overall_score: true,
  created_at: true,
}).openapi("EvaluationSummary");

const EvaluationRequestSchema = z
  .strictObject({
    task: z
      .unknown()
      .optional()
      .openapi({ description: "the task: id, objective, required_deliverables, required_keys, metadata" }),
    result: z.unknown().optional().openapi({ description: "one result (output, claims, comparisons, ...)" }),
    runs: z
      .array(z.unknown())
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "repeated results of one task, compared for stability" }),
    settings: z.unknown().optional().openapi({ description: "thresholds.toml as JSON, merged over the defaults" }),
  })
  .superRefine((b, ctx) => {
    if ((b.result === undefined) === (b.runs === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [b.result === undefined ? "result" : "runs"],
        message: "send exactly one of result and runs",
      });
      return;
    }
    const problem = notAResult(b.result === undefined ? { runs: b.runs } : { result: b.result });
    if (problem !== null)
      ctx.addIssue({ code: "custom", path: [b.result === undefined ? "runs" : "result"], message: problem });
  })
  .openapi("EvaluationRequest");

const ListQuery = PageQuerySchema.extend({
  task: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .openapi({ param: { name: "task", in: "query" } }),
  status: z
    .enum(["released", "blocked"])
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  since: sinceQuery("a date (midnight UTC) or a date-time with an offset, as on every since filter"),
});
const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});

const evaluateRoute = createRoute({
  method: "post",
  path: "/v1/evaluations",
  summary: "Gate a result (or repeated runs) and record the evaluation",
  tags: ["release gates"],
  request: { body: jsonBody(EvaluationRequestSchema) },
  responses: {
    200: jsonResponse(EvaluationSchema, "the decision; a blocked release is an outcome, not an HTTP error"),
    ...errorResponses(400, 401, 413),
  },
});
const listRoute = createRoute({
  method: "get",
  path: "/v1/evaluations",
  summary: "Past evaluations, newest first",
  tags: ["release gates"],
  request: { query: ListQuery },
  responses: {
    200: jsonResponse(pageSchema(SummarySchema, "EvaluationPage"), "a page of evaluations"),
    ...errorResponses(400, 401),
  },
});
const getRoute = createRoute({
  method: "get",
  path: "/v1/evaluations/{id}",
  summary: "A stored report: JSON, or Markdown with Accept: text/markdown",
  tags: ["release gates"],
  request: { params: IdParam },
  responses: {
    200: {
      description: "the stored report",
      content: { "application/json": { schema: EvaluationSchema }, "text/markdown": { schema: z.string() } },
    },
    ...errorResponses(401, 404),
  },
});

/** Settings errors as the 400 envelope, one detail per offending key. */
function settingsFailure(e: SettingsError): ApiError {
  const details = e.issues.map((i) => ({ path: i.key ? `settings.${i.key}` : "settings", message: i.message }));
  return new ApiError("invalid_request", `invalid settings: ${e.message}`, details);
}

const wantsMarkdown = (accept: string | undefined): boolean =>
  accept !== undefined && /(^|,)\s*text\/markdown\b/i.test(accept);

/** Registers POST/GET /v1/evaluations and GET /v1/evaluations/{id}. */
export function registerEvaluationRoutes(app: LedgerApp, deps: AppDeps): void {
  const runs = deps.store.evaluations;

  app.openapi(evaluateRoute, async (c) => {
    const startMs = deps.telemetry.enabled ? nowMs() : 0;
    let evaluation: Evaluation;
    let large = false;
    try {
      const input = c.req.valid("json");
      checkClaims(input, deps.config.limits);
      // Validating was one phase; deciding and recording (one transaction) the next, and answering the last.
      large = claimCount(input) >= LARGE_COUNT;
      if (large) await nextTurn();
      ({ evaluation } = await runs.evaluate(c.get("teamId"), input));
    } catch (e) {
      if (e instanceof SettingsError) throw settingsFailure(e);
      throw e;
    }
    if (deps.telemetry.enabled) {
      deps.telemetry.evaluation({
        evaluationId: evaluation.id,
        task: evaluation.task,
        status: evaluation.status,
        blockedBy: evaluation.blocked_by,
        startMs,
        endMs: nowMs(),
        parent: traceParentOf((name) => c.req.header(name)),
      });
    }
    if (large) await nextTurn();
    return c.json(evaluation, 200);
  });

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const before = decodeCursor(q.cursor);
    const page = await runs.list(c.get("teamId"), {
      limit: q.limit,
      ...(q.task ? { task: q.task } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.since ? { since: parseInstant(q.since, "since") } : {}),
      before: before && before.length === 2 ? [String(before[0]), String(before[1])] : null,
    });
    return c.json({ items: page.items, next_cursor: page.next_cursor ? encodeCursor(page.next_cursor) : null }, 200);
  });

  app.openapi(getRoute, async (c) => {
    const { input: _input, settings, ...report } = await runs.get(c.get("teamId"), c.req.valid("param").id);
    if (wantsMarkdown(c.req.header("accept"))) {
      const title = `${report.task ?? "evaluation"} (${report.id}, ${report.created_at})`;
      const markdown = renderMarkdown(report, {
        title,
        conjunctive: settings?.global.conjunctive ?? true,
        minScore: settings?.global.min_score ?? 80,
      });
      return c.body(markdown, 200, { "content-type": "text/markdown; charset=utf-8" });
    }
    return c.json(report, 200);
  });
}

// Sessions and guarded calls: open a session, check a call, label its result, read the calls and the report.
import { checkAnswerSize, checkCrossings, jsonBytes } from "../../limits.js";
import { createRoute, z } from "@hono/zod-openapi";
import { nowMs, traceParentOf } from "../../telemetry/telemetry.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { decodeCursor, errorResponses, jsonBody, jsonResponse, PageQuerySchema, toPage } from "../http.js";
import { strictObject, ViolationSchema } from "../schemas.js";
import type { CallRow, CrossingRow, SessionRow } from "../../store/model.js";

const LabelsSchema = z
  .record(z.string().min(1).max(64), z.string().max(256))
  .refine((o) => Object.keys(o).length <= 32, "at most 32 labels");
const SessionCreateSchema = strictObject({
  context: z.string().max(100_000).optional(),
  enforcement: z.enum(["enforce", "warn"]).optional(),
  labels: LabelsSchema.optional(),
}).openapi("SessionCreate");
const SessionSchema = z
  .object({
    id: z.string(),
    context: z.string(),
    enforcement: z.enum(["enforce", "warn"]),
    labels: z.record(z.string(), z.string()),
    calls: z.number().int(),
    violations: z.number().int(),
    would_block: z.number().int(),
    created_at: z.string(),
  })
  .openapi("Session");
/**
 * The codes a client may store a call as refused with: only the gateway's own refusals made before the upstream (a
 * rate limit, a tool blocked by its pin). Every other code is the guard's verdict, which the service decides itself,
 * so a client cannot make a call look refused for a reason the ledger did not see.
 */
export const GATEWAY_REFUSAL_CODES = ["tool_blocked", "rate_limited"] as const;
const GatewayRefusalSchema = z
  .strictObject({
    code: z.enum(GATEWAY_REFUSAL_CODES),
    message: z.string().min(1).max(2000),
    repair: z.string().min(1).max(4000),
  })
  .openapi("GatewayRefusal", {
    description:
      "set by a gateway that refused the call before the upstream: the call is stored as refused with this violation " +
      "(param null) instead of being checked; the code is tool_blocked or rate_limited",
  });
const CallCreateSchema = z
  .strictObject({
    tool: z.string().min(1).max(128),
    args: z.record(z.string().max(128), z.unknown()),
    tool_digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "expected the lowercase hex SHA-256 of the upstream tool definition")
      .optional()
      .openapi({ description: "set by a gateway: the digest of the upstream definition the call is checked against" }),
    refusal: GatewayRefusalSchema.optional(),
  })
  .openapi("CallCreate");
const CallAnswerSchema = z
  .object({
    call_id: z.string(),
    seq: z.number().int(),
    ok: z.boolean(),
    guarded: z.boolean(),
    would_block: z.boolean(),
    tool_version: z.number().int().nullable(),
    outcome: z.enum(["ok", "converted", "refused", "warned"]),
    args: z.record(z.string(), z.unknown()),
    violations: z.array(ViolationSchema),
  })
  .openapi("CallAnswer");
const ResultCreateSchema = strictObject({ result: z.unknown() }).openapi("ResultCreate");
const ResultAnswerSchema = z
  .object({ ok: z.boolean(), would_block: z.boolean(), result: z.unknown(), violations: z.array(ViolationSchema) })
  .openapi("ResultAnswer");
const ReportSchema = z
  .object({
    calls: z.number().int(),
    would_block: z.number().int(),
    by_code: z.record(z.string(), z.number()),
    text: z.string(),
  })
  .openapi("Report");

const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
const CallParam = IdParam.extend({
  call_id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "call_id", in: "path" } }),
});

const createRoute_ = createRoute({
  method: "post",
  path: "/v1/sessions",
  summary: "Open a session",
  tags: ["sessions"],
  request: { body: jsonBody(SessionCreateSchema) },
  responses: { 201: jsonResponse(SessionSchema, "the session"), ...errorResponses(400, 401, 413) },
});
const getRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{id}",
  summary: "A session with its call and violation counts",
  tags: ["sessions"],
  request: { params: IdParam },
  responses: { 200: jsonResponse(SessionSchema, "the session"), ...errorResponses(401, 404) },
});
const callRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/calls",
  summary: "Check one tool call: convert what is compatible, refuse what is not, store every crossing",
  tags: ["sessions"],
  request: { params: IdParam, body: jsonBody(CallCreateSchema) },
  responses: {
    200: jsonResponse(CallAnswerSchema, "the verdict (a refusal is ok: false, not an HTTP error)"),
    ...errorResponses(400, 401, 404, 413),
  },
});
const resultRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/calls/{call_id}/result",
  summary: "Label and store a call's result",
  tags: ["sessions"],
  request: { params: CallParam, body: jsonBody(ResultCreateSchema) },
  responses: {
    200: jsonResponse(ResultAnswerSchema, "the labelled result"),
    ...errorResponses(400, 401, 404, 409, 413),
  },
});
const listCallsRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/calls",
  summary: "The calls of a session in order, each with its crossings (paginated)",
  tags: ["sessions"],
  request: { params: IdParam, query: PageQuerySchema },
  responses: {
    200: jsonResponse(z.object({ items: z.array(z.unknown()), next_cursor: z.string().nullable() }), "calls in order"),
    ...errorResponses(400, 401, 404),
  },
});
const reportRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/report",
  summary: "How many calls were (or would have been) blocked, by code",
  tags: ["sessions"],
  request: { params: IdParam },
  responses: { 200: jsonResponse(ReportSchema, "the report"), ...errorResponses(401, 404) },
});

/** A session as the API answers it. */
export function sessionJson(s: SessionRow) {
  return {
    id: s.id,
    context: s.context,
    enforcement: s.enforcement,
    labels: s.labels,
    calls: s.callCount,
    violations: s.violationCount,
    would_block: s.blockedCount,
    created_at: s.createdAt,
  };
}

/** A crossing as the API answers it: the raw value as sent, and its columns. */
export function crossingJson(x: CrossingRow) {
  return {
    id: x.id,
    session_id: x.sessionId,
    call_id: x.callId,
    seq: x.seq,
    tool: x.tool,
    direction: x.direction,
    param: x.param,
    raw: JSON.parse(x.raw) as unknown,
    value: x.value,
    unit: x.unit,
    value_si: x.valueSi,
    dimension: x.dimension,
    is_series: x.isSeries,
    datum: x.datum,
    crs: x.crs,
    tz: x.tz,
    quality: x.quality,
    source: x.source,
    observed_at: x.observedAt,
    outcome: x.outcome,
    violation: x.violation,
    created_at: x.createdAt,
  };
}

/** A call as the API answers it, with its crossings. */
export function callJson(c: CallRow, crossings: CrossingRow[]) {
  return {
    call_id: c.id,
    seq: c.seq,
    tool: c.tool,
    tool_version: c.toolVersion,
    guarded: c.guarded,
    args: c.argsRaw,
    ok: c.ok,
    violations: c.violations,
    result: c.resultRaw,
    result_ok: c.resultOk,
    result_violations: c.resultViolations,
    created_at: c.createdAt,
    result_at: c.resultAt,
    tool_digest: c.toolDigest,
    crossings: crossings.map(crossingJson),
  };
}

/** Registers the session and guarded-call routes. */
export function registerSessionRoutes(app: LedgerApp, deps: AppDeps): void {
  const { sessions, calls, crossings } = deps.store;

  app.openapi(createRoute_, async (c) =>
    c.json(sessionJson(await sessions.create(c.get("teamId"), c.req.valid("json"))), 201),
  );

  app.openapi(getRoute, async (c) =>
    c.json(sessionJson(await sessions.get(c.get("teamId"), c.req.valid("param").id)), 200),
  );

  app.openapi(callRoute, async (c) => {
    const { tool, args, tool_digest: toolDigest, refusal } = c.req.valid("json");
    const sessionId = c.req.valid("param").id;
    const startMs = deps.telemetry.enabled ? nowMs() : 0;
    checkCrossings(args, deps.config.limits, "arguments");
    const answer = await calls.call(c.get("teamId"), sessionId, tool, args, {
      toolDigest,
      refusal: refusal ? { ...refusal, param: null } : undefined,
    });
    if (deps.telemetry.enabled) {
      deps.telemetry.toolCall({
        tool,
        callId: answer.call_id,
        sessionId,
        outcome: answer.outcome,
        violationCodes: answer.violations.map((v) => v.code),
        startMs,
        endMs: nowMs(),
        parent: traceParentOf((name) => c.req.header(name)),
      });
    }
    return c.json(answer, 200);
  });

  app.openapi(resultRoute, async (c) => {
    const { id, call_id } = c.req.valid("param");
    const { result } = c.req.valid("json");
    checkCrossings(result, deps.config.limits, "result");
    return c.json(await calls.result(c.get("teamId"), id, call_id, result), 200);
  });

  app.openapi(listCallsRoute, async (c) => {
    const teamId = c.get("teamId");
    const id = c.req.valid("param").id;
    const q = c.req.valid("query");
    const after = Number(decodeCursor(q.cursor)?.[0] ?? 0);
    const page = toPage(await calls.list(teamId, id, { afterSeq: after, limit: q.limit + 1 }), q.limit, (call) => [
      call.seq,
    ]);
    const last = page.items[page.items.length - 1];
    const rows = last ? await crossings.ofSession(teamId, id, { afterSeq: after, uptoSeq: last.seq }) : [];
    const byCall = new Map<string, CrossingRow[]>();
    for (const x of rows) byCall.get(x.callId)?.push(x) ?? byCall.set(x.callId, [x]);
    const answer = {
      items: page.items.map((call) => callJson(call, byCall.get(call.id) ?? [])),
      next_cursor: page.next_cursor,
    };
    checkAnswerSize(jsonBytes(answer), deps.config.limits, "ask for fewer calls with a smaller limit");
    return c.json(answer, 200);
  });

  app.openapi(reportRoute, async (c) => c.json(await sessions.report(c.get("teamId"), c.req.valid("param").id), 200));
}

// History: past sessions by label, tool, code and time; where a magnitude crossed before; manifests, replay and answer audits.
import { checkAnswerSize, jsonBytes } from "../../limits.js";
import { createRoute, z } from "@hono/zod-openapi";
import { ManifestSchema } from "../../provenance/manifest.js";
import { replayManifest } from "../../provenance/replay.js";
import { ApiError } from "../errors.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { decodeCursor, errorResponses, jsonBody, jsonResponse, PageQuerySchema, pageSchema, toPage } from "../http.js";
import { strictObject } from "../schemas.js";
import { crossingJson, sessionJson } from "./sessions.js";
import { parseInstant, parseLabel } from "../../query-params.js";

const q = (name: string, description: string) => ({ param: { name, in: "query" as const }, description });

const SessionListQuery = PageQuerySchema.extend({
  label: z
    .union([z.string().max(400), z.array(z.string().max(400)).max(16)])
    .optional()
    .openapi(q("label", "key:value; repeat it to require several labels")),
  tool: z.string().min(1).max(128).optional().openapi(q("tool", "sessions that called this tool")),
  code: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi(q("code", "sessions with a value refused or flagged with this violation code")),
  since: z
    .string()
    .max(64)
    .optional()
    .openapi(q("since", "created at or after: a date (midnight UTC) or a date-time with an offset")),
  until: z.string().max(64).optional().openapi(q("until", "created before (exclusive)")),
});

const CrossingQuery = PageQuerySchema.extend({
  // Read by hand: z.coerce would read an empty `value=` as 0 and search for zero.
  value: z
    .preprocess(
      (v) => (typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN),
      z.number({ error: "value must be a finite number, such as 1250" }),
    )
    .openapi({
      param: { name: "value", in: "query", required: true },
      type: "number",
      description: "the magnitude, in `unit`",
    }),
  unit: z.string().min(1).max(200).openapi(q("unit", "the unit of `value`, such as m^3/s or cfs")),
  tolerance: z.coerce.number().min(0).max(1).optional().openapi(q("tolerance", "relative, default 1e-9")),
  tool: z.string().min(1).max(128).optional().openapi(q("tool", "only crossings of this tool")),
  since: z.string().max(64).optional().openapi(q("since", "crossed at or after")),
});

const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});

const SessionItem = z.object({
  id: z.string(),
  context: z.string(),
  enforcement: z.enum(["enforce", "warn"]),
  labels: z.record(z.string(), z.string()),
  calls: z.number().int(),
  violations: z.number().int(),
  would_block: z.number().int(),
  created_at: z.string(),
});
const CrossingItem = z.record(z.string(), z.unknown()).openapi("Crossing");

const ReplayBody = z
  .union([strictObject({ session_id: z.string().min(1).max(64) }), strictObject({ manifest: ManifestSchema })], {
    error:
      'expected {"session_id": "<a stored session\'s id>"} or {"manifest": <a manifest GET /v1/sessions/{id}/manifest gave>}',
  })
  .openapi("ReplayRequest");
const DifferenceSchema = z.object({
  call_id: z.string().nullable(),
  seq: z.number().int().nullable(),
  audit_id: z.string().optional(),
  field: z.string(),
  stored: z.unknown(),
  replayed: z.unknown(),
});
const ReplayAnswer = z
  .object({
    identical: z.boolean(),
    calls: z.number().int(),
    audits: z.number().int(),
    difference_count: z.number().int(),
    differences: z.array(DifferenceSchema),
  })
  .openapi("ReplayAnswer");

const AuditBody = z
  .strictObject({ answer: z.string().max(100_000), context: z.string().max(100_000).optional() })
  .openapi("AuditRequest");
const AuditNumber = z.object({
  text: z.string(),
  value: z.number(),
  unit: z.string().nullable(),
  status: z.enum(["sourced", "derived", "quoted", "unsourced", "unit_mislabelled", "sign_inverted", "ignored"]),
  source: z.string().nullable(),
  explanation: z.string(),
  call_id: z.string().nullable(),
  start: z
    .number()
    .int()
    .openapi({ description: "offset of the number's first character in the answer (UTF-16 code units)" }),
  end: z.number().int().openapi({ description: "offset just past the number and its unit" }),
});
const AuditAnswer = z
  .object({ id: z.string(), ok: z.boolean(), context: z.string(), numbers: z.array(AuditNumber) })
  .openapi("AuditAnswer");

const listRoute = createRoute({
  method: "get",
  path: "/v1/sessions",
  summary: "Past sessions by label, tool, violation code and time window, newest first",
  tags: ["history"],
  request: { query: SessionListQuery },
  responses: {
    200: jsonResponse(pageSchema(SessionItem, "SessionPage"), "a page of sessions"),
    ...errorResponses(400, 401),
  },
});
const crossingsRoute = createRoute({
  method: "get",
  path: "/v1/crossings",
  summary: "Every stored crossing of a physical magnitude, across sessions, newest first",
  tags: ["history"],
  request: { query: CrossingQuery },
  responses: {
    200: jsonResponse(pageSchema(CrossingItem, "CrossingPage"), "a page of crossings"),
    ...errorResponses(400, 401, 422),
  },
});
const manifestRoute = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/manifest",
  summary: "Everything needed to re-check a session (format agent-ledger.manifest/1)",
  tags: ["history"],
  request: { params: IdParam },
  responses: { 200: jsonResponse(ManifestSchema, "the manifest"), ...errorResponses(401, 404) },
});
const replayRoute = createRoute({
  method: "post",
  path: "/v1/replay",
  summary: "Re-run every check of a stored session or a posted manifest and compare each verdict",
  tags: ["history"],
  request: { body: jsonBody(ReplayBody) },
  responses: {
    200: jsonResponse(ReplayAnswer, "identical, or each field that differs"),
    ...errorResponses(400, 401, 404, 413),
  },
});
const auditRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/audit",
  summary: "Audit the numbers of an answer against the session's tool outputs, and store the audit",
  tags: ["history"],
  request: { params: IdParam, body: jsonBody(AuditBody) },
  responses: { 200: jsonResponse(AuditAnswer, "each number with its status"), ...errorResponses(400, 401, 404, 413) },
});

function sessionCursor(cursor: string | undefined): [string, string] | null {
  const key = decodeCursor(cursor);
  if (key === null) return null;
  if (key.length !== 2 || typeof key[0] !== "string" || typeof key[1] !== "string") {
    throw new ApiError("invalid_request", "cursor is not valid: send the next_cursor of a previous page unchanged", [
      { path: "cursor", message: "not a session cursor" },
    ]);
  }
  return [key[0], key[1]];
}

function crossingCursor(cursor: string | undefined): number | null {
  const key = decodeCursor(cursor);
  if (key === null) return null;
  if (key.length !== 1 || typeof key[0] !== "number") {
    throw new ApiError("invalid_request", "cursor is not valid: send the next_cursor of a previous page unchanged", [
      { path: "cursor", message: "not a crossing cursor" },
    ]);
  }
  return key[0];
}

/** Registers the history routes: session queries, crossing search, manifests, replay and answer audits. */
export function registerHistoryRoutes(app: LedgerApp, deps: AppDeps): void {
  const { sessions, crossings, manifests, audits } = deps.store;

  app.openapi(listRoute, async (c) => {
    const f = c.req.valid("query");
    const labels =
      f.label === undefined ? [] : (Array.isArray(f.label) ? f.label : [f.label]).map((l) => parseLabel(l));
    const rows = await sessions.list(c.get("teamId"), {
      labels,
      tool: f.tool,
      code: f.code,
      limit: f.limit,
      cursor: sessionCursor(f.cursor),
      since: f.since === undefined ? undefined : parseInstant(f.since, "since"),
      until: f.until === undefined ? undefined : parseInstant(f.until, "until"),
    });
    const page = toPage(rows, f.limit, (s) => [s.createdAt, s.id]);
    return c.json({ items: page.items.map(sessionJson), next_cursor: page.next_cursor }, 200);
  });

  app.openapi(crossingsRoute, async (c) => {
    const f = c.req.valid("query");
    const rows = await crossings.search(c.get("teamId"), {
      value: f.value,
      unit: f.unit,
      tolerance: f.tolerance,
      tool: f.tool,
      limit: f.limit,
      cursor: crossingCursor(f.cursor),
      since: f.since === undefined ? undefined : parseInstant(f.since, "since"),
    });
    const page = toPage(rows, f.limit, (x) => [x.id]);
    return c.json({ items: page.items.map(crossingJson), next_cursor: page.next_cursor }, 200);
  });

  app.openapi(manifestRoute, async (c) => {
    const manifest = await manifests.load(c.get("teamId"), c.req.valid("param").id);
    checkAnswerSize(
      jsonBytes(manifest),
      deps.config.limits,
      "a manifest is one answer: split the work over more sessions",
    );
    return c.json(manifest, 200);
  });

  app.openapi(replayRoute, async (c) => {
    const body = c.req.valid("json");
    const manifest = "manifest" in body ? body.manifest : await manifests.load(c.get("teamId"), body.session_id);
    return c.json(replayManifest(manifest), 200);
  });

  app.openapi(auditRoute, async (c) => {
    const { answer, context } = c.req.valid("json");
    const result = await audits.audit(c.get("teamId"), c.req.valid("param").id, {
      answer,
      ...(context === undefined ? {} : { context }),
    });
    return c.json(
      {
        id: result.id,
        ok: result.ok,
        context: result.context,
        numbers: result.numbers.map((n) => ({
          text: n.text,
          value: n.value,
          unit: n.unit,
          status: n.status,
          source: n.source,
          explanation: n.explanation,
          call_id: n.callId,
          start: n.start,
          end: n.end,
        })),
      },
      200,
    );
  });
}

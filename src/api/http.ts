// Shared route helpers: OpenAPI error responses, JSON bodies, and cursor pagination.
import { z } from "@hono/zod-openapi";
import { ApiError } from "./errors.js";

/** The error envelope as an OpenAPI component. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi("Error");

const ERROR_DESCRIPTIONS = {
  400:
    "invalid_request: malformed JSON or a schema failure (details lists each field); invalid_text: a string that is " +
    "not valid Unicode (a lone surrogate, even escaped as \\ud800)",
  401: "unauthenticated: missing or unknown bearer token",
  403: "forbidden: the token may not use this route",
  404: "not_found: no such row for this team",
  409: "conflict: the row exists, or a result was sent for a call the enforcing session refused",
  413:
    "payload_too_large: the body is over the configured limit; too_many_claims, too_many_crossings, too_deep or " +
    "answer_too_large: over a limit (details: limit, count, setting); nothing was stored",
  422: "a domain violation code (dimensionality_error, datum_mismatch, ...)",
  502: "upstream_error: an upstream service failed or answered malformed data",
  503: "upstream_rate_limited or upstream_unreachable: the upstream cannot answer now (Retry-After says when to ask again)",
} as const;

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;
type ErrorResponse = { description: string; content: { "application/json": { schema: typeof ErrorSchema } } };

/** OpenAPI `responses` entries for the given error statuses, all with the envelope schema. */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]): { [K in S]: ErrorResponse } {
  const out: Partial<Record<ErrorStatus, ErrorResponse>> = {};
  for (const s of statuses)
    out[s] = { description: ERROR_DESCRIPTIONS[s], content: { "application/json": { schema: ErrorSchema } } };
  return out as { [K in S]: ErrorResponse };
}

/** An OpenAPI response with a JSON body. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } } as const;
}

/** A required JSON request body (required, so a missing or non-JSON body is a 400, never `{}`). */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, description, content: { "application/json": { schema } } } as const;
}

// --- pagination ---------------------------------------------------------------------------------

/** Default and largest page size (API.md, "Conventions"). */
export const PAGE_LIMIT = { default: 50, max: 500 } as const;

/** `limit` and `cursor` query parameters; extend it with a list's own filters. */
export const PageQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGE_LIMIT.max)
    .default(PAGE_LIMIT.default)
    .openapi({ param: { name: "limit", in: "query" }, example: 50 }),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "next_cursor of the previous page" }),
});

/** A page answer schema `{items, next_cursor}` named `name` in the OpenAPI components. */
export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() }).openapi(name);
}

/** An optional `since` query parameter, read by parseInstant: a date (midnight UTC) or a date-time with an offset. */
export function sinceQuery(description: string) {
  return z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ param: { name: "since", in: "query" }, description });
}

/** The sort key of the last row on a page (e.g. `[created_at, id]`, or just `[id]` since ids sort by time). */
export type CursorKey = readonly (string | number)[];

/** An opaque cursor for a sort key. */
export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/** The sort key inside a cursor, null for no cursor; a cursor this service did not make is a 400. */
export function decodeCursor(cursor: string | undefined): CursorKey | null {
  if (cursor === undefined) return null;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length === 0 || !key.every((k) => typeof k === "string" || typeof k === "number")) {
    throw new ApiError("invalid_request", "cursor is not valid: send the next_cursor of a previous page unchanged", [
      { path: "cursor", message: "not a cursor this service issued" },
    ]);
  }
  return key as CursorKey;
}

/**
 * Cuts rows fetched with `limit + 1` into a page: the extra row only says another page exists.
 * @example toPage(rows, q.limit, (r) => [r.id])
 */
export function toPage<T>(
  rows: readonly T[],
  limit: number,
  keyOf: (row: T) => CursorKey,
): { items: T[]; next_cursor: string | null } {
  if (rows.length <= limit) return { items: [...rows], next_cursor: null };
  const items = rows.slice(0, limit);
  return { items, next_cursor: encodeCursor(keyOf(items[items.length - 1]!)) };
}

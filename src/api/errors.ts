// One error envelope for every 4xx and 5xx, and the one table that maps error codes to HTTP statuses.
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { VIOLATION_CODES } from "../quantity/errors.js";
import { storeFaultOf } from "../store/common/errors.js";

/** The body of every error answer. */
export type ErrorBody = { error: { code: string; message: string; details?: unknown } };

/** An error a route throws on purpose: its code decides the status through ERROR_STATUS. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** HTTP status of each non-domain error code (API.md, "Conventions"); domain violation codes are 422. */
export const ERROR_STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  too_many_claims: 413,
  too_many_crossings: 413,
  too_deep: 413,
  answer_too_large: 413,
  invalid_text: 400,
  internal: 500,
  upstream_error: 502,
  storage_busy: 503,
  storage_full: 507,
  upstream_key: 502,
  upstream_rate_limited: 503,
  upstream_unreachable: 503,
  window_too_large: 400,
  SQLITE_CONSTRAINT_UNIQUE: 409,
  SQLITE_CONSTRAINT_PRIMARYKEY: 409,
};

/** The code a bare HTTP status stands for, for errors thrown by Hono itself (e.g. malformed JSON). */
const CODE_OF_STATUS: Readonly<Partial<Record<number, string>>> = {
  400: "invalid_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  // Hono answers 415 for a body that is not JSON; the contract calls that a malformed request.
  415: "invalid_request",
  413: "payload_too_large",
};

/** Plain replacements for Hono's own messages. */
const HTTP_MESSAGES: Readonly<Record<string, string>> = {
  "415": "the request body must be JSON: send Content-Type: application/json",
  "Malformed JSON in request body": "malformed JSON in the request body: send one JSON document",
};

const DOMAIN_CODES: ReadonlySet<string> = new Set(VIOLATION_CODES);

/** Builds the envelope; `details` is left out when undefined. */
export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

/** The status and envelope for anything thrown; `internal` (500, no stack) when it is not a known fault. */
export function toErrorResponse(err: unknown): {
  status: ContentfulStatusCode;
  body: ErrorBody;
  internal: boolean;
  /** Seconds a client should wait before sending again (Retry-After): a store that stayed busy, an upstream's rate limit. */
  retryAfter?: number;
} {
  if (err instanceof HTTPException) {
    const code = CODE_OF_STATUS[err.status] ?? (err.status >= 500 ? "internal" : "invalid_request");
    const status = err.status === 415 ? 400 : err.status;
    const message = HTTP_MESSAGES[err.status === 415 ? "415" : err.message] ?? err.message;
    return { status, body: errorBody(code, message || code), internal: status >= 500 };
  }
  const fault = storeFaultOf(err);
  if (fault) {
    const status = ERROR_STATUS[fault.code] ?? 503;
    const body = errorBody(fault.code, fault.message);
    return fault.retryAfterSeconds === undefined
      ? { status, body, internal: false }
      : { status, body, internal: false, retryAfter: fault.retryAfterSeconds };
  }
  const e = err as { code?: unknown; message?: unknown; details?: unknown; field?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : undefined;
  if (code !== undefined && DOMAIN_CODES.has(code)) {
    const details = e?.details ?? (typeof e?.field === "string" ? { field: e.field } : undefined);
    return { status: 422, body: errorBody(code, String(e?.message ?? code), details), internal: false };
  }
  const status = code === undefined ? undefined : ERROR_STATUS[code];
  if (status !== undefined && status < 500) {
    const publicCode = code!.startsWith("SQLITE_") ? "conflict" : code!;
    const message = code!.startsWith("SQLITE_") ? "the row conflicts with one that exists" : String(e?.message ?? code);
    return { status, body: errorBody(publicCode, message, e?.details), internal: false };
  }
  if (status !== undefined && status > 500) {
    const body = errorBody(code!, String(e?.message ?? code), e?.details);
    // An upstream's rate limit is passed on as a wait the client can honour.
    const wait = (err as { retryAfter?: unknown }).retryAfter;
    return typeof wait === "number" && status === 503
      ? { status, body, internal: false, retryAfter: Math.ceil(wait) }
      : { status, body, internal: false };
  }
  return { status: 500, body: errorBody("internal", "internal error"), internal: true };
}

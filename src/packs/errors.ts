// Faults of a retrieval pack: the upstream could not be reached, did not know the id, or answered something unreadable.

/** Stable codes of pack faults; they map to HTTP statuses in src/api/errors.ts (502, 404, 400). */
export type PackErrorCode =
  | "upstream_error"
  | "not_found"
  | "invalid_request"
  | "upstream_key"
  | "upstream_rate_limited"
  | "upstream_unreachable"
  | "window_too_large";

/** Base of every pack fault: a stable `code`, a plain message naming what failed, and structured details. */
export class PackError extends Error {
  readonly code: PackErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: PackErrorCode, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** The upstream could not be reached, timed out, or answered a non-2xx status other than 404. */
export class PackUpstreamError extends PackError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super("upstream_error", message, details, cause);
  }
}

/** The upstream does not know the site or station (it answered 404, or an empty record). */
export class PackNotFoundError extends PackError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super("not_found", message, details, cause);
  }
}

/** The upstream answered, but not with what the pack reads; the message names the part that was missing. */
export class PackPayloadError extends PackError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super("upstream_error", message, details, cause);
  }
}

/** A site or station id that cannot name anything upstream (empty, or characters the service never uses). */
export class PackRequestError extends PackError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("invalid_request", message, details);
  }
}

/** USGS refused the API key (missing where one is needed, or invalid): the operator sets AGENT_LEDGER_USGS_API_KEY. */
export class PackKeyError extends PackError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("upstream_key", message, details);
  }
}

/** USGS answered 429: the hourly limit is spent; `retryAfter` is how many seconds to wait before asking again. */
export class PackRateLimitError extends PackError {
  constructor(
    message: string,
    readonly retryAfter: number,
    details: Record<string, unknown> = {},
  ) {
    super("upstream_rate_limited", message, details);
  }
}

/** The service could not be reached at all (refused, reset, timed out). */
export class PackUnreachableError extends PackError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super("upstream_unreachable", message, details, cause);
  }
}

/** A time window USGS will not serve in one request (its 1,100-day envelope). */
export class PackWindowError extends PackError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("window_too_large", message, details);
  }
}

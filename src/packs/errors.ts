// Faults of a retrieval pack: the upstream could not be reached, did not know the id, or answered something unreadable.

/** Stable codes of pack faults; they map to HTTP statuses in src/api/errors.ts (502, 404, 400). */
export type PackErrorCode = "upstream_error" | "not_found" | "invalid_request";

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

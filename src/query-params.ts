// Request parsing helpers shared by the API, the CLI, the dashboard and the MCP tools: instants, labels and the
// QueryError (400) they throw.
import type { LabelFilter } from "./store/model.js";

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** A malformed filter (a date, a label, a cursor): the API answers 400 naming the field. */
export class QueryError extends Error {
  readonly code = "invalid_request";
  readonly details: { path: string; message: string }[];
  constructor(path: string, message: string) {
    super(message);
    this.name = "QueryError";
    this.details = [{ path, message }];
  }
}

/**
 * An instant as the service stores times (ISO 8601 UTC with milliseconds), from a date (midnight UTC) or a date-time
 * with an offset. A date-time without an offset is refused: it names no instant.
 */
export function parseInstant(text: string, field: string): string {
  const t = text.trim();
  const ms = DATE_ONLY.test(t) ? Date.parse(`${t}T00:00:00Z`) : WITH_OFFSET.test(t) ? Date.parse(t) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new QueryError(
      field,
      `${field} must be a date such as 2026-11-30 or a date-time with an offset such as 2026-11-30T04:00:00Z, received '${text}'`,
    );
  }
  return new Date(ms).toISOString();
}

/** Reads `k:v` (the value may itself hold colons). */
export function parseLabel(text: string, field = "label"): LabelFilter {
  const i = text.indexOf(":");
  if (i <= 0) throw new QueryError(field, `${field} must be key:value, such as run:nightly, received '${text}'`);
  return { key: text.slice(0, i), value: text.slice(i + 1) };
}

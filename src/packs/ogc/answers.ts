// USGS's refusals as errors a person can act on: what USGS answered (its status, code and words) and what to do next.
// Two envelopes exist (API-NOTES §10): api.data.gov's {"error": {code, message}} for keys and quotas, and pygeoapi's
// {code, type, description} for query errors; both are read.
import {
  type PackError,
  PackKeyError,
  PackNotFoundError,
  PackRateLimitError,
  PackUnreachableError,
  PackUpstreamError,
  PackWindowError,
} from "../errors.js";

const SIGNUP = "https://api.waterdata.usgs.gov/signup/";
/** USGS's quota is hourly; when it names no wait, an hour is the honest one. */
export const DEFAULT_RETRY_SECONDS = 3600;

/** The code and message of either USGS error envelope, or nulls. */
export function usgsError(text: string): { code: string | null; message: string | null } {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    return { code: null, message: null };
  }
  const o = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const inner = (typeof o.error === "object" && o.error !== null ? o.error : {}) as Record<string, unknown>;
  const code = inner.code ?? o.code;
  const message = inner.message ?? o.description;
  return { code: typeof code === "string" ? code : null, message: typeof message === "string" ? message : null };
}

/** Seconds from a Retry-After header (seconds or an HTTP date), else the hour USGS's quota runs on. */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number {
  if (header === null || header.trim() === "") return DEFAULT_RETRY_SECONDS;
  const n = Number(header);
  if (Number.isFinite(n) && n >= 0) return Math.ceil(n);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : DEFAULT_RETRY_SECONDS;
}

/** The error for a non-2xx answer (or an unreadable 200), by status and USGS's own code. */
export function refusal(url: string, status: number, text: string, retryAfter: string | null): PackError {
  const { code, message } = usgsError(text);
  const said = code || message ? `${code ?? ""}${code && message ? ": " : ""}${message ?? ""}` : text.slice(0, 200);
  const answered = `USGS answered ${status} (${said})`;
  const details = { url, status, usgs_code: code, usgs_message: message };
  if (code === "API_KEY_MISSING" || code === "API_KEY_INVALID" || code === "API_KEY_DISABLED") {
    const what = code === "API_KEY_MISSING" ? "set" : "replace";
    return new PackKeyError(
      `${answered}; ${what} AGENT_LEDGER_USGS_API_KEY to a key from ${SIGNUP} (sent as the X-Api-Key header) and restart the service`,
      details,
    );
  }
  if (status === 429 || code === "OVER_RATE_LIMIT") {
    const wait = retryAfterSeconds(retryAfter);
    return new PackRateLimitError(
      `${answered}; the hourly request limit is spent: wait ${wait} seconds before asking again, or set AGENT_LEDGER_USGS_API_KEY ` +
        `to a key from ${SIGNUP} for a higher limit`,
      wait,
      { ...details, retry_after_seconds: wait },
    );
  }
  if (message !== null && /time envelope is too large/i.test(message)) {
    return new PackWindowError(
      `${answered}; ask for a shorter window (from/to at most 1,000 days apart per request; longer windows are split by this service)`,
      details,
    );
  }
  if (status === 404)
    return new PackNotFoundError(`${answered} for ${url}; check the site number and parameter code`, details);
  if (status === 403)
    return new PackKeyError(
      `${answered} without naming a key problem; USGS does this when a query may exceed its limits: ask for fewer rows ` +
        `or a shorter window, or set AGENT_LEDGER_USGS_API_KEY to a key from ${SIGNUP}`,
      details,
    );
  const next =
    status >= 500
      ? "the service is failing: try again later, and check https://waterdata.usgs.gov for notices"
      : "this service sent a query USGS does not accept: report it with the URL in details";
  return new PackUpstreamError(`${answered} for ${url}; ${next}`, details);
}

/** The error for a request that got no answer at all. */
export function unreachable(url: string, e: unknown, timeoutMs: number): PackError {
  const err = e as { name?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  const why =
    err?.name === "TimeoutError" || err?.name === "AbortError"
      ? `no answer within ${timeoutMs} ms`
      : `${String(err?.message ?? e)}${typeof err?.cause?.code === "string" ? ` (${err.cause.code})` : ""}`;
  return new PackUnreachableError(
    `could not reach USGS at ${url}: ${why}; check AGENT_LEDGER_USGS_URL and this machine's network, then try again`,
    { url },
    e,
  );
}

// POSTing JSON to a model provider with retries: 429 and 5xx (and refused connections) are retried with exponential
// backoff that honours Retry-After; what cannot succeed by retrying is a ProviderError at once.
import { ProviderError } from "./types.js";

/** How requests are retried. */
export type RetryPolicy = { retries: number; baseDelayMs: number; maxDelayMs: number; timeoutMs: number };

/** Five retries from 1 s, doubling, at most 60 s apart; two minutes for one completion. */
export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseDelayMs: 1000, maxDelayMs: 60_000, timeoutMs: 120_000 };

/** Statuses after which no later request can succeed: a refused key, no credit, no such model or route. */
const STOPS_BATCH = new Set([401, 402, 403, 404]);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The wait a Retry-After header asks for (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  const s = Number(header);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function errorText(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string };
    const m = typeof j.error === "string" ? j.error : j.error?.message;
    if (m) return m;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}

/** POSTs `body` as JSON and answers the parsed JSON reply; retries per `policy`; throws ProviderError. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  policy: RetryPolicy,
): Promise<unknown> {
  const payload = JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: payload,
        signal: AbortSignal.timeout(policy.timeoutMs),
      });
    } catch (e) {
      const why = (e as Error & { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
      if (attempt < policy.retries) {
        await sleep(backoff);
        continue;
      }
      throw new ProviderError(`POST ${url} failed after ${attempt + 1} attempts: ${why}`, true);
    }
    const text = await res.text();
    if (res.ok) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ProviderError(
          `POST ${url} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`,
          false,
          res.status,
        );
      }
    }
    const retryable = res.status === 429 || res.status >= 500;
    if (retryable && attempt < policy.retries) {
      const asked = retryAfterMs(res.headers.get("retry-after"));
      await sleep(Math.min(policy.maxDelayMs, asked ?? backoff));
      continue;
    }
    const tries = retryable ? ` after ${attempt + 1} attempts` : "";
    throw new ProviderError(
      `POST ${url} answered ${res.status}${tries}: ${errorText(text)}`,
      STOPS_BATCH.has(res.status),
      res.status,
    );
  }
}

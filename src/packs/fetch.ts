// The one door to the network: an injectable `Fetch`, the default over global fetch with a timeout, and a short cache.
import { PackNotFoundError, PackUpstreamError } from "./errors.js";

/** Fetches a URL and answers its body as text; packs take one so tests run against recorded responses. */
export type Fetch = (url: string) => Promise<string>;

/** Options of the default HTTP fetch. */
export type HttpFetchOptions = {
  /** Largest body accepted, in bytes; an upstream answering more is a fault, not something to buffer. */
  maxBytes?: number;
  /** The underlying fetch (default: the global one); for pointing at a test server, not for mocking. */
  fetchImpl?: typeof globalThis.fetch;
};

const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

/** A Fetch over the global fetch that gives up after `timeoutMs`; 404 is PackNotFoundError, any other failure PackUpstreamError. */
export function httpFetch(timeoutMs = 10_000, options: HttpFetchOptions = {}): Fetch {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const impl = options.fetchImpl ?? globalThis.fetch;
  return async (url: string): Promise<string> => {
    const signal = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await impl(url, { signal, headers: { accept: "application/json, text/plain, */*" }, redirect: "follow" });
    } catch (e) {
      throw new PackUpstreamError(`could not reach ${url}: ${failure(e, timeoutMs)}`, { url }, e);
    }
    if (res.status === 404) {
      await res.body?.cancel().catch(() => undefined);
      throw new PackNotFoundError(`${url} answered 404 Not Found`, { url, status: 404 });
    }
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => undefined);
      throw new PackUpstreamError(
        `${url} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""} instead of 200`,
        { url, status: res.status },
      );
    }
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new PackUpstreamError(`${url} answered ${declared} bytes, more than the ${maxBytes} a pack reads`, {
        url,
        bytes: declared,
      });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new PackUpstreamError(`could not read the answer of ${url}: ${failure(e, timeoutMs)}`, { url }, e);
    }
    if (text.length > maxBytes)
      throw new PackUpstreamError(`${url} answered more than the ${maxBytes} bytes a pack reads`, { url });
    return text;
  };
}

function failure(e: unknown, timeoutMs: number): string {
  const err = e as { name?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return `no answer within ${timeoutMs} ms`;
  const cause = err?.cause;
  if (cause && typeof cause.code === "string") return `${String(err?.message ?? "fetch failed")} (${cause.code})`;
  return String(err?.message ?? e);
}

/** A Fetch that reuses a successful answer for `ttlMs` (the API's short pack cache); failures are never cached. */
export function cachingFetch(inner: Fetch, ttlMs: number, clock: () => number = Date.now, maxEntries = 256): Fetch {
  const cache = new Map<string, { at: number; text: string }>();
  return async (url: string): Promise<string> => {
    const hit = cache.get(url);
    if (hit && clock() - hit.at < ttlMs) return hit.text;
    const text = await inner(url);
    if (ttlMs > 0) {
      cache.delete(url);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(url, { at: clock(), text });
    }
    return text;
  };
}

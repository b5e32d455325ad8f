// The one door to the USGS Water Data OGC API: the base URL a setting, `next` links followed exactly as given, the API
// key sent as X-Api-Key only to the configured host (never after a redirect elsewhere), and USGS's answers turned into
// errors a person can act on (see ./answers.ts).
import { PackRequestError } from "../errors.js";
import { trimBase } from "../shared.js";
import { refusal, unreachable } from "./answers.js";

/** The public service (v0); `/ogcapi/v1` is accepted the same way. */
export const USGS_OGC_URL = "https://api.waterdata.usgs.gov/ogcapi/v0";

/** Options of an OGC API client. */
export type OgcClientOptions = {
  baseUrl?: string;
  /** Sent as `X-Api-Key` to the base URL's host only. */
  apiKey?: string;
  /** The underlying fetch (default: the global one); tests point the base URL at a local server instead. */
  fetchImpl?: typeof globalThis.fetch;
  timeoutMs?: number;
  /** Largest body accepted, in bytes. */
  maxBytes?: number;
  /** Rows asked for per page (the API's maximum is 50,000). */
  pageSize?: number;
  /** Pages followed at most for one query, a guard against a service that never stops answering `next`. */
  maxPages?: number;
};

/** One answer: the parsed JSON and the rate-limit headers USGS sent with it. */
export type OgcAnswer = { body: unknown; url: string; rateRemaining: number | null };

const MAX_REDIRECTS = 5;

/** The client the settings describe: AGENT_LEDGER_USGS_URL and AGENT_LEDGER_USGS_API_KEY. */
export function usgsClient(config: { usgsUrl: string; usgsApiKey?: string | undefined }): OgcClient {
  return new OgcClient({ baseUrl: config.usgsUrl, apiKey: config.usgsApiKey });
}

/** A client of one OGC API base URL; `requests` counts every HTTP request made (redirect hops included). */
export class OgcClient {
  readonly baseUrl: string;
  private readonly host: string;
  private readonly apiKey: string | undefined;
  private readonly impl: typeof globalThis.fetch;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  readonly pageSize: number;
  private readonly maxPages: number;
  requests = 0;
  /** The last `X-RateLimit-Remaining` USGS sent, or null when it sent none. */
  rateRemaining: number | null = null;

  constructor(opts: OgcClientOptions = {}) {
    this.baseUrl = trimBase(opts.baseUrl ?? USGS_OGC_URL);
    this.host = new URL(this.baseUrl).host;
    this.apiKey = opts.apiKey || undefined;
    this.impl = opts.fetchImpl ?? globalThis.fetch;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
    this.pageSize = opts.pageSize ?? 10_000;
    this.maxPages = opts.maxPages ?? 1_000;
  }

  /** The URL of a collection's items with the given query, in the API's own path. */
  itemsUrl(collection: string, query: Readonly<Record<string, string>>): string {
    const q = new URLSearchParams({ f: "json", skipGeometry: "true", limit: String(this.pageSize), ...query });
    return `${this.baseUrl}/collections/${collection}/items?${q.toString()}`;
  }

  /** One item (`/collections/{c}/items/{id}`). */
  async item(collection: string, id: string): Promise<OgcAnswer> {
    return this.get(`${this.baseUrl}/collections/${collection}/items/${encodeURIComponent(id)}?f=json`);
  }

  /**
   * Every feature of a query: the first page, then each `next` link exactly as USGS wrote it, until a page has no
   * `next` or no features; a link already followed ends the walk rather than looping.
   */
  async items(collection: string, query: Readonly<Record<string, string>>): Promise<unknown[]> {
    const out: unknown[] = [];
    const seen = new Set<string>();
    let url: string | null = this.itemsUrl(collection, query);
    for (let page = 0; url !== null && page < this.maxPages; page++) {
      seen.add(url);
      const a = await this.get(url);
      const features = featuresOf(a.body, url);
      out.push(...features);
      const next = nextLink(a.body);
      url = features.length === 0 || next === null || seen.has(next) ? null : next;
    }
    if (url !== null)
      throw new PackRequestError(
        `USGS had more than ${this.maxPages} pages of ${this.pageSize} rows for ${collection}; ask for a shorter window`,
        { collection, pages: this.maxPages },
      );
    return out;
  }

  /** GETs a URL: redirects followed by hand so the key never leaves the configured host; USGS's refusals thrown. */
  async get(first: string): Promise<OgcAnswer> {
    let url = first;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const headers: Record<string, string> = { accept: "application/geo+json, application/json" };
      if (this.apiKey !== undefined && new URL(url).host === this.host) headers["x-api-key"] = this.apiKey;
      let res: Response;
      this.requests++;
      try {
        res = await this.impl(url, { headers, redirect: "manual", signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (e) {
        throw unreachable(url, e, this.timeoutMs);
      }
      const remaining = Number(res.headers.get("x-ratelimit-remaining") ?? Number.NaN);
      if (Number.isFinite(remaining)) this.rateRemaining = remaining;
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel().catch(() => undefined);
        url = new URL(location, url).toString();
        continue;
      }
      const text = await this.read(res, url);
      if (res.status < 200 || res.status > 299) throw refusal(url, res.status, text, res.headers.get("retry-after"));
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        throw refusal(url, 502, text, null);
      }
      // pygeoapi can answer a query error inside a 200 page (API-NOTES §10).
      if (isObject(body) && body.code === "InvalidQuery") throw refusal(url, 400, text, null);
      return { body, url, rateRemaining: Number.isFinite(remaining) ? remaining : null };
    }
    throw new PackRequestError(`USGS redirected more than ${MAX_REDIRECTS} times starting from ${first}`, {
      url: first,
    });
  }

  private async read(res: Response, url: string): Promise<string> {
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw refusal(url, 502, `an answer of ${declared} bytes, more than the ${this.maxBytes} this client reads`, null);
    }
    try {
      return await res.text();
    } catch (e) {
      throw unreachable(url, e, this.timeoutMs);
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The `features` of a FeatureCollection page; a page without them is a payload fault naming the URL. */
function featuresOf(body: unknown, url: string): unknown[] {
  if (isObject(body) && Array.isArray(body.features)) return body.features;
  throw refusal(url, 502, "a page that is not a GeoJSON FeatureCollection (no features array)", null);
}

/** The `rel: "next"` href of a page, exactly as written, or null. */
export function nextLink(body: unknown): string | null {
  if (!isObject(body) || !Array.isArray(body.links)) return null;
  const next = body.links.find((l: unknown) => isObject(l) && l.rel === "next" && typeof l.href === "string");
  return next ? String((next as { href: string }).href) : null;
}

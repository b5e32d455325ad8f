// The `fetch` the proxy hands the SDK's StreamableHTTPClientTransport for its upstream: node:http with a keep-alive
// agent, Nagle off. The transport, its session handling and its SSE parsing stay the SDK's; only the HTTP client
// underneath is cheaper than the global (undici) fetch, whose Request objects, abort-signal plumbing and fetch
// algorithm cost more CPU per call than the rest of a forwarded call's proxy work (bench:mcp, bench/RESULTS.md).
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** The fetch signature the SDK's transports accept. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

// Statuses whose Response may not carry a body (the Fetch standard's null body statuses).
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Headers of a RequestInit as one plain record (lower-case names). */
function headerRecord(h: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) h.forEach((v, k) => void (out[k] = v));
  else if (Array.isArray(h)) for (const [k, v] of h) out[k!.toLowerCase()] = v!;
  else for (const [k, v] of Object.entries(h as Record<string, string>)) out[k.toLowerCase()] = v;
  return out;
}

/** The response head as web Headers (a repeated header joined as fetch joins it). */
function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * The body as a web stream that reads the socket only as fast as it is consumed, and errors (as fetch's own body
 * does, with a TypeError) when the connection closes before the response ended.
 */
function bodyStream(res: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let settled = false;
      const fail = (cause: unknown) => {
        if (settled) return;
        settled = true;
        controller.error(new TypeError("terminated", { cause }));
      };
      res.on("data", (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.once("end", () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      // A reset mid-body is an 'error' on the response (and an unhandled one would end the process); a plain early
      // close is only 'close' without 'end'.
      res.on("error", fail);
      res.once("close", () => fail(new Error("the connection closed before the response ended")));
    },
    pull() {
      res.resume();
    },
    cancel() {
      res.destroy();
    },
  });
}

/** A fetch over node:http(s) with one keep-alive agent per scheme; it follows no redirects (the SDK asks for none). */
export function nodeHttpFetch(): FetchLike & { close(): void } {
  const agents = {
    "http:": new HttpAgent({ keepAlive: true, noDelay: true }),
    "https:": new HttpsAgent({ keepAlive: true, noDelay: true }),
  };
  const fetchImpl = (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === "string" ? new URL(input) : input;
    const scheme = url.protocol as keyof typeof agents;
    if (!(scheme in agents))
      return Promise.reject(new TypeError("fetch failed", { cause: new Error(`unsupported scheme ${url.protocol}`) }));
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== "string")
      return Promise.reject(new TypeError("this fetch sends only string bodies"));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const headers = headerRecord(init.headers);
    if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      const req = (scheme === "https:" ? httpsRequest : httpRequest)(url, {
        method: init.method ?? "GET",
        headers,
        agent: agents[scheme],
      });
      const onAbort = () => req.destroy(signal!.reason instanceof Error ? signal!.reason : new Error("aborted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      req.once("error", (e) => {
        signal?.removeEventListener("abort", onAbort);
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: e }));
      });
      req.once("response", (res) => {
        res.once("close", () => signal?.removeEventListener("abort", onAbort));
        const status = res.statusCode ?? 0;
        const nullBody = NULL_BODY.has(status) || init.method === "HEAD";
        if (nullBody) res.on("error", () => undefined).resume();
        resolve(
          new Response(nullBody ? null : bodyStream(res), {
            status,
            statusText: res.statusMessage ?? "",
            headers: responseHeaders(res),
          }),
        );
      });
      req.end(body ?? undefined);
    });
  };
  return Object.assign(fetchImpl, {
    close: () => {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  });
}

// The `fetch` the proxy hands the SDK's StreamableHTTPClientTransport for its upstream: node:http with a keep-alive
// agent, Nagle off. The transport, its session handling and its SSE parsing stay the SDK's; only the HTTP client
// underneath is cheaper than the global (undici) fetch, whose Request objects, abort-signal plumbing and fetch
// algorithm cost more CPU per call than the rest of a forwarded call's proxy work (bench:mcp, bench/RESULTS.md).
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { createParser } from "eventsource-parser";

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

const mediaType = (res: IncomingMessage) => (res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();

// A JSON-RPC response (not a request, not a notification): the answer a POSTed request waits for.
const isResponse = (m: unknown) => typeof m === "object" && m !== null && !("method" in m) && "id" in m;

/** A body-less Response whose json() answers `value()`: what the SDK's transport reads from an application/json answer. */
function jsonAnswer(res: IncomingMessage, value: () => unknown): Response {
  const headers = responseHeaders(res);
  headers.set("content-type", "application/json");
  const answer = new Response(null, { status: res.statusCode ?? 200, statusText: res.statusMessage ?? "", headers });
  Object.defineProperty(answer, "json", { value: () => Promise.resolve().then(value) });
  return answer;
}

/**
 * The answer to a POST, read here instead of as a web stream: a JSON body as text; an SSE body through the SDK's
 * own SSE parser (eventsource-parser), its `message` events collected up to the first JSON-RPC response, and handed
 * to the transport as one JSON array, the shape a JSON answer to a batch has. The transport then skips its
 * TextDecoderStream and EventSourceParserStream (two TransformStreams, most of a relayed call's HTTP cost). Events
 * after that response (the upstream should close the stream there) are read and dropped.
 */
function bufferedAnswer(res: IncomingMessage, streamEarly: boolean): Promise<Response> {
  const sse = mediaType(res) === "text/event-stream";
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    let text = "";
    const messages: unknown[] = [];
    // With streamEarly, a message before the response (progress, a log line, a request of the server) turns the answer
    // into the SSE stream it is, so that message reaches the transport now, not when the call ends.
    let streaming: ((chunk: string) => void) | null = null;
    const stream = () => {
      settled = true;
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(text));
          streaming = (chunk) => controller.enqueue(encoder.encode(chunk));
          res.once("end", () => controller.close());
          res.once("close", () => {
            if (!res.complete) controller.error(new TypeError("terminated"));
          });
        },
        cancel() {
          res.destroy();
        },
      });
      resolve(
        new Response(body, {
          status: res.statusCode ?? 200,
          statusText: res.statusMessage ?? "",
          headers: responseHeaders(res),
        }),
      );
    };
    const done = () => {
      if (settled) return;
      settled = true;
      resolve(jsonAnswer(res, sse ? () => messages : () => JSON.parse(text)));
    };
    const parser = createParser({
      onEvent: (event) => {
        if (settled || !event.data || (event.event && event.event !== "message")) return;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          return; // the SDK reports such an event and reads on; the request it answered times out either way
        }
        messages.push(message);
        if (isResponse(message)) done();
        else if (streamEarly) stream();
      },
    });
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      if (streaming) return streaming(chunk);
      if (settled) return;
      text += chunk;
      if (sse) parser.feed(chunk);
    });
    res.once("end", () => {
      if (!streaming) done();
    });
    const fail = (cause: unknown) => {
      if (settled) return;
      settled = true;
      reject(new TypeError("terminated", { cause }));
    };
    res.on("error", fail);
    res.once("close", () => fail(new Error("the connection closed before the response ended")));
  });
}

/** How the fetch reads answers. */
export type NodeFetchOptions = {
  /**
   * Read the answer to a POST (JSON, or an SSE stream up to its JSON-RPC response) before resolving, and hand it on
   * as a JSON body (the SDK client transport's cheap path). Off: every body is a web stream, as fetch's own.
   */
  bufferPostAnswers?: boolean;
  /**
   * With bufferPostAnswers: an SSE answer whose first message is not the response (a notification, a request of the
   * server) is handed on as the stream it is from there, so what comes before the response is relayed as it comes.
   */
  streamEarly?: boolean;
};

/** A fetch over node:http(s) with one keep-alive agent per scheme; it follows no redirects (the SDK asks for none). */
export function nodeHttpFetch(options: NodeFetchOptions = {}): FetchLike & { close(): void } {
  const agents = {
    "http:": new HttpAgent({ keepAlive: true, noDelay: true }),
    "https:": new HttpsAgent({ keepAlive: true, noDelay: true }),
  };
  const fetchImpl = (input: string | URL, init: RequestInit = {}, retried = false): Promise<Response> => {
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
      req.once("error", (e: NodeJS.ErrnoException) => {
        signal?.removeEventListener("abort", onAbort);
        // A kept-alive socket the server closed while it sat in the pool fails before the request reached the server:
        // sent once more on a fresh socket, as Node's documentation advises (undici checks the socket before reuse).
        if (req.reusedSocket && e.code === "ECONNRESET" && !retried && !signal?.aborted)
          return void fetchImpl(input, init, true).then(resolve, reject);
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: e }));
      });
      req.once("response", (res) => {
        res.once("close", () => signal?.removeEventListener("abort", onAbort));
        const status = res.statusCode ?? 0;
        const nullBody = NULL_BODY.has(status) || init.method === "HEAD";
        if (nullBody) res.on("error", () => undefined).resume();
        else if (options.bufferPostAnswers && init.method === "POST" && status === 200) {
          const type = mediaType(res);
          if (type === "application/json" || type === "text/event-stream")
            return void bufferedAnswer(res, options.streamEarly === true).then(resolve, reject);
        }
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

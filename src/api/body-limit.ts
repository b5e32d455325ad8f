// The body limit, answered so the client can read it. A client that writes its whole body before it reads (Python's
// urllib, with Connection: close) gets a broken pipe, not the 413, if the server answers and closes mid-body: the
// unread bytes make the kernel reset the connection, and the reset discards the answer too. So an oversized body is
// read and discarded (never buffered) up to DISCARD_LIMIT, and only then answered; beyond that bound the 413 is sent
// at once with Connection: close.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.js";
import { errorBody } from "./errors.js";

/** How many bytes of an oversized body are read and thrown away so that the 413 reaches the client. */
export const DISCARD_LIMIT = 64 * 1024 * 1024;

/** Reads a body to its end, dropping every chunk; false when it runs past `limit` bytes (reading then stops). */
async function discard(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  already: number,
  limit: number,
): Promise<boolean> {
  let total = already;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return true;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return false;
    }
  }
}

/** True when the request came through @hono/node-server, which passes Node's IncomingMessage as `incoming`. */
const fromNodeServer = (c: Context<AppEnv>): boolean =>
  (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined;

/**
 * 413 for a body over `max` bytes. A declared Content-Length is checked from the header alone (Node's parser then
 * delivers exactly that many bytes); only a chunked body is counted as it streams, because touching `c.req.raw.body`
 * builds a web stream per request, a quarter of a guarded call's cost.
 */
export function limitBody(max: number, discardLimit = DISCARD_LIMIT): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Context<AppEnv>, close: boolean) => {
    if (close) c.header("Connection", "close");
    return c.json(errorBody("payload_too_large", `the request body is over the limit of ${max} bytes`), 413);
  };
  return async (c, next) => {
    const length = c.req.header("content-length");
    if (length !== undefined && /^\d+$/.test(length) && c.req.header("transfer-encoding") === undefined) {
      const declared = Number(length);
      if (declared <= max) return next();
      if (declared > discardLimit || c.req.raw.body === null) return tooLarge(c, true);
      return tooLarge(c, !(await discard(c.req.raw.body.getReader(), 0, discardLimit)));
    }
    // Over Node's HTTP server, a request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 6.3),
    // so it is not built into a web Request at all. Building one (`c.req.raw.body`) gives it an AbortSignal listener
    // that a FinalizationRegistry removes after GC, thousands at once: a stall of over 100 ms under steady GET traffic
    // (bench:abuse). A Request handed to the app directly (app.request, other runtimes) may carry a body regardless.
    if (fromNodeServer(c) && c.req.header("transfer-encoding") === undefined) return next();
    const body = c.req.raw.body;
    if (body === null) return next();
    // Chunked: keep the body while it is within the limit, then count and drop the rest.
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > max) return tooLarge(c, !(await discard(reader, size, discardLimit)));
      chunks.push(value);
    }
    const whole = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      whole.set(chunk, offset);
      offset += chunk.length;
    }
    c.req.raw = new Request(c.req.raw, { body: whole });
    return next();
  };
}

// The fetch a relayed 2026-07-28 request reaches the upstream with. The SDK's client transport turns an HTTP error into
// an exception (or, for a 400, a JSON-RPC error answered with 200), which would hide the upstream's status from the agent;
// this fetch hands the error response itself to the front, which answers it as it came (status and body).

/** A fetch for one relayed request, and the upstream's error response when it answered one. */
export type RelayFetch = { fetch: typeof fetch; failure: Promise<Response> };

/**
 * A JSON body read as the SSE stream the SDK reads message by message: some servers write one JSON-RPC message a line
 * into a JSON body that stays open (a notification, then the result; a subscription stream). Each message is passed on
 * as soon as its text is complete JSON, so an open body is relayed as it comes.
 */
function jsonAsEvents(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = "";
  const emit = (out: TransformStreamDefaultController<Uint8Array>, final: boolean) => {
    let from = 0;
    for (;;) {
      const nl = pending.indexOf("\n", from);
      const end = nl < 0 ? (final ? pending.length : -1) : nl + 1;
      if (end < 0) return;
      const text = pending.slice(0, end).trim();
      let message: unknown;
      try {
        message = text === "" ? undefined : JSON.parse(text);
      } catch {
        // Not complete yet (a pretty-printed message spans lines): take the next line with it.
        if (nl < 0) return;
        from = end;
        continue;
      }
      if (message !== undefined) out.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
      pending = pending.slice(end);
      from = 0;
      if (nl < 0) return;
    }
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        pending += decoder.decode(chunk, { stream: true });
        emit(out, false);
      },
      flush(out) {
        pending += decoder.decode();
        emit(out, true);
      },
    }),
  );
}

/** Wraps `base` for one exchange: the first error response to a POST settles `failure` with a copy of it. */
export function relayFetch(base: typeof fetch = fetch): RelayFetch {
  let fail: (r: Response) => void = () => undefined;
  const failure = new Promise<Response>((resolve) => {
    fail = resolve;
  });
  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await base(input, init);
    const post = (init?.method ?? "GET").toUpperCase() === "POST";
    if (!post) return res;
    const type = res.headers.get("content-type") ?? "";
    if (!res.ok) {
      const text = await res.text();
      fail(new Response(text, { status: res.status, headers: type ? { "content-type": type } : {} }));
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    if (!type.startsWith("application/json") || res.body === null) return res;
    return new Response(jsonAsEvents(res.body), {
      status: res.status,
      headers: { "content-type": "text/event-stream" },
    });
  };
  return { fetch: wrapped as typeof fetch, failure };
}

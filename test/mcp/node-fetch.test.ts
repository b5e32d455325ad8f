// The node:http fetch the proxy gives the SDK's client transport for its upstream, against a real local HTTP server:
// what it sends, what it answers, how it fails (the words the proxy's upstream messages are built from).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHttpFetch } from "../../src/mcp/node-fetch.js";

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

let server: Server;
let release: () => void = () => undefined;
let base: string;
const seen: Seen[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === "/sse") {
        res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s-1" });
        res.write('event: message\ndata: {"a":1}\n\n');
        res.end('event: message\ndata: {"b":2}\n\n');
      } else if (req.url === "/empty") res.writeHead(204).end();
      else if (req.url === "/cut") {
        // Headers and half a body, then the connection is destroyed.
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("event: message\ndata: {");
        setTimeout(() => res.socket!.destroy(), 20);
      } else if (req.url === "/answer-then-hold") {
        // A log notification, the response, then the stream held open (an upstream that does not close it).
        res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s-2" });
        res.write(": keep-alive\n\nid: 1\ndata:\n\n");
        res.write(
          'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}\n\n',
        );
        res.write('event: message\ndata: {"jsonrpc":"2.0","id":4,"result":{"ok":true}}\n\n');
      } else if (req.url === "/progress-then-answer") {
        // A progress notification, then the response only when the test says so.
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
        );
        release = () => res.end('event: message\ndata: {"jsonrpc":"2.0","id":6,"result":{}}\n\n');
      } else if (req.url === "/json") {
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
        res.end('{"jsonrpc":"2.0","id":5,"result":{"text":"caf\u00e9 \u2014 ok"}}');
      } else if (req.url === "/never") res.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders();
      else res.writeHead(404, { "content-type": "text/plain" }).end("no such path");
    });
  });
  server.on("connection", (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("nodeHttpFetch", () => {
  it("sends the method, headers and string body, and answers status, headers and the whole body", async () => {
    const f = nodeHttpFetch();
    try {
      const res = await f(`${base}/sse`, {
        method: "POST",
        headers: new Headers({ "content-type": "application/json", "mcp-session-id": "s-0" }),
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(res.headers.get("mcp-session-id")).toBe("s-1");
      expect(await res.text()).toBe('event: message\ndata: {"a":1}\n\nevent: message\ndata: {"b":2}\n\n');
      const last = seen.at(-1)!;
      expect(last.method).toBe("POST");
      expect(last.body).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      expect(last.headers["content-type"]).toBe("application/json");
      expect(last.headers["mcp-session-id"]).toBe("s-0");
      expect(last.headers["content-length"]).toBe("40");
    } finally {
      f.close();
    }
  });

  it("keeps one connection alive across requests", async () => {
    const f = nodeHttpFetch();
    try {
      const before = sockets.size;
      for (let i = 0; i < 3; i++) await (await f(`${base}/sse`, { method: "POST", body: "{}" })).text();
      expect(sockets.size - before).toBe(1);
    } finally {
      f.close();
    }
  });

  it("answers a 204 with no body and a 404 with its text", async () => {
    const f = nodeHttpFetch();
    try {
      const empty = await f(`${base}/empty`, { method: "DELETE" });
      expect(empty.status).toBe(204);
      expect(empty.body).toBeNull();
      const missing = await f(`${base}/other`, { method: "GET" });
      expect(missing.status).toBe(404);
      expect(missing.ok).toBe(false);
      expect(await missing.text()).toBe("no such path");
    } finally {
      f.close();
    }
  });

  it("rejects as fetch does when nothing listens: TypeError 'fetch failed' whose cause is ECONNREFUSED", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const f = nodeHttpFetch();
    try {
      const failure = await f(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: "{}" }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as TypeError).message).toBe("fetch failed");
      expect(((failure as TypeError).cause as { code: string }).code).toBe("ECONNREFUSED");
    } finally {
      f.close();
    }
  });

  it("errors the body with TypeError 'terminated' when the connection drops mid-response", async () => {
    const f = nodeHttpFetch();
    try {
      const res = await f(`${base}/cut`, { method: "POST", body: "{}" });
      const failure = await res.text().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as TypeError).message).toBe("terminated");
    } finally {
      f.close();
    }
  });

  it("stops a response that never ends when its signal aborts, with the signal's reason", async () => {
    const f = nodeHttpFetch();
    try {
      const ac = new AbortController();
      const res = await f(`${base}/never`, { method: "GET", signal: ac.signal });
      const reading = res.text().catch((e: unknown) => e);
      ac.abort(new Error("closing the transport"));
      const failure = await reading;
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as TypeError).message).toBe("terminated");
      const already = await f(`${base}/sse`, { method: "POST", body: "{}", signal: ac.signal }).catch(
        (e: unknown) => e,
      );
      expect((already as Error).message).toBe("closing the transport");
    } finally {
      f.close();
    }
  });

  it("refuses a body that is not a string, which the SDK never sends", async () => {
    const f = nodeHttpFetch();
    try {
      const failure = await f(`${base}/sse`, { method: "POST", body: new Uint8Array([1]) }).catch((e: unknown) => e);
      expect((failure as Error).message).toBe("this fetch sends only string bodies");
    } finally {
      f.close();
    }
  });

  describe("with bufferPostAnswers (the proxy's upstream link)", () => {
    const post = (f: ReturnType<typeof nodeHttpFetch>, path: string) =>
      f(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

    it("answers an SSE answer as JSON: its messages up to the first response, without waiting for the stream to end", async () => {
      const f = nodeHttpFetch({ bufferPostAnswers: true });
      try {
        const res = await post(f, "/answer-then-hold");
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("application/json");
        expect(res.headers.get("mcp-session-id")).toBe("s-2");
        expect(await res.json()).toEqual([
          { jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } },
          { jsonrpc: "2.0", id: 4, result: { ok: true } },
        ]);
      } finally {
        f.close();
      }
    });

    it("with streamEarly, answers the SSE stream itself as soon as a message before the response arrives", async () => {
      const f = nodeHttpFetch({ bufferPostAnswers: true, streamEarly: true });
      try {
        const res = await post(f, "/progress-then-answer");
        // Resolved while the upstream still holds the response back.
        expect(res.headers.get("content-type")).toBe("text/event-stream");
        release();
        expect(await res.text()).toBe(
          'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n' +
            'event: message\ndata: {"jsonrpc":"2.0","id":6,"result":{}}\n\n',
        );
        const quick = await post(f, "/answer-then-hold");
        expect(quick.headers.get("content-type")).toBe("text/event-stream");
      } finally {
        f.close();
      }
    });

    it("answers a JSON answer read whole, multi-byte characters intact", async () => {
      const f = nodeHttpFetch({ bufferPostAnswers: true });
      try {
        const res = await post(f, "/json");
        expect(res.headers.get("content-type")).toBe("application/json");
        expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 5, result: { text: "café — ok" } });
      } finally {
        f.close();
      }
    });

    it("rejects with TypeError 'terminated' when the connection drops before the response", async () => {
      const f = nodeHttpFetch({ bufferPostAnswers: true });
      try {
        const e = await post(f, "/cut").catch((x: unknown) => x);
        expect(e).toBeInstanceOf(TypeError);
        expect((e as TypeError).message).toBe("terminated");
      } finally {
        f.close();
      }
    });

    it("leaves a GET's SSE stream a stream", async () => {
      const f = nodeHttpFetch({ bufferPostAnswers: true });
      try {
        const res = await f(`${base}/sse`, { method: "GET" });
        expect(res.headers.get("content-type")).toBe("text/event-stream");
        expect(await res.text()).toBe('event: message\ndata: {"a":1}\n\nevent: message\ndata: {"b":2}\n\n');
      } finally {
        f.close();
      }
    });
  });
});

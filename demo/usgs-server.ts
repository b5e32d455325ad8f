// A real HTTP server on 127.0.0.1 that answers as the USGS Water Data OGC API would, from recorded responses: the
// tests and the offline demo point AGENT_LEDGER_USGS_URL at it. `next` links in a recorded page are re-pointed at this
// server with their query kept exactly, so a client following them reaches the next recorded page.
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** An answer: a status, a body (a fixture name under test/fixtures/usgs-ogc/, or JSON), and headers. */
export type Recorded = { status?: number; file?: string; json?: unknown; headers?: Record<string, string> };

/** Decides the answer to one request; null is a 404 with an OGC `NotFound` body. */
export type Responder = (url: URL, headers: IncomingHttpHeaders) => Recorded | null;

/** One request the server saw. */
export type Seen = { path: string; query: URLSearchParams; headers: IncomingHttpHeaders };

/** A running server: its OGC base URL, what it was asked, and how to stop it. */
export type RecordedServer = { base: string; origin: string; seen: Seen[]; close: () => Promise<void> };

const FIXTURES = new URL("../test/fixtures/usgs-ogc/", import.meta.url);

/** The text of a recorded (or derived) response. */
export function ogcFixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8");
}

/** Starts the server on 127.0.0.1 (port 0 picks a free one); the base URL ends in `/ogcapi/v0`. */
export async function startRecordedServer(respond: Responder, port = 0): Promise<RecordedServer> {
  const seen: Seen[] = [];
  let origin = "";
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", origin);
    seen.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    const r = respond(url, req.headers);
    const status = r?.status ?? (r ? 200 : 404);
    const text = r?.file
      ? repoint(ogcFixture(r.file), origin)
      : JSON.stringify(
          r ? (r.json ?? {}) : { code: "NotFound", description: `no recorded answer for ${url.pathname}` },
        );
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...(r?.headers ?? {}) });
    res.end(text);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base: `${origin}/ogcapi/v0`,
    origin,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Recorded hrefs name the real host; this server answers them instead, the path and query unchanged. */
function repoint(text: string, origin: string): string {
  return text.replaceAll("https://api.waterdata.usgs.gov", origin);
}

import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PackNotFoundError, PackUpstreamError } from "../../src/packs/errors.js";
import { cachingFetch, httpFetch } from "../../src/packs/fetch.js";

let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    const routes: Record<string, () => void> = {
      "/ok": () => res.end("agency_cd\tsite_no"),
      "/missing": () => res.writeHead(404).end("No sites found matching all criteria"),
      "/boom": () => res.writeHead(503, "Service Unavailable").end("down"),
      "/big": () => res.writeHead(200, { "content-length": "100" }).end("x".repeat(100)),
      "/slow": () => setTimeout(() => res.end("late"), 1_000).unref(),
    };
    (routes[req.url ?? ""] ?? (() => res.writeHead(500).end()))();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("httpFetch", () => {
  it("answers the body of a 200 as text", async () => {
    expect(await httpFetch(2_000)(`${base}/ok`)).toBe("agency_cd\tsite_no");
  });
  it("turns a 404 into not_found naming the URL", async () => {
    const err = await httpFetch(2_000)(`${base}/missing`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackNotFoundError);
    expect(err).toMatchObject({ code: "not_found", message: `${base}/missing answered 404 Not Found` });
  });
  it("turns any other non-2xx into upstream_error naming the URL and the status", async () => {
    const err = await httpFetch(2_000)(`${base}/boom`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackUpstreamError);
    expect(err).toMatchObject({
      code: "upstream_error",
      message: `${base}/boom answered 503 Service Unavailable instead of 200`,
    });
  });
  it("gives up after the timeout and says so", async () => {
    await expect(httpFetch(150)(`${base}/slow`)).rejects.toMatchObject({
      code: "upstream_error",
      message: `could not reach ${base}/slow: no answer within 150 ms`,
    });
  });
  it("refuses an answer larger than maxBytes", async () => {
    await expect(httpFetch(2_000, { maxBytes: 50 })(`${base}/big`)).rejects.toMatchObject({
      code: "upstream_error",
      message: `${base}/big answered 100 bytes, more than the 50 a pack reads`,
    });
  });
  it("names the URL and the reason when nothing listens", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/nwis/site/`;
    await new Promise((resolve) => closed.close(resolve));
    await expect(httpFetch(2_000)(url)).rejects.toMatchObject({
      code: "upstream_error",
      message: `could not reach ${url}: fetch failed (ECONNREFUSED)`,
    });
  });
});

describe("cachingFetch", () => {
  it("reuses an answer within the time to live and asks again after it", async () => {
    let now = 0;
    let calls = 0;
    const f = cachingFetch(
      async (url) => `${url}#${++calls}`,
      60_000,
      () => now,
    );
    expect(await f("a")).toBe("a#1");
    now = 59_999;
    expect(await f("a")).toBe("a#1");
    expect(await f("b")).toBe("b#2");
    now = 60_000;
    expect(await f("a")).toBe("a#3");
  });
  it("never caches a failure", async () => {
    let calls = 0;
    const f = cachingFetch(
      async () => {
        calls += 1;
        if (calls === 1) throw new PackUpstreamError("down");
        return "up";
      },
      60_000,
      () => 0,
    );
    await expect(f("a")).rejects.toThrowError("down");
    expect(await f("a")).toBe("up");
  });
  it("holds at most maxEntries answers, dropping the oldest", async () => {
    let calls = 0;
    const f = cachingFetch(
      async (url) => `${url}#${++calls}`,
      60_000,
      () => 0,
      2,
    );
    await f("a");
    await f("b");
    await f("c");
    expect(await f("b")).toBe("b#2");
    expect(await f("a")).toBe("a#4");
  });
});

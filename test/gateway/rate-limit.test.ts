import { describe, expect, it } from "vitest";
import { parseRate } from "../../src/gateway/rate.js";
import { RateLimiter } from "../../src/gateway/rate-limit.js";

const rate = (text: string) => parseRate(text)!;

describe("rate limits", () => {
  it("parses N/s, N/min and N/h and refuses anything else", () => {
    expect(parseRate("60/min")).toEqual({ count: 60, windowMs: 60_000, text: "60/min" });
    expect(parseRate("5/s")).toEqual({ count: 5, windowMs: 1000, text: "5/s" });
    expect(parseRate("1000/h")).toEqual({ count: 1000, windowMs: 3_600_000, text: "1000/h" });
    for (const bad of ["0/min", "60/m", "60 per minute", "-1/s", "1.5/s", "1000000/h", "/min"])
      expect(parseRate(bad)).toBeNull();
  });

  it("refuses the 61st call in a minute with the exact wait, and the upstream sees 60", () => {
    const limiter = new RateLimiter([{ upstream: "usgs", rate: rate("60/min"), toolRates: {} }]);
    let reached = 0;
    for (let i = 0; i < 60; i += 1) if (limiter.take("usgs", "read_discharge", i * 500).ok) reached += 1;
    const refused = limiter.take("usgs", "read_area", 30_250);
    expect(reached).toBe(60);
    expect(refused).toEqual({
      ok: false,
      scope: "upstream",
      rate: rate("60/min"),
      retryAfterMs: 29_750,
      retryAfterS: 30,
      message:
        "rate limit reached: upstream 'usgs' allows 60 calls per minute (60/min); this call was not sent; try again in 30 s",
    });
    // The first call (at 0 ms) leaves the window at 60,000 ms exactly: one more call fits then, not before.
    expect(limiter.take("usgs", "read_area", 59_999).ok).toBe(false);
    expect(limiter.take("usgs", "read_area", 60_000)).toEqual({ ok: true });
    expect(limiter.take("usgs", "read_area", 60_000)).toMatchObject({ ok: false, retryAfterMs: 500, retryAfterS: 1 });
  });

  it("counts a call against both its upstream's and its tool's limit, answering the longer wait", () => {
    const limiter = new RateLimiter([
      { upstream: "usgs", rate: rate("5/s"), toolRates: { read_discharge: rate("2/min") } },
      { upstream: "free", rate: null, toolRates: {} },
    ]);
    expect(limiter.take("usgs", "read_discharge", 0).ok).toBe(true);
    expect(limiter.take("usgs", "read_discharge", 100).ok).toBe(true);
    const tool = limiter.take("usgs", "read_discharge", 200);
    expect(tool).toMatchObject({ ok: false, scope: "tool", retryAfterMs: 59_800, retryAfterS: 60 });
    expect(tool.ok ? "" : tool.message).toBe(
      "rate limit reached: tool 'read_discharge' of upstream 'usgs' allows 2 calls per minute (2/min); this call was not sent; try again in 60 s",
    );
    // Other tools still pass under the upstream's 5/s, which already counted the two calls above.
    expect([300, 400, 500].map((t) => limiter.take("usgs", "read_area", t).ok)).toEqual([true, true, true]);
    expect(limiter.take("usgs", "read_area", 600)).toMatchObject({ ok: false, scope: "upstream", retryAfterMs: 400 });
    for (let i = 0; i < 1000; i += 1) expect(limiter.take("free", "x", 0).ok).toBe(true);
    expect(limiter.take("unknown", "x", 0).ok).toBe(true);
  });
});

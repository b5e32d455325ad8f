// Large requests take turns (src/api/large-lane.ts): one at a time, with a pause after each that bounds their share
// of the service's time, while small requests are never held by the lane.
import { describe, expect, it } from "vitest";
import { LargeLane } from "../../src/api/large-lane.js";
import { createTestApp } from "../helpers/db.js";
import { factsOnOneKey } from "../helpers/largest.js";

const settle = () => new Promise((r) => setTimeout(r, 60));

/** Asks `lane` for a turn: `inside()` tells whether it was let in yet, `end` (awaited) ends the turn once it was. */
function waitFor(lane: LargeLane) {
  let inside = false;
  const end = lane.enter().then((e) => {
    inside = true;
    return e;
  });
  return { inside: () => inside, end };
}

describe("the lane of large requests", () => {
  it("lets one in at a time, in arrival order", async () => {
    const lane = new LargeLane(1);
    const order: string[] = [];
    const endA = await lane.enter();
    const b = lane.enter().then((end) => {
      order.push("b");
      return end;
    });
    const c = lane.enter().then((end) => {
      order.push("c");
      return end;
    });
    await settle();
    expect(order).toEqual([]);
    endA();
    const endB = await b;
    await settle();
    expect(order).toEqual(["b"]);
    endB();
    (await c)();
    expect(order).toEqual(["b", "c"]);
  });

  it("stays closed after a request for three times what it took at a share of 0.25", async () => {
    let clock = 1_000;
    const lane = new LargeLane(0.25, () => clock);
    const endA = await lane.enter();
    clock = 1_005;
    lane.seenSmall();
    clock = 1_010; // A held the lane 10 ms: it stays closed until 1_040
    endA();
    const b = waitFor(lane);
    clock = 1_039;
    await settle();
    expect(b.inside()).toBe(false);
    clock = 1_040;
    (await b.end)();
    expect(b.inside()).toBe(true);
  });

  it("keeps no pause when no small request came in the last second: a lone bulk client goes straight on", async () => {
    let clock = 1_000;
    const lane = new LargeLane(0.25, () => clock);
    lane.seenSmall();
    const endA = await lane.enter();
    clock = 2_010; // A held the lane 1,010 ms, and the last small request came 1,010 ms ago
    endA();
    const b = waitFor(lane);
    await settle();
    expect(b.inside()).toBe(true);
    (await b.end)();
    // A small request now: C holds the lane 20 ms, so D waits the 60 ms pause after it.
    lane.seenSmall();
    const endC = await lane.enter();
    clock = 2_030;
    endC();
    const d = waitFor(lane);
    clock = 2_089;
    await settle();
    expect(d.inside()).toBe(false);
    clock = 2_090;
    (await d.end)();
    expect(d.inside()).toBe(true);
  });

  it("answers a small request while a large one waits for its turn", async () => {
    // A share of 0.05: after the first large evaluation the lane stays closed 19 times as long as it took.
    const t = createTestApp({ config: { largeShare: 0.05 } });
    const large = factsOnOneKey(200, "lane");
    expect(JSON.stringify(large).length).toBeGreaterThan(16 * 1024);
    expect((await t.call("POST", "/v1/evaluations", { body: large })).status).toBe(200);
    // Someone else is using the service, so the lane keeps its pause.
    expect((await t.call("GET", "/v1/sessions")).status).toBe(200);
    const order: string[] = [];
    const second = t.call("POST", "/v1/evaluations", { body: large }).then((r) => order.push(`large ${r.status}`));
    const small = t.call("POST", "/v1/sessions", { body: { context: "small" } }).then((r) => {
      order.push(`small ${r.status}`);
    });
    await small;
    expect(order).toEqual(["small 201"]);
    await second;
    expect(order).toEqual(["small 201", "large 200"]);
  }, 30_000);
});

// A largest request is cut into phases that each give the event loop back: reading and checking the body, then
// validating, then deciding and recording (an evaluation) or checking and recording (a call, through the write batch).
// Counted in turns, not milliseconds, so a loaded machine cannot make it flake.
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { createTestApp, type TestApp } from "../helpers/db.js";
import { factsOnOneKey } from "../helpers/largest.js";

/** How many times the event loop turned (setImmediate callbacks ran) while `path` answered `body`, and the status. */
async function turnsDuring(t: TestApp, path: string, body: unknown): Promise<[number, number]> {
  let turns = 0;
  let counting = true;
  const tick = () => {
    turns++;
    if (counting) setImmediate(tick);
  };
  const text = JSON.stringify(body);
  const pending = t.app.request(path, { method: "POST", headers: t.authHeaders(), body: text });
  setImmediate(tick);
  const r = await pending;
  await r.arrayBuffer();
  counting = false;
  return [turns, r.status];
}

const largestArgs = Object.fromEntries(
  Array.from({ length: DEFAULT_LIMITS.crossings }, (_, i) => [`arg${i}`, `value ${i}`]),
);

describe("a largest request yields between its phases", () => {
  it("lets the loop turn at least twice while a largest evaluation (1,000 claims) is answered", async () => {
    const t = createTestApp();
    await turnsDuring(t, "/v1/evaluations", factsOnOneKey(DEFAULT_LIMITS.claims, "warm"));
    const [turns, status] = await turnsDuring(t, "/v1/evaluations", factsOnOneKey(DEFAULT_LIMITS.claims, "largest"));
    expect(status).toBe(200);
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it("lets the loop turn at least twice while a largest call (1,000 arguments) is answered", async () => {
    const t = createTestApp();
    const id = ((await t.call("POST", "/v1/sessions", { body: {} })).body as { id: string }).id;
    await turnsDuring(t, `/v1/sessions/${id}/calls`, { tool: "undeclared", args: largestArgs });
    const [turns, status] = await turnsDuring(t, `/v1/sessions/${id}/calls`, { tool: "undeclared", args: largestArgs });
    expect(status).toBe(200);
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it("answers a small evaluation in one piece, without waiting a turn", async () => {
    const t = createTestApp();
    await turnsDuring(t, "/v1/evaluations", factsOnOneKey(3, "warm"));
    const [turns, status] = await turnsDuring(t, "/v1/evaluations", factsOnOneKey(3, "small"));
    expect(status).toBe(200);
    expect(turns).toBe(0);
  });
});

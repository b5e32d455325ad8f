import { describe, expect, it } from "vitest";
import { jsonProblem } from "../../src/api/json-guard.js";
import { createTestApp, type TestApp } from "../helpers/db.js";

type Answer = {
  status: number;
  body: { error?: { code: string; message: string; details?: unknown } } & Record<string, unknown>;
};

async function raw(t: TestApp, path: string, body: string | Uint8Array, type = "application/json"): Promise<Answer> {
  const res = await t.app.request(path, {
    method: "POST",
    headers: { authorization: `Bearer ${t.adminToken}`, "content-type": type },
    body,
  });
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

async function session(t: TestApp): Promise<string> {
  return ((await t.call("POST", "/v1/sessions", { body: {} })).body as { id: string }).id;
}

const count = (t: TestApp, table: string) =>
  t.db.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

describe("request bodies JSON.parse would alter", () => {
  it("refuses bytes that are not UTF-8 with 400 instead of storing U+FFFD in their place", async () => {
    const t = createTestApp();
    const before = count(t, "sessions");
    const body = Uint8Array.from([...Buffer.from('{"context":"ab'), 0xff, 0xfe, ...Buffer.from('cd"}')]);
    const r = await raw(t, "/v1/sessions", body);
    expect(r).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: "the request body is not valid UTF-8: send the JSON encoded as UTF-8",
        },
      },
    });
    expect(count(t, "sessions")).toBe(before);
  });

  it("still accepts U+FFFD itself when the client sent it as UTF-8", async () => {
    const t = createTestApp();
    const r = await raw(t, "/v1/sessions", '{"context":"ab\uFFFDcd"}');
    expect([r.status, r.body.context]).toEqual([201, "ab\uFFFDcd"]);
  });

  it("refuses 1e309 in a pass-through argument, which JSON.parse reads as Infinity and the store would keep as null", async () => {
    const t = createTestApp();
    const id = await session(t);
    const r = await raw(t, `/v1/sessions/${id}/calls`, '{"tool":"undeclared","args":{"depth":1e309}}');
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: "invalid_request",
      message:
        "invalid request body (at args.depth): a number beyond the range of a 64-bit float (such as 1e309) would be read as infinity: send finite numbers (at most about 1.8e308)",
      details: [
        {
          path: "args.depth",
          message:
            "a number beyond the range of a 64-bit float (such as 1e309) would be read as infinity: send finite numbers (at most about 1.8e308)",
        },
      ],
    });
    expect(t.db.sqlite.prepare("SELECT count(*) FROM calls WHERE session_id = ?").pluck().get(id)).toBe(0);
  });

  it("accepts 64 levels of nesting and refuses one more with 413 too_deep, where 10,000 levels used to overflow the stack (500)", async () => {
    const t = createTestApp();
    const id = await session(t);
    // The body object and `args` are two levels; the arrays inside make up the rest.
    const nested = (arrays: number) => `{"tool":"undeclared","args":{"a":${"[".repeat(arrays)}${"]".repeat(arrays)}}}`;
    expect((await raw(t, `/v1/sessions/${id}/calls`, nested(62))).status).toBe(200);
    const deeper = await raw(t, `/v1/sessions/${id}/calls`, nested(63));
    expect([deeper.status, deeper.body.error?.code, deeper.body.error?.details]).toEqual([
      413,
      "too_deep",
      { limit: 64, count: 65, setting: "AGENT_LEDGER_MAX_DEPTH" },
    ]);
    expect(deeper.body.error?.message).toBe(
      "the request body nests objects and arrays 65 levels deep, over the limit of 64: send flatter JSON, or raise AGENT_LEDGER_MAX_DEPTH",
    );
    const huge = await raw(t, `/v1/sessions/${id}/calls`, nested(10_000));
    expect([huge.status, huge.body.error?.code]).toEqual([413, "too_deep"]);
    expect(t.db.sqlite.prepare("SELECT count(*) FROM calls WHERE session_id = ?").pluck().get(id)).toBe(1);
  });

  it("leaves malformed JSON to the route's validator, which names it", async () => {
    const t = createTestApp();
    const r = await raw(t, "/v1/sessions", '{"context": NaN}');
    expect(r).toEqual({
      status: 400,
      body: {
        error: { code: "invalid_request", message: "malformed JSON in the request body: send one JSON document" },
      },
    });
  });
});

describe("jsonProblem", () => {
  it("finds -Infinity in an array and names its path", () => {
    expect(jsonProblem({ a: [1, 2, -Infinity] })?.path).toBe("a.2");
  });

  it("passes scalars, empty containers and exactly the deepest allowed nesting", () => {
    expect([jsonProblem(5), jsonProblem("x"), jsonProblem(null), jsonProblem({}), jsonProblem([])]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    const deep = (n: number): unknown => (n === 0 ? [] : [deep(n - 1)]);
    expect(jsonProblem(deep(3), 4)).toBeNull();
    expect(jsonProblem(deep(4), 4)?.message).toBe(
      "objects and arrays are nested deeper than 4 levels: send flatter JSON",
    );
  });

  it("spells a path as keys joined by dots, and stops growing it once it reaches 200 characters", () => {
    const key = "k".repeat(90);
    const value = { [key]: { [key]: { [key]: { last: Number.NEGATIVE_INFINITY } } } };
    expect(jsonProblem(value)?.path).toBe(`${key}.${key}.${key}`);
    expect(jsonProblem({ a: { b: [0, { __proto__x: 1, c: Number.NaN }] } })?.path).toBe("a.b.1.c");
  });

  it("reports, of two problems, the one the walk meets first: the last key's", () => {
    expect(jsonProblem({ a: Number.POSITIVE_INFINITY, b: { c: Number.NaN } })?.path).toBe("b.c");
  });
});

describe("lone surrogates in a body of valid UTF-8", () => {
  it("refuses an upper-case escaped low surrogate as it does a lower-case high one", async () => {
    const t = createTestApp();
    const r = await raw(t, "/v1/sessions", '{"context":"ab\\uDC00cd"}');
    expect([r.status, r.body.error?.code]).toEqual([400, "invalid_text"]);
  });

  it("stores a backslash followed by the letters ud800 as the text it is", async () => {
    const t = createTestApp();
    const r = await raw(t, "/v1/sessions", '{"context":"a\\\\ud800b"}');
    expect([r.status, r.body.context]).toEqual([201, "a\\ud800b"]);
  });
});

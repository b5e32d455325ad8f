import { describe, expect, it } from "vitest";
import { createTestApp } from "../helpers/db.js";

type Answer = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers under test

describe("POST /v1/convert", () => {
  const t = createTestApp();
  const convert = (body: unknown) => t.call("POST", "/v1/convert", { body }) as Promise<Answer>;

  it("converts 1250 cfs to 35.39605824 m^3/s", async () => {
    const r = await convert({ quantity: "1250 cfs", to: { unit: "m**3/s" } });
    expect(r.status).toBe(200);
    expect(r.body.quantity.unit).toBe("m^3/s");
    expect(r.body.quantity.value).toBeCloseTo(35.39605824, 9);
  });
  it("answers the quantity normalised when `to` is empty: quality spelled out, unit canonical", async () => {
    const r = await convert({ quantity: { value: 7.73, unit: "ft**1", quality: "P" }, to: {} });
    expect(r.body).toEqual({ quantity: { value: 7.73, unit: "ft", quality: "provisional" } });
  });
  it.each([
    [{ quantity: "12.4 ft", to: { unit: "m**3/s" } }, "dimensionality_error"],
    [{ quantity: "2*3 cfs", to: { unit: "cfs" } }, "unit_parse_error"],
    [{ quantity: "NaN cfs", to: {} }, "unit_parse_error"],
    [{ quantity: { value: 1, unit: "ft", datum: "ODN" }, to: { datum: "NAP" } }, "datum_conversion_unavailable"],
    [{ quantity: { value: 1, unit: "ft", datum: "MARS" }, to: {} }, "datum_mismatch"],
  ])("answers 422 with the domain code for %j", async (body, code) => {
    const r = await convert(body);
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe(code);
  });
  it.each([
    [{ quantity: { value: "abc", unit: "cfs" }, to: {} }],
    [{ quantity: { value: 1, unit: "cfs", "datum ": "NAVD88" }, to: {} }],
    [{ to: {} }],
  ])("answers 400 invalid_request for %j", async (body) => {
    const r = await convert(body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
  });
});

describe("POST /v1/compute", () => {
  const t = createTestApp();
  const compute = (body: unknown) => t.call("POST", "/v1/compute", { body }) as Promise<Answer>;

  it("differences two NAVD88 elevations into a delta with no datum", async () => {
    const r = await compute({
      op: "sub",
      a: { value: 31, unit: "ft", datum: "NAVD88" },
      b: { value: 28.1, unit: "ft", datum: "NAVD88" },
    });
    expect(r.body.quantity.datum).toBeUndefined();
    expect(r.body.quantity.value).toBeCloseTo(2.9, 12);
  });
  it("reads a plain number as dimensionless", async () => {
    expect((await compute({ op: "mul", a: { value: 5, unit: "ft" }, b: 2 })).body).toEqual({
      quantity: { value: 10, unit: "ft" },
    });
  });
  it("accepts quantity strings as operands, as every quantity input does, and still refuses expressions", async () => {
    expect((await compute({ op: "add", a: "5 ft", b: "2 ft" })).body).toEqual({ quantity: { value: 7, unit: "ft" } });
    expect((await compute({ op: "gt", a: "1 m", b: { value: 3, unit: "ft" } })).body).toEqual({ result: true });
    const r = await compute({ op: "add", a: "2*3 ft", b: "1 ft" });
    expect([r.status, r.body.error.code]).toEqual([422, "unit_parse_error"]);
  });
  it("compares across units", async () => {
    expect((await compute({ op: "gt", a: { value: 1, unit: "m" }, b: { value: 3, unit: "ft" } })).body).toEqual({
      result: true,
    });
    expect((await compute({ op: "eq", a: { value: 1, unit: "m" }, b: { value: 100, unit: "cm" } })).body).toEqual({
      result: true,
    });
  });
  it.each([
    ["add", { value: 1, unit: "ft", datum: "NAVD88" }, { value: 1, unit: "ft", datum: "NAVD88" }, "datum_mismatch"],
    ["sub", { value: 31, unit: "ft", datum: "NAVD88" }, { value: 7.73, unit: "ft", datum: "NGVD29" }, "datum_mismatch"],
    ["mul", { value: 31, unit: "ft", datum: "NAVD88" }, 1, "datum_mismatch"],
    ["add", { value: 1, unit: "m" }, { value: 1, unit: "s" }, "dimensionality_error"],
    ["add", { value: 1, unit: "m", crs: "EPSG:4326" }, { value: 1, unit: "m", crs: "EPSG:26915" }, "crs_mismatch"],
  ])("refuses %s of %j and %j with 422", async (op, a, b, code) => {
    const r = await compute({ op, a, b });
    expect([r.status, r.body.error.code]).toEqual([422, code]);
  });
});

describe("datums", () => {
  it("lists the 22 built-ins and the team's own, and converts only along a registered offset", async () => {
    const t = createTestApp();
    expect(
      ((await t.call("POST", "/v1/datums", { body: { name: "GAGE:DROP", description: "drop structure" } })) as Answer)
        .status,
    ).toBe(201);
    const reg = (await t.call("GET", "/v1/datums")) as Answer;
    expect(reg.body.items.filter((d: { builtin: boolean }) => d.builtin)).toHaveLength(22);
    expect(reg.body.items.map((d: { name: string }) => d.name)).toContain("GAGE:DROP");
    const before = (await t.call("POST", "/v1/convert", {
      body: { quantity: { value: 12.4, unit: "ft", datum: "GAGE:DROP" }, to: { datum: "NAVD88" } },
    })) as Answer;
    expect(before.body.error.code).toBe("datum_conversion_unavailable");
    const off = (await t.call("POST", "/v1/datums/offsets", {
      body: { from: "GAGE:DROP", to: "NAVD88", offset: { value: 1.5, unit: "ft" } },
    })) as Answer;
    expect(off.status).toBe(201);
    const after = (await t.call("POST", "/v1/convert", {
      body: { quantity: { value: 12.4, unit: "ft", datum: "GAGE:DROP" }, to: { datum: "NAVD88" } },
    })) as Answer;
    expect(after.body.quantity.datum).toBe("NAVD88");
    expect(after.body.quantity.value).toBeCloseTo(13.9, 10);
  });
  it("refuses a bare-number offset (400), an unknown datum (422 naming it) and an existing name (409)", async () => {
    const t = createTestApp();
    const bare = (await t.call("POST", "/v1/datums/offsets", {
      body: { from: "NAVD88", to: "NGVD29", offset: 0.3 },
    })) as Answer;
    expect(bare.status).toBe(400);
    expect(bare.body.error.details).toEqual([
      {
        path: "offset",
        message: 'a datum offset states its unit, never a bare number: send {"value": 0.3, "unit": "m"} or "0.3 m"',
      },
    ]);
    const unknown = (await t.call("POST", "/v1/datums/offsets", {
      body: { from: "MARS", to: "NGVD29", offset: { value: 1, unit: "m" } },
    })) as Answer;
    expect([unknown.status, unknown.body.error.code]).toEqual([422, "datum_mismatch"]);
    expect(unknown.body.error.message).toMatch(/unknown datum 'MARS'/);
    expect(((await t.call("POST", "/v1/datums", { body: { name: "NAVD88" } })) as Answer).status).toBe(409);
    const notLength = (await t.call("POST", "/v1/datums/offsets", {
      body: { from: "NAVD88", to: "NGVD29", offset: "3 s" },
    })) as Answer;
    expect([notLength.status, notLength.body.error.code]).toEqual([422, "dimensionality_error"]);
  });
  it("pages the registry with limit and cursor like every list: default 50, at most 500", async () => {
    const t = createTestApp();
    const token = t.teamToken("pager");
    for (let i = 0; i < 30; i++)
      await t.call("POST", "/v1/datums", { body: { name: `LOCAL${String(i).padStart(2, "0")}` }, token });
    const whole = (await t.call("GET", "/v1/datums?limit=500", { token })) as Answer;
    expect([whole.body.items.length, whole.body.next_cursor]).toEqual([52, null]);
    const first = (await t.call("GET", "/v1/datums", { token })) as Answer;
    expect(first.body.items).toHaveLength(50);
    expect(typeof first.body.next_cursor).toBe("string");
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await t.call("GET", `/v1/datums?limit=20${cursor ? `&cursor=${cursor}` : ""}`, {
        token,
      })) as Answer;
      names.push(...page.body.items.map((d: { name: string }) => d.name));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(names).toEqual(whole.body.items.map((d: { name: string }) => d.name));
    const tooMany = (await t.call("GET", "/v1/datums?limit=501", { token })) as Answer;
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, "invalid_request"]);
    expect(((await t.call("GET", "/v1/datums?cursor=bm9wZQ", { token })) as Answer).status).toBe(400);
  });
  it("never shows team A's datum registrations to team B", async () => {
    const t = createTestApp();
    const a = t.teamToken("a");
    const b = t.teamToken("b");
    await t.call("POST", "/v1/datums", { body: { name: "GAGE:A1" }, token: a });
    await t.call("POST", "/v1/datums/offsets", { body: { from: "GAGE:A1", to: "NAVD88", offset: "2 ft" }, token: a });
    const seen = (await t.call("GET", "/v1/datums", { token: b })) as Answer;
    expect(seen.body.items.map((d: { name: string }) => d.name)).not.toContain("GAGE:A1");
    expect(seen.body.offsets).toEqual([]);
    const use = (await t.call("POST", "/v1/convert", {
      body: { quantity: { value: 1, unit: "ft", datum: "GAGE:A1" }, to: {} },
      token: b,
    })) as Answer;
    expect(use.body.error.code).toBe("datum_mismatch");
  });
});

import { describe, expect, it } from "vitest";
import { PageQuerySchema, decodeCursor, encodeCursor, toPage } from "../../src/api/http.js";

describe("pagination", () => {
  it("defaults limit to 50 and refuses 0 and 501", () => {
    expect(PageQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(PageQuerySchema.parse({ limit: "500", cursor: "abc" })).toEqual({ limit: 500, cursor: "abc" });
    expect(PageQuerySchema.safeParse({ limit: "0" }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ limit: "501" }).success).toBe(false);
  });

  it("round-trips a sort key through an opaque cursor", () => {
    const cursor = encodeCursor(["2026-11-30T04:00:00.000Z", "01J0000000000000000000000A", 3]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(["2026-11-30T04:00:00.000Z", "01J0000000000000000000000A", 3]);
    expect(decodeCursor(undefined)).toBeNull();
  });

  it("refuses a cursor it did not issue with invalid_request", () => {
    expect(() => decodeCursor("not-a-cursor")).toThrow(/cursor is not valid/);
    try {
      decodeCursor(encodeCursor([]));
    } catch (e) {
      expect((e as { code: string }).code).toBe("invalid_request");
    }
  });

  it("cuts limit+1 rows into a page whose cursor is the last item's key", () => {
    const rows = [{ id: "a" }, { id: "b" }, { id: "c" }];
    const page = toPage(rows, 2, (r) => [r.id]);
    expect(page.items).toEqual([{ id: "a" }, { id: "b" }]);
    expect(decodeCursor(page.next_cursor!)).toEqual(["b"]);
    expect(toPage(rows, 3, (r) => [r.id])).toEqual({ items: rows, next_cursor: null });
  });
});

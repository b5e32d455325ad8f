import { describe, expect, it } from "vitest";
import { meetsFloor, normaliseQuality, QUALITY_ALIASES, QualityTable, weakest } from "../../src/quantity/quality.js";

describe("quality", () => {
  it.each(QUALITY_ALIASES.map((a) => [a.code, a.grade]))("maps publisher code %s to %s", (c, g) => {
    expect(normaliseQuality(c)).toBe(g);
  });
  it("keeps single-letter codes case-sensitive: a and r are unknown", () => {
    expect(() => normaliseQuality("a")).toThrowError(expect.objectContaining({ code: "quality_violation" }));
    expect(() => normaliseQuality("r")).toThrowError(/unknown quality flag 'r'/);
  });
  it("matches grade names and longer codes in any case", () => {
    expect(normaliseQuality("APPROVED")).toBe("approved");
    expect(normaliseQuality(" Good ")).toBe("approved");
    expect(normaliseQuality("ice")).toBe("unverified");
    expect(normaliseQuality("unchecked")).toBe("provisional");
  });
  it("lets the weakest grade win, ignoring nulls, ties keeping the first", () => {
    expect(weakest("approved", "provisional")).toBe("provisional");
    expect(weakest(null, "estimated")).toBe("estimated");
    expect(weakest("approved", "reviewed")).toBe("approved");
    expect(weakest(null, null)).toBeNull();
  });
  it("never lets an unflagged value meet a floor; approved floor accepts reviewed", () => {
    expect(meetsFloor(null, "unverified")).toBe(false);
    expect(meetsFloor("reviewed", "approved")).toBe(true);
    expect(meetsFloor("provisional", "estimated")).toBe(false);
  });
  it("extends with another publisher's codes as data", () => {
    const t = new QualityTable().extend([{ code: "Q1", grade: "approved", family: "bom", meaning: "quality code 1" }]);
    expect(t.normalise("Q1")).toBe("approved");
    expect(t.normalise("q1")).toBe("approved");
  });
});

describe("quality flags named like Object members (review)", () => {
  it.each(["constructor", "__proto__", "Constructor"])("refuses %s as an unknown flag, not a grade", (flag) => {
    expect(() => normaliseQuality(flag)).toThrowError(new RegExp(`^unknown quality flag '${flag}'`));
  });
});

import { describe, expect, it } from "vitest";
import { safeNext } from "../../src/ui/auth.js";
import {
  addParam,
  csvCell,
  daysBetween,
  decodeKey,
  encodeKey,
  href,
  percent,
  removeParam,
  withParam,
} from "../../src/ui/format.js";
import { magnitudeOf, stripPoints } from "../../src/ui/pages/claims.js";
import { codeSeries, perDay } from "../../src/ui/pages/overview.js";
import { markAnswer } from "../../src/ui/pages/session.js";

describe("permalinks", () => {
  it("drops empty values, keeps repeated labels, and drops the cursor whenever a filter changes", () => {
    const p = [
      ["label", "run:nightly"],
      ["tool", ""],
      ["cursor", "abc"],
    ] as const;
    expect(href("/ui/sessions", p)).toBe("/ui/sessions?label=run%3Anightly&cursor=abc");
    expect(href("/ui/sessions", addParam(p, "label", "model:m1"))).toBe(
      "/ui/sessions?label=run%3Anightly&label=model%3Am1",
    );
    expect(href("/ui/sessions", withParam(p, "tool", "t"))).toBe("/ui/sessions?label=run%3Anightly&tool=t");
    expect(href("/ui/sessions", removeParam(p, "label", "run:nightly"))).toBe("/ui/sessions");
  });

  it("round-trips a keyset cursor and reads a foreign one as none", () => {
    expect(decodeKey(encodeKey(["2026-11-20T10:00:00.000Z", "01ABC"]))).toEqual(["2026-11-20T10:00:00.000Z", "01ABC"]);
    expect(decodeKey("zzz")).toBeNull();
    expect(decodeKey(Buffer.from("{}").toString("base64url"))).toBeNull();
  });

  it("sends a login back only to a dashboard path on this origin", () => {
    expect(safeNext("/ui/sessions?label=run:nightly")).toBe("/ui/sessions?label=run:nightly");
    expect(safeNext("/ui")).toBe("/ui");
    for (const bad of [
      "https://evil.example",
      "//evil.example",
      "/uix",
      "/ui//evil.example",
      "/ui\\x",
      "/v1/sessions",
      42,
    ])
      expect(safeNext(bad)).toBe("/ui");
  });
});

describe("CSV cells", () => {
  it("quotes commas, quotes and line breaks, and defuses formulas", () => {
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("-2")).toBe("'-2");
    expect(csvCell(-2)).toBe("-2");
  });
});

describe("overview series", () => {
  it("lists every UTC day of a window and fills missing days with zero", () => {
    const days = daysBetween("2026-11-19T00:00:00.000Z", "2026-11-22T00:00:00.000Z");
    expect(days).toEqual(["2026-11-19", "2026-11-20", "2026-11-21"]);
    expect(perDay(days, [{ day: "2026-11-20", n: 4 }], (r) => r.n)).toEqual([0, 4, 0]);
    expect(percent(1, 3)).toBe("33.3%");
    expect(percent(0, 0)).toBe("–");
  });

  it("draws the seven most frequent codes in their own colour and sums the rest as other", () => {
    const codes = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    const rows = codes.map((code, i) => ({ day: "2026-11-20", code, count: 20 - i }));
    const series = codeSeries(["2026-11-20"], rows);
    expect(series.map((s) => [s.name, s.values[0]])).toEqual([
      ["a", 20],
      ["b", 19],
      ["c", 18],
      ["d", 17],
      ["e", 16],
      ["f", 15],
      ["g", 14],
      ["other", 25],
    ]);
  });
});

describe("marking an audited answer", () => {
  it("cuts the answer into text and numbers, each found after the one before", () => {
    const n = (text: string) => ({
      text,
      value: 0,
      unit: null,
      status: "sourced",
      source: null,
      explanation: "",
      callSeq: null,
      crossingId: null,
    });
    const parts = markAnswer("12 ft then 12 ft again", [n("12 ft"), n("12 ft")]);
    expect(parts.map((p) => (typeof p === "string" ? p : `[${p.text}]`))).toEqual([
      "[12 ft]",
      " then ",
      "[12 ft]",
      " again",
    ]);
  });
});

describe("claim values for the strip plot", () => {
  it("reads numbers, quantity strings and quantity objects", () => {
    expect(magnitudeOf(17.2)).toEqual({ value: 17.2, unit: "" });
    expect(magnitudeOf("17.2 ft")).toEqual({ value: 17.2, unit: "ft" });
    expect(magnitudeOf({ value: 5.2, unit: "m" })).toEqual({ value: 5.2, unit: "m" });
    expect(magnitudeOf("about seventeen")).toBeNull();
  });

  it("converts every value into the first one's unit and counts what does not convert", () => {
    const v = (task: string, value: unknown) => ({
      runId: "r",
      task,
      value,
      text: "",
      createdAt: "2026-11-20T10:00:00.000Z",
    });
    const s = stripPoints([v("crest", "17 ft"), v("crest", "5.2 m"), v("crest", "3 kg"), v("crest", "high")]);
    expect(s.unit).toBe("ft");
    expect(s.points.map((p) => Number(p.value.toFixed(4)))).toEqual([17, 17.0604]);
    expect(s.skipped).toBe(2);
  });
});

import { describe, expect, it } from "vitest";
import { globMatch, toolSelected } from "../../src/gateway/glob.js";

describe("tool globs", () => {
  it("matches * as any run and ? as one character, over the whole name", () => {
    const cases: [string, string, boolean][] = [
      ["read_*", "read_discharge", true],
      ["read_*", "read_", true],
      ["read_*", "xread_discharge", false],
      ["*_area", "read_drainage_area", true],
      ["r?n", "run", true],
      ["r?n", "rn", false],
      ["crash", "crash", true],
      ["crash", "crash2", false],
      ["*", "", true],
      ["a*b*c", "aXbYbZc", true],
      ["a*b*c", "aXbYbZ", false],
      ["[ab]", "[ab]", true],
      ["[ab]", "a", false],
    ];
    for (const [glob, name, want] of cases) expect([glob, name, globMatch(glob, name)]).toEqual([glob, name, want]);
  });

  it("is not exponential on many stars", () => {
    const start = Date.now();
    expect(globMatch(`${"a*".repeat(30)}b`, "a".repeat(5000))).toBe(false);
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it("serves a tool that matches an include glob and no exclude glob", () => {
    expect(toolSelected("read_discharge", ["read_*"], ["crash"])).toBe(true);
    expect(toolSelected("crash", null, ["crash"])).toBe(false);
    expect(toolSelected("write_x", ["read_*"], [])).toBe(false);
    expect(toolSelected("anything", null, [])).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { classifySource, classifySources } from "../../src/gates/sources.js";

describe("source locators", () => {
  it.each([
    ["https://example.com/report", "url"],
    ["http://localhost:8787/v1/runs", "url"],
    ["measurement://prototype/workflow-v2", "uri"],
    ["file:///var/data/readings.csv", "uri"],
    ["runs/2026-08-06/RUN_REPORT.md:24", "path"],
    ["docs/report.md", "path"],
    ["./data/raw", "path"],
    ["src/a/b", "path"],
    ["README.md:10-12", "file"],
    ["$ pytest -q tests/test_pipeline.py", "command"],
    ["Companies House 05662277", "registry"],
    ["sheet 12", "position"],
    ["p. 14", "position"],
    ["§3.2", "position"],
    ["cell B12", "position"],
    ["a1b2c3d (commit)", "commit"],
    ["a1b2c3d", "commit"],
    ["commit 9f8e7d6c5b4a", "commit"],
    ["doi:10.1000/xyz123", "doi"],
    ["arXiv:2401.12345v2", "doi"],
  ])("accepts %s as a %s locator", (source, form) => {
    expect(classifySource(source)).toEqual({ kind: "locator", form, text: source });
  });

  it.each([
    "x",
    "trust me",
    "n/a",
    "and/or",
    "yes/no",
    "none",
    "unknown",
    "internet",
    "Google",
    "common knowledge",
    "my memory",
    "training data",
    "https://",
    "$ ",
    "Trust Me 2024",
    "abcdefa",
    "1234567",
    "Appendix B",
  ])("rejects %j as junk", (source) => {
    expect(classifySource(source)).toEqual({ kind: "junk", text: source.trim() });
  });

  it.each([
    "our earlier draft",
    "As stated above",
    "see our earlier draft, p. 3",
    "this report",
    "the previous response",
  ])("rejects %j as circular even when it also looks like a locator", (source) => {
    expect(classifySource(source).kind).toBe("circular");
  });

  it("treats hyphen and underscore as word characters, so a file named this-report.md is not circular", () => {
    expect(classifySource("docs/this-report.md").kind).toBe("locator");
    expect(classifySource("this_report.md").kind).toBe("locator");
  });

  it("rejects a source that cites a claim of the same result as circular", () => {
    const v = classifySource("see F1", new Set(["F1", "F2"]));
    expect(v).toEqual({ kind: "circular", text: "see F1", why: "it names claim F1 of the same result" });
  });

  it("reports an empty or whitespace source as missing", () => {
    expect(classifySource("   ")).toEqual({ kind: "missing" });
    expect(classifySources(undefined)).toEqual([{ kind: "missing" }]);
    expect(classifySources([])).toEqual([{ kind: "missing" }]);
  });

  it("judges every element of a source list", () => {
    expect(classifySources(["docs/report.md", "x"]).map((v) => v.kind)).toEqual(["locator", "junk"]);
  });
});

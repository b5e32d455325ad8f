import { describe, expect, it } from "vitest";
import { decide } from "../../src/gates/decide.js";
import { renderJson, renderMarkdown } from "../../src/gates/report.js";
import { goodInput } from "./build.js";

describe("reports", () => {
  it("renders JSON that parses back to the decision", () => {
    const d = decide(goodInput());
    expect(JSON.parse(renderJson(d))).toEqual(d);
  });

  it("renders a released decision in Markdown with every gate row and no findings", () => {
    const md = renderMarkdown(decide(goodInput()), { title: "result.json" });
    expect(md).toBe(
      [
        "# Release report: result.json",
        "",
        "**Release: RELEASED**",
        "",
        "Overall score: 100.0 of 100. This figure is for trend tracking; gates are conjunctive and the score does not block.",
        "",
        "| Gate | Status | Score | Errors | Warnings |",
        "|---|---|---:|---:|---:|",
        "| contract | passed | 100.0 | 0 | 0 |",
        "| outcome | passed | 100.0 | 0 | 0 |",
        "| evidence | passed | 100.0 | 0 | 0 |",
        "| provenance | passed | 100.0 | 0 | 0 |",
        "| baseline | passed | 100.0 | 0 | 0 |",
        "| statistics | passed | 100.0 | 0 | 0 |",
        "| simplicity | passed | 100.0 | 0 | 0 |",
        "| explainability | passed | 100.0 | 0 | 0 |",
        "| contradiction | passed | 100.0 | 0 | 0 |",
        "| stability | not_applicable | n/a | 0 | 0 |",
        "| adversarial | passed | 100.0 | 0 | 0 |",
        "",
        "## Findings",
        "",
        "### stability: not_applicable",
        "",
        "- `NOT_COMPARABLE` [info]: Not comparable yet: one run and no earlier run of this task with the same keys; there is nothing to compare it with.",
        "",
      ].join("\n"),
    );
  });

  it("lists blocking gates and findings with their claim in Markdown", () => {
    const raw = goodInput();
    const claims = raw.claims as Record<string, unknown>[];
    claims[0] = { ...claims[0], source: "x" };
    const md = renderMarkdown(decide(raw));
    expect(md).toContain("**Release: BLOCKED** (blocked by evidence)");
    expect(md).toContain("| evidence | blocked | 0.0 | 1 | 0 |");
    expect(md).toContain(
      '### evidence: blocked\n\n- `SOURCE_NOT_LOCATOR` (claim F1): Fact F1 cites "x", which is not a locator;',
    );
  });

  it("says the score blocks as well as the gates when gates are not conjunctive", () => {
    expect(renderMarkdown(decide(goodInput()), { conjunctive: false, minScore: 80 })).toContain(
      "Gates are not conjunctive: a blocked gate blocks the release, and so does a score below 80.",
    );
  });
});

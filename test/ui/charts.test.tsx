import { describe, expect, it } from "vitest";
import { legendLayout, StackedBars } from "../../src/ui/charts/bars.js";
import { linear, niceTicks, rangeTicks, tickLabel } from "../../src/ui/charts/scale.js";
import { drifted, median, StripPlot } from "../../src/ui/charts/strip.js";

const svg = (el: unknown) => String(el);

describe("chart scales", () => {
  it("picks whole-number ticks 1, 2 or 5 times a power of ten apart, reaching the maximum", () => {
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(3)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(1)).toEqual([0, 1]);
    expect(niceTicks(1234)).toEqual([0, 500, 1000, 1500]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it("spans a value range that need not start at zero, padding a single value", () => {
    expect(rangeTicks(10, 35)).toEqual([10, 20, 30, 40]);
    expect(rangeTicks(17.2, 17.2)).toEqual([16, 16.5, 17, 17.5, 18, 18.5]);
  });

  it("maps linearly and labels thousands compactly", () => {
    expect(linear(0, 10, 100, 0)(2.5)).toBe(75);
    expect([tickLabel(950), tickLabel(12_000), tickLabel(1_500_000)]).toEqual(["950", "12k", "1.5M"]);
  });
});

describe("StackedBars", () => {
  const bars = (values: number[][]) =>
    svg(
      <StackedBars
        label="Calls per day"
        categories={["2026-11-20", "2026-11-21"]}
        series={[
          { key: "passed", name: "passed", values: values[0]! },
          { key: "refused", name: "refused", values: values[1]! },
        ]}
        size={{ width: 300, height: 146 }}
      />,
    );

  it("stacks each day's series from the axis up, one rect per non-zero value with its tooltip", () => {
    const out = bars([
      [2, 1],
      [0, 3],
    ]);
    // Plot height 146 - 24 - 22 = 100 px for ticks 0..4 (max total 4): 25 px a call.
    expect(out).toContain(
      '<rect class="s-passed" x="57.6" y="74.0" width="96.7" height="50.0"><title>2026-11-20: 2 passed</title></rect>',
    );
    expect(out).toContain(
      '<rect class="s-passed" x="181.6" y="99.0" width="96.7" height="25.0"><title>2026-11-21: 1 passed</title></rect>',
    );
    expect(out).toContain(
      '<rect class="s-refused" x="181.6" y="24.0" width="96.7" height="75.0"><title>2026-11-21: 3 refused</title></rect>',
    );
    expect(out).not.toContain("2026-11-20: 0 refused");
    expect(out.match(/<g class="tick">/g)).toHaveLength(5);
  });

  it("labels itself for screen readers and draws no inline style", () => {
    const out = bars([
      [1, 1],
      [1, 1],
    ]);
    expect(out).toMatch(
      /^<svg class="chart" viewBox="0 0 300 146" width="300" height="146" role="img" aria-label="Calls per day">/,
    );
    expect(out).not.toContain("style=");
  });

  it("says so when the window has no days", () => {
    const out = svg(<StackedBars label="x" categories={[]} series={[]} size={{ width: 300, height: 146 }} />);
    expect(out).toContain(">nothing in this window</text>");
  });

  it("wraps the legend onto a new row when the next name would pass the edge", () => {
    expect(legendLayout(["passed", "converted"], 680)).toEqual([
      { x: 44, row: 0 },
      { x: 115.6, row: 0 },
    ]);
    const rows = legendLayout(["unconverted_carry_over", "dimensionality_error", "unit_parse_error"], 400).map(
      (l) => l.row,
    );
    expect(rows).toEqual([0, 0, 1]);
  });
});

describe("StripPlot", () => {
  it("draws one row per task and marks a value far from its task's median as drifted", () => {
    const out = svg(
      <StripPlot
        label="Crest stage by task"
        unit="ft"
        points={[
          { group: "crest", value: 17.1, label: "a" },
          { group: "crest", value: 17.2, label: "b" },
          { group: "crest", value: 19.5, label: "c" },
          { group: "flood", value: 17.15, label: "d" },
        ]}
        size={{ width: 600, height: 0 }}
      />,
    );
    expect(out.match(/<g class="row">/g)).toHaveLength(2);
    expect(out.match(/class="dot drift"/g)).toHaveLength(1);
    expect(out).toMatch(/<circle class="dot drift" cx="[\d.]+" cy="30" r="6"><title>c<\/title><\/circle>/);
    expect(out).toContain(">value (ft)</text>");
  });

  it("takes the median and the drift threshold as data", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(drifted(17.2, 17.1)).toBe(false);
    expect(drifted(19.5, 17.2)).toBe(true);
  });
});

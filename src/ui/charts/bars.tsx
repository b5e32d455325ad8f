// A stacked bar chart over days, rendered as SVG on the server. Pure: (series, size) => JSX. Colours come from CSS
// classes (`s-<key>`), never inline styles, so the page keeps a strict style-src.
import type { Child } from "hono/jsx";
import { linear, niceTicks, tickLabel } from "./scale.js";

/** One stacked series: a CSS key for its colour, a legend name, and one value per category. */
export type BarSeries = { key: string; name: string; values: readonly number[] };

/** The drawing area in CSS pixels. */
export type ChartSize = { width: number; height: number };

const M = { top: 24, right: 8, bottom: 22, left: 44 };
const LEGEND_ROW = 16;

/** Where each legend entry goes: left to right, wrapping to a new row when the next would pass the right edge. */
export function legendLayout(names: readonly string[], width: number): { x: number; row: number }[] {
  let x = M.left;
  let row = 0;
  return names.map((n) => {
    const w = 22 + n.length * 6.6;
    if (x > M.left && x + w > width - M.right) {
      x = M.left;
      row += 1;
    }
    const at = { x, row };
    x += w + 10;
    return at;
  });
}

/** Every `k`-th label, so at most about `max` labels show under the bars. */
function labelEvery(n: number, max: number): number {
  return Math.max(1, Math.ceil(n / max));
}

/**
 * Stacked bars, one column per category (a day), one layer per series, with a y axis, a legend and a tooltip
 * (`<title>`) on each segment giving the day, the series and its count.
 */
export function StackedBars(props: {
  label: string;
  categories: readonly string[];
  series: readonly BarSeries[];
  size: ChartSize;
}): Child {
  const { categories, series, size } = props;
  const totals = categories.map((_, i) => series.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  const ticks = niceTicks(Math.max(0, ...totals));
  const top = ticks[ticks.length - 1]!;
  const legend = legendLayout(
    series.map((s) => s.name),
    size.width,
  );
  const mTop = M.top + LEGEND_ROW * Math.max(0, ...legend.map((l) => l.row));
  const plotW = size.width - M.left - M.right;
  const plotH = size.height - mTop - M.bottom;
  const y = linear(0, top, mTop + plotH, mTop);
  const slot = categories.length === 0 ? plotW : plotW / categories.length;
  const barW = Math.max(1, slot * 0.78);
  const every = labelEvery(categories.length, Math.floor(plotW / 48));
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${size.width} ${size.height}`}
      width={size.width}
      height={size.height}
      role="img"
      aria-label={props.label}
    >
      <title>{props.label}</title>
      {series.map((s, i) => (
        <g class="legend">
          <rect
            class={`s-${s.key}`}
            x={legend[i]!.x}
            y={6 + legend[i]!.row * LEGEND_ROW}
            width={10}
            height={10}
            rx={2}
          />
          <text x={legend[i]!.x + 14} y={15 + legend[i]!.row * LEGEND_ROW}>
            {s.name}
          </text>
        </g>
      ))}
      {ticks.map((t) => (
        <g class="tick">
          <line x1={M.left} x2={size.width - M.right} y1={y(t)} y2={y(t)} />
          <text x={M.left - 6} y={y(t) + 4} text-anchor="end">
            {tickLabel(t)}
          </text>
        </g>
      ))}
      {categories.map((day, i) => {
        let base = 0;
        const x = M.left + i * slot + (slot - barW) / 2;
        return (
          <g class="bar">
            {series.map((s) => {
              const v = s.values[i] ?? 0;
              if (v <= 0) return null;
              const y0 = y(base);
              base += v;
              return (
                <rect
                  class={`s-${s.key}`}
                  x={x.toFixed(1)}
                  y={y(base).toFixed(1)}
                  width={barW.toFixed(1)}
                  height={(y0 - y(base)).toFixed(1)}
                >
                  <title>{`${day}: ${v} ${s.name}`}</title>
                </rect>
              );
            })}
            {i % every === 0 ? (
              <text class="x" x={(x + barW / 2).toFixed(1)} y={size.height - 6} text-anchor="middle">
                {day.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
      {categories.length === 0 ? (
        <text class="empty" x={size.width / 2} y={mTop + plotH / 2} text-anchor="middle">
          nothing in this window
        </text>
      ) : null}
    </svg>
  );
}

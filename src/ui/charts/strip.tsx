// A strip plot: one row per group (a task), each value a dot on a shared axis, so a value that drifted from its
// group stands apart. Pure: (points, size) => JSX; colours are CSS classes.
import type { Child } from "hono/jsx";
import { linear, rangeTicks, tickLabel } from "./scale.js";
import type { ChartSize } from "./bars.js";

/** One value of a group; `label` is its tooltip. */
export type StripPoint = { group: string; value: number; label: string };

/** The middle value of a sorted copy (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Relative distance from the group's median past which a dot is drawn as drifted. */
export const DRIFT = 0.05;

/** Whether `v` lies more than DRIFT (relative) away from `mid`. */
export function drifted(v: number, mid: number): boolean {
  const scale = Math.max(Math.abs(mid), Number.EPSILON);
  return Math.abs(v - mid) / scale > DRIFT;
}

// The axis title sits under the tick labels, centred, so it never runs into the first tick ("value (cfs950k").
const M = { top: 12, right: 24, bottom: 46, left: 170 };
const ROW = 36;

/** The strip plot; its height grows with the number of groups (`size.height` is ignored). */
export function StripPlot(props: {
  label: string;
  unit: string;
  points: readonly StripPoint[];
  size: ChartSize;
}): Child {
  const groups = [...new Set(props.points.map((p) => p.group))];
  const values = props.points.map((p) => p.value);
  const ticks = values.length === 0 ? [0, 1] : rangeTicks(Math.min(...values), Math.max(...values));
  const height = M.top + M.bottom + Math.max(1, groups.length) * ROW;
  const x = linear(ticks[0]!, ticks[ticks.length - 1]!, M.left, props.size.width - M.right);
  return (
    <svg
      class="chart strip"
      viewBox={`0 0 ${props.size.width} ${height}`}
      width={props.size.width}
      height={height}
      role="img"
      aria-label={props.label}
    >
      <title>{props.label}</title>
      {ticks.map((t) => (
        <g class="tick">
          <line x1={x(t)} x2={x(t)} y1={M.top} y2={height - M.bottom} />
          <text x={x(t)} y={height - M.bottom + 16} text-anchor="middle">
            {tickLabel(t)}
          </text>
        </g>
      ))}
      <text class="unit" x={(M.left + props.size.width - M.right) / 2} y={height - 8} text-anchor="middle">
        {props.unit === "" ? "value" : `value (${props.unit})`}
      </text>
      {groups.map((g, row) => {
        const cy = M.top + row * ROW + ROW / 2;
        const mine = props.points.filter((p) => p.group === g);
        const mid = median(mine.map((p) => p.value));
        return (
          <g class="row">
            <text class="group" x={M.left - 8} y={cy + 4} text-anchor="end">
              {g.length > 22 ? `${g.slice(0, 21)}…` : g}
            </text>
            <line class="median" x1={x(mid)} x2={x(mid)} y1={cy - 12} y2={cy + 12} />
            {mine.map((p) => (
              <circle class={drifted(p.value, mid) ? "dot drift" : "dot"} cx={x(p.value).toFixed(1)} cy={cy} r={6}>
                <title>{p.label}</title>
              </circle>
            ))}
          </g>
        );
      })}
    </svg>
  );
}

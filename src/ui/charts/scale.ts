// Axis arithmetic shared by the SVG charts: round tick steps and a linear scale. Pure.

/**
 * Ticks from 0 to a round maximum at or above `max`, at most `n + 1` of them (1, 2 or 5 times a power of ten apart);
 * whole numbers only, since the bars count things.
 */
export function niceTicks(max: number, n = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / n;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow);
  const ticks: number[] = [];
  for (let t = 0; t < max + step / 2 && ticks.length <= n + 1; t += step) ticks.push(Number(t.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

/** Ticks spanning [min, max] for a value axis that need not start at zero. */
export function rangeTicks(min: number, max: number, n = 4): number[] {
  if (!(max > min)) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.05;
    return rangeTicks(min - pad, max + pad, n);
  }
  const raw = (max - min) / n;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let t = Math.floor(min / step) * step; t < max + step; t += step) {
    ticks.push(Number(t.toPrecision(12)));
    if (t >= max) break;
  }
  return ticks;
}

/** Maps [d0, d1] linearly onto [r0, r1]. */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/** A tick label: compact thousands (12k, 1.5M) so a dense axis stays readable. */
export function tickLabel(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  return String(Number(v.toPrecision(6)));
}

// Numbers in prose: every numeric literal of a question, for the sourced-input check (identifiers and years included).

const NUMBER = /(?<![A-Za-z0-9_.])-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

/** Every numeric literal in a text, commas dropped ("29,000 km2" gives 29000; "07374000" gives 7374000). */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const n = Number(m[0].replace(/,/g, ""));
    if (Number.isFinite(n)) out.push(n);
  }
  return out;
}

/** Relative closeness used by provenance (0 matches only 0). */
export function within(x: number, ref: number, rel: number): boolean {
  if (ref === 0) return Math.abs(x) < 1e-12;
  return Math.abs(x - ref) / Math.abs(ref) <= rel;
}

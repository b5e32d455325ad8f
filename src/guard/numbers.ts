// Closeness of a number to a reference, shared by the sourced-input check and the answer audit.

/** Relative closeness used by provenance (0 matches only 0). */
export function within(x: number, ref: number, rel: number): boolean {
  if (ref === 0) return Math.abs(x) < 1e-12;
  return Math.abs(x - ref) / Math.abs(ref) <= rel;
}

// Names a misspelled key's right spelling: `label` for `labels`, `to_units` for `to_unit`. Used by the request schemas'
// messages, so a client reads what to send instead of only what was wrong.

/** Levenshtein distance between two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/** The accepted key a misspelled one most likely meant (case aside, at most two edits or a third of it), or null. */
export function closestKey(key: string, accepted: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of accepted) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : null;
}

/** The message for keys a strict object does not take: each with its likely spelling, then the keys it takes. */
export function unknownKeysMessage(keys: readonly string[], accepted: readonly string[]): string {
  const each = keys.map((k) => {
    const near = closestKey(k, accepted);
    return near === null ? `"${k}"` : `"${k}" (did you mean "${near}"?)`;
  });
  return `unknown field${keys.length > 1 ? "s" : ""} ${each.join(", ")}; accepted: ${accepted.join(", ")}`;
}

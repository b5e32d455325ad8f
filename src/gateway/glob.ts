// Tool-name globs for a gateway upstream's include and exclude lists: `*` any run of characters (none included), `?`
// exactly one; every other character stands for itself. Nothing else (no classes, no braces) so a name that holds
// `[` or `{` never surprises anyone.

/** Whether `name` matches `glob` (whole name, case-sensitive, `*` and `?` only). */
export function globMatch(glob: string, name: string): boolean {
  // Iterative wildcard matching with one backtrack point: linear in practice, never exponential.
  let g = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    const c = glob[g];
    if (c === "?" || (c !== undefined && c !== "*" && c === name[n])) {
      g += 1;
      n += 1;
    } else if (c === "*") {
      star = g;
      mark = n;
      g += 1;
    } else if (star >= 0) {
      g = star + 1;
      mark += 1;
      n = mark;
    } else return false;
  }
  while (glob[g] === "*") g += 1;
  return g === glob.length;
}

/** Whether an upstream tool is served: it matches an include glob (or there is no include list) and no exclude glob. */
export function toolSelected(name: string, include: readonly string[] | null, exclude: readonly string[]): boolean {
  if (include !== null && !include.some((g) => globMatch(g, name))) return false;
  return !exclude.some((g) => globMatch(g, name));
}

// Text that is not valid Unicode: JSON.parse turns an escaped "\ud800" into a lone surrogate, which SQLite and
// PostgreSQL would store as bytes that are not UTF-8 and answer back as replacement characters. Refused where it enters.

/** A string or an object key holding a lone surrogate; `path` names where. */
export class InvalidTextError extends Error {
  readonly code = "invalid_text";
  readonly details: { path: string };
  constructor(rawPath: string) {
    // A key may itself hold the surrogate: the message names the place without repeating the bad text.
    const path = rawPath.replace(/[\uD800-\uDFFF]/gu, "?");
    super(
      `the text${path ? ` at ${path}` : ""} is not valid Unicode: it holds a lone surrogate (such as an escaped \\ud800 ` +
        "without its pair); send the characters themselves, or a complete surrogate pair",
    );
    this.name = "InvalidTextError";
    this.details = { path };
  }
}

// In a /u regular expression a surrogate pair is one code point, so a surrogate class matches only a lone one.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** True when a string holds no lone surrogate. */
export function isWellFormedText(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/** The path of the first string or key in a value that is not valid Unicode, or null. Iterative: values may be deep. */
export function illFormedTextPath(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === "string") {
      if (!isWellFormedText(v)) return path;
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    const short = path.length < 200;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push([v[i], short ? `${path}[${i}]` : path]);
      continue;
    }
    for (const [k, x] of Object.entries(v)) {
      const at = short ? (path ? `${path}.${k}` : k) : path;
      if (!isWellFormedText(k)) return at;
      stack.push([x, at]);
    }
  }
  return null;
}

/** Throws InvalidTextError when any string or key in the value is not valid Unicode. */
export function checkText(value: unknown): void {
  const path = illFormedTextPath(value);
  if (path !== null) throw new InvalidTextError(path);
}

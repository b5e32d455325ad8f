// Presentation helpers shared by the pages: links that keep a filter, keyset cursors, times, numbers and CSV cells.

/** Query parameters of a page: each name with its values in order (a label filter may repeat). */
export type Params = readonly (readonly [string, string])[];

/** The path with its query string; empty values are dropped, so a cleared field leaves no trace in the permalink. */
export function href(path: string, params: Params): string {
  const q = new URLSearchParams();
  for (const [k, v] of params) if (v !== "") q.append(k, v);
  const s = q.toString();
  return s === "" ? path : `${path}?${s}`;
}

/** The params with every `name` replaced by `value` (or removed when null), and the cursor dropped. */
export function withParam(params: Params, name: string, value: string | null): Params {
  const kept = params.filter(([k]) => k !== name && k !== "cursor");
  return value === null ? kept : [...kept, [name, value]];
}

/** The params with one more `name=value` (a repeatable filter such as label), and the cursor dropped. */
export function addParam(params: Params, name: string, value: string): Params {
  const kept = params.filter(([k, v]) => k !== "cursor" && !(k === name && v === value));
  return [...kept, [name, value]];
}

/** The params without one `name=value` pair, and the cursor dropped. */
export function removeParam(params: Params, name: string, value: string): Params {
  return params.filter(([k, v]) => k !== "cursor" && !(k === name && v === value));
}

/** An opaque keyset cursor for a sort key. */
export function encodeKey(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/** The sort key in a cursor, or null when it is absent or not one this service made. */
export function decodeKey(cursor: string | undefined): (string | number)[] | null {
  if (cursor === undefined || cursor === "") return null;
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length > 0 && key.every((k) => typeof k === "string" || typeof k === "number"))
      return key as (string | number)[];
  } catch {
    // falls through: a cursor we did not make reads as none
  }
  return null;
}

/** "2026-11-30 14:05:09" from an ISO UTC time: dense, sortable, and plainly UTC (the header says so). */
export function shortTime(iso: string): string {
  return iso.length >= 19 ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso;
}

/** A count with thousands separators. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** A count and its noun, plural unless the count is one: "1 session", "2 sessions". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : plural}`;
}

/** A share as a percentage with one decimal, or an en dash when there is nothing to divide. */
export function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
}

/** A magnitude in up to six significant figures, without trailing zeros. */
export function magnitude(v: number | null): string {
  if (v === null) return "";
  if (!Number.isFinite(v)) return String(v);
  return Number(v.toPrecision(6)).toString();
}

/** Every UTC day from `since` (inclusive) to `until` (exclusive), as YYYY-MM-DD. */
export function daysBetween(since: string, until: string): string[] {
  const out: string[] = [];
  const end = Date.parse(until);
  for (let t = Date.parse(`${since.slice(0, 10)}T00:00:00Z`); t < end; t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

// A cell a spreadsheet would run as a formula (OWASP "CSV injection") gets a leading apostrophe.
const FORMULA = /^[=+\-@\t\r]/;

/** One CSV cell: quoted when it holds a comma, quote or line break; agent-written formulas defused. */
export function csvCell(value: string | number): string {
  if (typeof value === "number") return String(value);
  const safe = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

// Rate limits of a gateway upstream or tool, written "60/min", "5/s" or "1000/h", as data: a count per window.

/** A rate limit: at most `count` calls in any `windowMs` milliseconds; `text` is how it was written. */
export type Rate = { count: number; windowMs: number; text: string };

/** The window units a rate may name, in milliseconds. */
const WINDOWS: Readonly<Record<string, number>> = { s: 1000, min: 60_000, h: 3_600_000 };

const RATE = /^([1-9][0-9]{0,5})\/(s|min|h)$/;

/** Parses "N/s", "N/min" or "N/h" (N a whole number from 1); null for anything else. */
export function parseRate(text: string): Rate | null {
  const m = RATE.exec(text.trim());
  if (!m) return null;
  return { count: Number(m[1]), windowMs: WINDOWS[m[2]!]!, text: `${m[1]}/${m[2]}` };
}

/** The words for a rate error: what is accepted. */
export const RATE_FORMS = 'a count per window such as "60/min", "5/s" or "1000/h" (a count from 1 to 999999)';

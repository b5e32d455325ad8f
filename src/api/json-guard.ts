// Refuses request bodies that JSON.parse would silently alter or that later code cannot handle: invalid UTF-8
// (decoded to U+FFFD), lone surrogates (an escaped \ud800 becomes text that is not Unicode), numbers beyond double
// range (1e309 parses to Infinity and is stored as null), and nesting deeper than the depth limit (10,000 levels
// overflowed the stack in JSON.stringify).
import { isUtf8 } from "node:buffer";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.js";
import { DEFAULT_LIMITS, type Limits, jsonDepth } from "../limits.js";
import { InvalidTextError, illFormedTextPath } from "../text.js";
import { errorBody } from "./errors.js";

/** Deepest nesting jsonProblem accepts by default; the guard checks AGENT_LEDGER_MAX_DEPTH before it. */
export const MAX_JSON_DEPTH = 128;

// The media types Hono's JSON validator parses, and the text types other routes read with c.req.text().
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
const TEXT_TYPE = /^(?:text\/[\w.+-]+|application\/(?:x-)?ndjson|application\/jsonl(?:ines)?)$/i;

const decoder = new TextDecoder();

/** What is wrong with a parsed JSON value, or null: a non-finite number, a `__proto__` key, or nesting deeper than `maxDepth`. */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: string; message: string } | null {
  // Iterative on purpose: the values this looks at are the ones too deep for recursion.
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 0, path: "" }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) {
        return {
          path,
          message:
            "a number beyond the range of a 64-bit float (such as 1e309) would be read as infinity: send finite numbers (at most about 1.8e308)",
        };
      }
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= maxDepth)
      return { path, message: `objects and arrays are nested deeper than ${maxDepth} levels: send flatter JSON` };
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    // JSON.parse keeps "__proto__" as an own key, but every later object copy turns it into a prototype
    // assignment and drops it silently (or worse): refuse it where it enters.
    if (!Array.isArray(v) && Object.hasOwn(v, "__proto__")) {
      return {
        path: path ? `${path}.__proto__` : "__proto__",
        message: "the key __proto__ is reserved by JavaScript objects and would be dropped silently: rename it",
      };
    }
    for (const [k, x] of entries)
      stack.push({ v: x, depth: depth + 1, path: path.length < 200 ? (path ? `${path}.${k}` : k) : path });
  }
  return null;
}

/**
 * Checks a JSON (or text) request body before any validator reads it, and hands the decoded text on through
 * Hono's body cache so the body is read from the socket once.
 */
export function guardJsonBody(limits: Limits = DEFAULT_LIMITS): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
    const isJson = JSON_TYPE.test(type);
    if (!isJson && !TEXT_TYPE.test(type)) return next();
    const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
    if (!isUtf8(bytes)) {
      return c.json(
        errorBody("invalid_request", "the request body is not valid UTF-8: send the JSON encoded as UTF-8"),
        400,
      );
    }
    const text = decoder.decode(bytes);
    // Hono types the cache entries as values, but reads and stores promises (request.js #cachedBody).
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    if (!isJson) return next();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return next(); // the route's validator answers malformed JSON in its own words
    }
    const depth = jsonDepth(value);
    if (depth > limits.depth) {
      const message =
        `the request body nests objects and arrays ${depth} levels deep, over the limit of ${limits.depth}: ` +
        "send flatter JSON, or raise AGENT_LEDGER_MAX_DEPTH";
      const details = { limit: limits.depth, count: depth, setting: "AGENT_LEDGER_MAX_DEPTH" };
      return c.json(errorBody("too_deep", message, details), 413);
    }
    const badText = illFormedTextPath(value);
    if (badText !== null) {
      const e = new InvalidTextError(badText);
      return c.json(errorBody(e.code, e.message, e.details), 400);
    }
    const problem = jsonProblem(value, Number.POSITIVE_INFINITY);
    if (problem) {
      const where = problem.path ? ` (at ${problem.path})` : "";
      return c.json(errorBody("invalid_request", `invalid request body${where}: ${problem.message}`, [problem]), 400);
    }
    return next();
  };
}

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
import type { LargeLane } from "./large-lane.js";
import { LARGE_BODY, nextTurn } from "./turn.js";

/** Deepest nesting jsonProblem accepts by default; the guard checks AGENT_LEDGER_MAX_DEPTH before it. */
export const MAX_JSON_DEPTH = 128;

// The media types Hono's JSON validator parses, and the text types other routes read with c.req.text().
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
const TEXT_TYPE = /^(?:text\/[\w.+-]+|application\/(?:x-)?ndjson|application\/jsonl(?:ines)?)$/i;

const decoder = new TextDecoder();

// Where a value sits: its key and its parent's place, so a path is spelled only for the value that is refused.
type Place = { key: string; parent: Place | null } | null;

/** The path of a place as jsonProblem reports it: keys joined by dots, growth stopping once it reaches 200 characters. */
function pathOf(place: Place): string {
  const keys: string[] = [];
  for (let p = place; p !== null; p = p.parent) keys.push(p.key);
  let path = "";
  for (let i = keys.length - 1; i >= 0; i--) if (path.length < 200) path = path ? `${path}.${keys[i]}` : keys[i]!;
  return path;
}

/** What is wrong with a parsed JSON value, or null: a non-finite number, a `__proto__` key, or nesting deeper than `maxDepth`. */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: string; message: string } | null {
  // Iterative on purpose: the values this looks at are the ones too deep for recursion. Values are visited in the
  // same order as before paths were made lazy (last entry first), so the problem reported first is the same one.
  const stack: { v: unknown; depth: number; place: Place }[] = [{ v: value, depth: 0, place: null }];
  while (stack.length > 0) {
    const { v, depth, place } = stack.pop()!;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) {
        return {
          path: pathOf(place),
          message:
            "a number beyond the range of a 64-bit float (such as 1e309) would be read as infinity: send finite numbers (at most about 1.8e308)",
        };
      }
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= maxDepth)
      return {
        path: pathOf(place),
        message: `objects and arrays are nested deeper than ${maxDepth} levels: send flatter JSON`,
      };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++)
        stack.push({ v: v[i], depth: depth + 1, place: { key: String(i), parent: place } });
      continue;
    }
    // JSON.parse keeps "__proto__" as an own key, but every later object copy turns it into a prototype
    // assignment and drops it silently (or worse): refuse it where it enters.
    if (Object.hasOwn(v, "__proto__")) {
      const path = pathOf(place);
      return {
        path: path ? `${path}.__proto__` : "__proto__",
        message: "the key __proto__ is reserved by JavaScript objects and would be dropped silently: rename it",
      };
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) stack.push({ v: o[k], depth: depth + 1, place: { key: k, parent: place } });
  }
  return null;
}

// Bytes that are valid UTF-8 decode to well-formed text; a lone surrogate can then only come from a \uD800-\uDFFF escape.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Checks a JSON (or text) request body before any validator reads it, and hands the decoded text on through
 * Hono's body cache so the body is read from the socket once.
 */
export function guardJsonBody(limits: Limits = DEFAULT_LIMITS, lane?: LargeLane): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") {
      lane?.seenSmall();
      return next();
    }
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
    const isJson = JSON_TYPE.test(type);
    if (!isJson && !TEXT_TYPE.test(type)) {
      lane?.seenSmall();
      return next();
    }
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
    const badText = SURROGATE_ESCAPE.test(text) ? illFormedTextPath(value) : null;
    if (badText !== null) {
      const e = new InvalidTextError(badText);
      return c.json(errorBody(e.code, e.message, e.details), 400);
    }
    const problem = jsonProblem(value, Number.POSITIVE_INFINITY);
    if (problem) {
      const where = problem.path ? ` (at ${problem.path})` : "";
      return c.json(errorBody("invalid_request", `invalid request body${where}: ${problem.message}`, [problem]), 400);
    }
    // Reading and checking a large body is one phase; the validator and the route are the next, in the lane's turn.
    if (text.length < LARGE_BODY) {
      lane?.seenSmall();
      return next();
    }
    if (!lane) {
      await nextTurn();
      return next();
    }
    await lane.run(next);
  };
}

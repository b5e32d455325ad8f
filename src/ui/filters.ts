// Reading a page's query string: the known parameters in order, a 303 to the clean URL when a form left empty
// fields, and the session filter the JSON API's list reads too.
import type { Context } from "hono";
import { VIOLATION_CODES } from "../quantity/errors.js";
import { decodeKey, href, type Params } from "./format.js";
import type { LabelFilter } from "../store/model.js";
import { QueryError, parseInstant, parseLabel } from "../query-params.js";

/** The known parameters of the request, in order; unknown ones are ignored. */
export function readParams(c: Context, names: readonly string[]): Params {
  const out: [string, string][] = [];
  for (const [k, v] of new URL(c.req.url).searchParams) if (names.includes(k)) out.push([k, v.trim()]);
  return out;
}

/** The clean URL when a GET form sent empty fields (so the address bar holds a tidy permalink), else null. */
export function cleanUrl(c: Context, params: Params): string | null {
  const all = [...new URL(c.req.url).searchParams];
  if (!all.some(([, v]) => v.trim() === "")) return null;
  return href(c.req.path, params);
}

/** The first value of `name`, or undefined. */
export function one(params: Params, name: string): string | undefined {
  return params.find(([k]) => k === name)?.[1];
}

/** Every value of `name`. */
export function all(params: Params, name: string): string[] {
  return params.filter(([k]) => k === name).map(([, v]) => v);
}

/** A keyset cursor of `n` parts, or a QueryError naming the parameter. */
export function cursorOf(params: Params, kinds: readonly ("string" | "number")[]): (string | number)[] | null {
  const raw = one(params, "cursor");
  if (raw === undefined) return null;
  const key = decodeKey(raw);
  if (key === null || key.length !== kinds.length || key.some((k, i) => typeof k !== kinds[i]))
    throw new QueryError(
      "cursor",
      "cursor is not valid: follow the Next page link unchanged, or remove cursor from the address",
    );
  return key;
}

/** A violation code filter: one of the codes the guard stores, or a QueryError listing them. */
export function codeOf(params: Params): string | undefined {
  const code = one(params, "code");
  if (code === undefined) return undefined;
  if (!(VIOLATION_CODES as readonly string[]).includes(code))
    throw new QueryError("code", `code must be a violation code (${VIOLATION_CODES.join(", ")}), received '${code}'`);
  return code;
}

/** The filters of the sessions page, as the shared session query takes them. */
export type SessionParams = { labels: LabelFilter[]; tool?: string; code?: string; since?: string; until?: string };

/** Reads label, tool, code, since and until; a malformed value is a QueryError naming it. */
export function sessionFilter(params: Params): SessionParams {
  const since = one(params, "since");
  const until = one(params, "until");
  const tool = one(params, "tool");
  const code = codeOf(params);
  return {
    labels: all(params, "label").map((l) => parseLabel(l)),
    ...(tool === undefined ? {} : { tool }),
    ...(code === undefined ? {} : { code }),
    ...(since === undefined ? {} : { since: parseInstant(since, "since") }),
    ...(until === undefined ? {} : { until: parseInstant(until, "until") }),
  };
}

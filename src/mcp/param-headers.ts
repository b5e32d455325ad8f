// The Mcp-Param-* headers of MCP 2026-07-28 (SEP-2243): a tool may mark a primitive argument with `x-mcp-header` in its
// input schema, and a call then carries the argument's value in an `Mcp-Param-{Name}` header as well, so that whatever
// stands in front of the server can route on it without reading the body; the server refuses a call whose headers say
// otherwise than its body. The proxy is the server for its agents and the client for its upstream, so it does both
// halves: it checks the agent's headers against the agent's arguments, and makes its own from the arguments it sends
// on (converted, for a guarded call). The SDK does both inside its Client and createMcpHandler without exporting them;
// these are the same rules, with the same codes and messages.
import { decodedHeader, type EdgeRefusal, headerMismatch as mismatch } from "./standard-headers.js";

/** One argument a tool mirrors into a header: where it is in the arguments, the header's name, its declared type. */
export type HeaderDeclaration = { path: string[]; header: string; type: string };

/** A tool's declarations, and whether they are valid (a client makes no headers for a tool whose are not). */
export type HeaderScan = { valid: boolean; declarations: HeaderDeclaration[] };

/** The scan of a tool that declares no header (or is not listed). */
// Shared by every unlisted tool, so frozen: a caller that pushed to it would give every tool that declaration.
export const NO_HEADERS: HeaderScan = Object.freeze({
  valid: true,
  declarations: Object.freeze([]) as unknown as HeaderDeclaration[],
});

const KEY = "x-mcp-header";
const PREFIX = "Mcp-Param-";
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED = new Set(["string", "integer", "boolean"]);
// Subschemas outside the chain of `properties` (SEP-2243: a declaration there invalidates the tool).
const ELSEWHERE = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
];
const NAMED = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);
const B64_PREFIX = "=?base64?";
const B64_SUFFIX = "?=";
const DECIMAL = /^-?\d+(\.\d+)?$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The `x-mcp-header` declarations of a tool's input schema, as SEP-2243 admits them. */
export function scanHeaders(inputSchema: unknown): HeaderScan {
  const declarations: HeaderDeclaration[] = [];
  const seen = new Set<string>();
  let valid = true;
  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (!isObject(node)) return;
    if (KEY in node) {
      const raw = node[KEY];
      const type = typeof node.type === "string" ? node.type : "";
      if (!reachable || path.length === 0 || typeof raw !== "string" || !TOKEN.test(raw)) valid = false;
      else if (seen.has(raw.toLowerCase())) valid = false;
      else {
        seen.add(raw.toLowerCase());
        // A number is not permitted, but a server still checks it; any other type is not declared at all.
        if (!PERMITTED.has(type)) valid = false;
        if (PERMITTED.has(type) || type === "number") declarations.push({ path, header: raw, type });
      }
    }
    if (isObject(node.properties))
      for (const [k, child] of Object.entries(node.properties)) visit(child, [...path, k], reachable);
    for (const k of ELSEWHERE) {
      const sub = node[k];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : NAMED.has(k) && isObject(sub) ? Object.values(sub) : [sub];
      for (const b of branches) visit(b, [...path, `<${k}>`], false);
    }
  };
  visit(inputSchema, [], true);
  return { valid, declarations };
}

/** The value at `path` in the arguments. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const k of path) {
    if (!isObject(node)) return undefined;
    node = node[k];
  }
  return node;
}

/** A primitive argument as its header text (strings as they are, numbers in decimal, booleans in lower case). */
function asText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number" && Number.isFinite(v) && (!Number.isInteger(v) || Number.isSafeInteger(v)))
    return String(v);
  return undefined;
}

/** A header value: plain printable ASCII as it is, anything else (or what looks like the Base64 form) as Base64. */
function encoded(s: string): string {
  const plain = s.length > 0 && s === s.trim() && !(s.startsWith(B64_PREFIX) && s.endsWith(B64_SUFFIX));
  if (plain && /^[\t\x20-\x7e]*$/.test(s)) return s;
  return `${B64_PREFIX}${Buffer.from(s, "utf8").toString("base64")}${B64_SUFFIX}`;
}

/** The Mcp-Param-* headers a call with these arguments carries (none for a tool whose declarations are not valid). */
export function paramHeaders(scan: HeaderScan, args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!scan.valid) return out;
  for (const d of scan.declarations) {
    const text = asText(valueAt(args, d.path));
    if (text !== undefined) out[`${PREFIX}${d.header}`] = encoded(text);
  }
  return out;
}

/** The refusal of a call whose Mcp-Param-* headers are missing or disagree with its arguments, or null. */
export function paramHeaderRefusal(
  scan: HeaderScan,
  args: unknown,
  header: (name: string) => string | undefined,
): EdgeRefusal | null {
  for (const d of scan.declarations) {
    const name = `${PREFIX}${d.header}`;
    const raw = valueAt(args, d.path);
    const text = asText(raw);
    if (text === undefined) continue;
    const where = d.path.join(".");
    const sent = header(name);
    if (sent === undefined)
      return mismatch(name, `the body carries ${where}=${JSON.stringify(raw)} but the ${name} header is absent`);
    const value = decodedHeader(sent);
    if (value === undefined) return mismatch(name, `the ${name} header carries an invalid Base64 sentinel value`);
    const numeric = (d.type === "integer" || d.type === "number") && typeof raw === "number" && DECIMAL.test(value);
    if (numeric ? Number(value) !== raw : value !== text)
      return mismatch(
        name,
        `the ${name} header decodes to ${JSON.stringify(value)} but the body carries ${where}=${JSON.stringify(raw)}`,
      );
  }
  return null;
}

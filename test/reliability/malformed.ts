// Generators of request bodies that are malformed by construction, read off each route's OpenAPI request schema,
// so that routes added later are fuzzed without anyone listing them here.
import fc from "fast-check";
import { resolve, type OpenApiDoc, type Route, type Schema } from "./harness.js";

/** One malformed request: what kind of damage, and the bytes and headers to send. */
export type Malformed = { kind: string; body: string | Uint8Array; headers: Record<string, string> };

const JSON_HEADERS = { "content-type": "application/json" };
const utf8 = new TextEncoder();

/** Byte sequences that are not UTF-8: a lone continuation byte, 0xFF, an overlong '/', a UTF-8-encoded surrogate, a cut-off sequence. */
export const INVALID_UTF8: readonly number[][] = [
  [0x80],
  [0xff, 0xfe],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xc3, 0x28],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

/** JSON text nested `levels` deep: `[[[…]]]` or `{"a":{"a":…}}`. */
export function deepJson(levels: number, kind: "array" | "object"): string {
  return kind === "array" ? "[".repeat(levels) + "]".repeat(levels) : `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

/** The object branches of a body schema (one for an object, each branch of an anyOf of objects), or null. */
function objectBranches(doc: OpenApiDoc, schema: Schema | undefined): Schema[] | null {
  const s = resolve(doc, schema);
  const branches = (s.anyOf ?? s.oneOf ?? [s]).map((b) => resolve(doc, b));
  return branches.every((b) => b.type === "object") ? branches : null;
}

/** The JSON types a schema admits, or null when it admits anything (`{}`) or the types cannot be read. */
function typesOf(doc: OpenApiDoc, schema: Schema | undefined, seen = 0): Set<string> | null {
  const s = resolve(doc, schema);
  if (seen > 8) return null;
  if (s.anyOf || s.oneOf) {
    const out = new Set<string>();
    for (const b of s.anyOf ?? s.oneOf ?? []) {
      const t = typesOf(doc, b, seen + 1);
      if (!t) return null;
      for (const x of t) out.add(x);
    }
    return out;
  }
  if (s.enum) return new Set(s.enum.map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v)));
  if (s.type === undefined) return null;
  const out = new Set(Array.isArray(s.type) ? s.type : [s.type]);
  if (s.nullable) out.add("null");
  if (out.has("integer")) out.add("number");
  return out;
}

/** JSON values of every type the set does not admit (including numbers spelt as strings: "NaN", "1e309"). */
function wrongValues(types: Set<string>, exact: Set<string>): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [];
  if (!types.has("string"))
    options.push(fc.constantFrom("NaN", "Infinity", "-Infinity", "1e309", "12 cfs", ""), fc.string({ maxLength: 40 }));
  if (!types.has("number"))
    options.push(
      fc.constantFrom(0, -1, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
  else if (exact.has("integer") && !exact.has("number")) options.push(fc.constantFrom(1.5, -0.25, 1e-9));
  if (!types.has("boolean")) options.push(fc.boolean());
  if (!types.has("null")) options.push(fc.constant(null));
  if (!types.has("array")) options.push(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }));
  if (!types.has("object"))
    options.push(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }));
  return fc.oneof(...options);
}

/** Paths to the primitive leaves of a JSON value. */
export function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object") return [path];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) => leaves(v, [...path, k]));
}

function setAt(value: unknown, path: (string | number)[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), leaf);
  return copy;
}

const MARK = "\u0000LEAF\u0000";

/** The base body as text around one leaf (or one named property of an empty body), to splice raw text or bytes in. */
export function withRawLeaf(base: unknown, schema: Schema, path: (string | number)[] | null): [string, string] {
  const target = path ?? [Object.keys(schema.properties ?? { value: {} })[0]!];
  const [before, after] = JSON.stringify(setAt(base, target, MARK)).split(JSON.stringify(MARK));
  return [before!, after!];
}

/**
 * Every kind of malformed body for one route with a JSON body, as one arbitrary. `base` is a valid body; each
 * kind breaks it in a way no schema can accept (or that the service refuses before parsing it into the schema).
 */
export function malformedBodies(
  doc: OpenApiDoc,
  route: Route,
  base: unknown,
  bodyLimit: number,
): fc.Arbitrary<Malformed> {
  const schema = resolve(doc, route.bodySchema);
  const baseText = JSON.stringify(base);
  const kinds: fc.Arbitrary<Malformed>[] = [];
  const json =
    (kind: string) =>
    (body: string): Malformed => ({ kind, body, headers: JSON_HEADERS });

  // Broken syntax: a cut-off body, trailing garbage, JavaScript-only literals, random text that is not JSON.
  kinds.push(
    fc.integer({ min: 1, max: Math.max(1, baseText.length - 1) }).map((n) => json("truncated")(baseText.slice(0, n))),
  );
  kinds.push(
    fc.constantFrom("}", "x", ",", "]", " {}", "\u0000").map((tail) => json("trailing garbage")(baseText + tail)),
  );
  kinds.push(
    fc
      .constantFrom("NaN", "Infinity", "-Infinity", "undefined", "0x10", "01", ".5", "+1", "'x'", "tru", "1e", "--1")
      .map((lit) => json("javascript literal")(`{"${Object.keys(schema.properties ?? { value: 0 })[0]}": ${lit}}`)),
  );
  kinds.push(
    fc
      .string({ maxLength: 200 })
      .filter((s) => !isJson(s))
      .map(json("not json")),
  );

  const branches = objectBranches(doc, route.bodySchema);
  if (branches) {
    kinds.push(
      fc
        .oneof(
          fc.constant("[]"),
          fc.constant("null"),
          fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
          fc.string({ maxLength: 30 }).map((s) => JSON.stringify(s)),
          fc.boolean().map(String),
          fc.constant(`[${baseText}]`),
        )
        .map(json("top level not an object")),
    );
    if (branches.every((b) => b.additionalProperties === false)) {
      const known = new Set(branches.flatMap((b) => Object.keys(b.properties ?? {})));
      kinds.push(
        fc
          .tuple(
            fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !known.has(k) && k !== "__proto__"),
            fc.jsonValue({ maxDepth: 2 }),
          )
          .map(([k, v]) => json("unknown field")(JSON.stringify({ ...(base as object), [k]: v }))),
      );
    }
  }
  if (branches?.length === 1) {
    const props = schema.properties ?? {};
    for (const key of schema.required ?? []) {
      const exact = typesOf(doc, props[key]);
      if (!exact) continue;
      kinds.push(
        wrongValues(exact, exact).map((v) =>
          json(`wrong type for ${key}`)(JSON.stringify({ ...(base as object), [key]: v })),
        ),
      );
      kinds.push(
        fc.constant(
          json(`missing ${key}`)(
            JSON.stringify(Object.fromEntries(Object.entries(base as object).filter(([k]) => k !== key))),
          ),
        ),
      );
    }
    for (const [key, p] of Object.entries(props)) {
      const s = resolve(doc, p);
      if (s.type === "string" && s.maxLength !== undefined && s.maxLength + 64 < bodyLimit) {
        const max = s.maxLength;
        kinds.push(
          fc
            .integer({ min: 1, max: Math.min(10_000, bodyLimit - max - 64) })
            .map((extra) =>
              json(`too long ${key}`)(JSON.stringify({ ...(base as object), [key]: "x".repeat(max + extra) })),
            ),
        );
      }
      if (s.enum?.every((e) => typeof e === "string")) {
        kinds.push(
          fc
            .string({ maxLength: 20 })
            .filter((v) => !s.enum!.includes(v))
            .map((v) => json(`not in enum ${key}`)(JSON.stringify({ ...(base as object), [key]: v }))),
        );
      }
    }
  }

  // A valid body with one leaf replaced: a number beyond double range, 10,000 levels of nesting, or invalid UTF-8.
  const paths = leaves(base).filter((p) => p.length > 0);
  const leaf = paths.length ? fc.constantFrom(...paths) : fc.constant(null);
  kinds.push(
    fc.tuple(leaf, fc.constantFrom("1e309", "-1e309", "1e400", "123456789e999", "-0.1e1000")).map(([p, lit]) => {
      const [a, b] = withRawLeaf(base, schema, p);
      return json("number beyond double range")(a + lit + b);
    }),
  );
  kinds.push(
    fc.tuple(leaf, fc.constantFrom<"array" | "object">("array", "object")).map(([p, kind]) => {
      const [a, b] = withRawLeaf(base, schema, p);
      return json(`10,000 levels of ${kind}s`)(a + deepJson(10_000, kind) + b);
    }),
  );
  kinds.push(
    fc.tuple(leaf, fc.constantFrom(...INVALID_UTF8)).map(([p, bad]) => {
      const [a, b] = withRawLeaf(base, schema, p);
      return {
        kind: "invalid UTF-8 in a string",
        body: concat(utf8.encode(`${a}"ab`), Uint8Array.from(bad), utf8.encode(`cd"${b}`)),
        headers: JSON_HEADERS,
      };
    }),
  );

  if (route.bodyRequired) {
    kinds.push(fc.constant(json("empty body")("")));
    kinds.push(
      fc
        .constantFrom(
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/xml",
          "application/jsonx",
          "",
        )
        .map(
          (type): Malformed => ({
            kind: `content type '${type}'`,
            body: baseText,
            headers: type ? { "content-type": type } : {},
          }),
        ),
    );
  }
  return fc.oneof(...kinds);
}

/** True when `s` parses as JSON. */
export function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** Byte arrays joined. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

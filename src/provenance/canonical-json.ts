// RFC 8785 JSON Canonicalization Scheme (JCS): one byte sequence per JSON value, so a digest or a signature over it
// is the same wherever it is computed. Used for the gateway's tool-definition pins and the ledger chain's entries.
// @see https://www.rfc-editor.org/rfc/rfc8785

/** A value that has no canonical JSON form (a non-finite number, a lone surrogate, a function, ...). */
export class CanonicalJsonError extends Error {
  readonly code = "not_canonical_json";
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${path || "the value"}: ${message}`);
    this.name = "CanonicalJsonError";
  }
}

// I-JSON (RFC 7493), which JCS requires, has no lone surrogates; JSON.stringify would escape one as \udXXX.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function str(s: string, path: string): string {
  if (LONE_SURROGATE.test(s)) throw new CanonicalJsonError("holds a lone surrogate, which I-JSON forbids", path);
  // JSON.stringify escapes exactly as RFC 8785 section 3.2.2.2 asks: \b \t \n \f \r \" \\, other controls as \u00xx.
  return JSON.stringify(s);
}

function write(value: unknown, path: string, out: string[]): void {
  if (value === null) out.push("null");
  else if (typeof value === "boolean") out.push(value ? "true" : "false");
  else if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new CanonicalJsonError(`${value} is not a finite number`, path);
    // ECMAScript Number::toString is RFC 8785 section 3.2.2.3; it writes -0 as "0", as JCS asks.
    out.push(String(value));
  } else if (typeof value === "string") out.push(str(value, path));
  else if (Array.isArray(value)) {
    out.push("[");
    value.forEach((v, i) => {
      if (i > 0) out.push(",");
      if (v === undefined) throw new CanonicalJsonError("is undefined, which JSON cannot hold", `${path}[${i}]`);
      write(v, `${path}[${i}]`, out);
    });
    out.push("]");
  } else if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    // Keys sorted by UTF-16 code units, as Array.prototype.sort compares strings; absent (undefined) members skipped.
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    out.push("{");
    keys.forEach((k, i) => {
      if (i > 0) out.push(",");
      out.push(str(k, path), ":");
      write((value as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out);
    });
    out.push("}");
  } else throw new CanonicalJsonError(`a ${typeof value} that is not plain JSON data`, path);
}

/**
 * The RFC 8785 canonical JSON text of a value: objects with keys sorted by UTF-16 code units, no whitespace, numbers
 * as ECMAScript writes them. Throws CanonicalJsonError for what JSON cannot hold (NaN, Infinity, lone surrogates,
 * undefined in an array, functions, class instances).
 * @example canonicalJson({ b: 1, a: [1e21, "é"] }) // '{"a":[1e+21,"é"],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, "", out);
  return out.join("");
}

// The ledger chain's canonical form and digests (docs/DESIGN-NOTES.md "Ledger chain"), engine-neutral: both drivers
// read a row's canonical columns as an array in CHAIN_TABLES order and hash it here, at append and at verify alike.
import { hash } from "node:crypto";
import { CHAIN_TABLES, type ChainTableName, type ColumnKind } from "./chain-tables.js";

/** The digest before a team's first entry: 32 zero bytes, in hex. */
export const GENESIS = "0".repeat(64);

/** Chaining on or off in this process: off only for the benchmarks that measure what chaining costs. */
export const chainSettings = { enabled: process.env.AGENT_LEDGER_CHAIN !== "off" };

/** A stored value as the canonical form holds it: booleans as true/false, numbers as numbers, text as text, null. */
function normalise(v: unknown, kind: ColumnKind): unknown {
  if (v === null || v === undefined) return null;
  if (kind === "bool") return v === 1 || v === true ? true : v === 0 || v === false ? false : v;
  if (kind === "num") return typeof v === "bigint" || typeof v === "string" ? Number(v) : v;
  return v;
}

/** One value's JSON text: RFC 8785 serialises strings, finite numbers, booleans and null as ECMAScript JSON does. */
const jsonOf = (v: unknown): string => JSON.stringify(v) ?? "null";

/** A value's JSON text in the canonical form, normalised by its column's kind (one string, no array per row). */
function valueText(v: unknown, kind: ColumnKind): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string" && kind === "text") return JSON.stringify(v);
  return jsonOf(normalise(v, kind));
}

type Plan = {
  name: ChainTableName;
  sorted: number[];
  keys: string[];
  kinds: ColumnKind[];
  /** Per sorted position: the text before its value (`{"row":{"key":` first, `,"key":` after). */
  heads: string[];
  tail: string;
};

const plans = new Map<string, Plan>();

function planOf(name: ChainTableName): Plan {
  let p = plans.get(name);
  if (!p) {
    const cols = CHAIN_TABLES[name].columns;
    // RFC 8785 orders keys by UTF-16 code units; the column names are ASCII, so a plain sort is that order.
    const sorted = cols.map((_, i) => i).sort((a, b) => (cols[a]![0] < cols[b]![0] ? -1 : 1));
    const keys = cols.map((c) => JSON.stringify(c[0]));
    const heads = sorted.map((i, j) => `${j ? "," : '{"row":{'}${keys[i]}:`);
    p = { name, sorted, keys, kinds: cols.map((c) => c[1]), heads, tail: `},"table":${JSON.stringify(name)}}` };
    plans.set(name, p);
  }
  return p;
}

/** SHA-256 of a text's UTF-8 bytes (or of bytes), in hex: the one-shot hash, about three times as fast as createHash. */
export const sha256Hex = (data: string | Buffer): string => hash("sha256", data, "hex");

/** The values of a row normalised, serialised one by one (in column order). */
function serialised(p: Plan, values: readonly unknown[]): string[] {
  return compiled(p).serialise(values);
}

/**
 * The canonical form of a row: the RFC 8785 serialisation of `{"row": {column: value, ...}, "table": name}` over the
 * table's canonical columns (chain-tables.ts), each value normalised (booleans true/false, numbers, text, null).
 */
export function canonicalRow(name: ChainTableName, values: readonly unknown[]): string {
  return canonicalText(planOf(name), values);
}

/** Per column kind, its value's JSON text (valueText for that kind, without the switch on the kind). */
const TEXTS: Record<ColumnKind, (v: unknown) => string> = {
  text: (v) => (typeof v === "string" ? JSON.stringify(v) : valueText(v, "text")),
  num: (v) => (typeof v === "number" ? (JSON.stringify(v) ?? "null") : valueText(v, "num")),
  bool: (v) => (v === 1 || v === true ? "true" : v === 0 || v === false ? "false" : valueText(v, "bool")),
};

/** One value's JSON text as the canonical form writes it, by its column's kind. */
export const canonicalValue = (kind: ColumnKind, v: unknown): string => TEXTS[kind](v);

/** A table's canonical form in key order: each column with the text written before its value, and the closing text. */
export function canonicalParts(name: ChainTableName): {
  parts: { head: string; column: string; kind: ColumnKind }[];
  tail: string;
} {
  const p = planOf(name);
  const cols = CHAIN_TABLES[name].columns;
  return {
    parts: p.sorted.map((i, j) => ({ head: p.heads[j]!, column: cols[i]![0], kind: p.kinds[i]! })),
    tail: p.tail,
  };
}

/** A table's plan compiled: its canonical text from the values, its values serialised, and those joined. */
type Compiled = {
  text: (values: readonly unknown[]) => string;
  serialise: (values: readonly unknown[]) => string[];
  join: (serialised: readonly string[]) => string;
};

const compiledPlans = new Map<string, Compiled>();

/**
 * A plan compiled once into straight-line concatenations (about a third faster than loops over the columns, which
 * the append and verify pay per row). Only the plan's own JSON-quoted keys and column indexes enter the source: no
 * value ever does. The same bytes as the loops they replace (tested against RFC 8785 over the row object).
 */
function compiled(p: Plan): Compiled {
  let c = compiledPlans.get(p.name);
  if (!c) {
    const make = (params: string[], body: string) => new Function(...params, body);
    const fns = [TEXTS.text, TEXTS.num, TEXTS.bool];
    const text = p.sorted.map((i, j) => `${JSON.stringify(p.heads[j])} + ${p.kinds[i]}(v[${i}])`);
    const each = p.kinds.map((k, i) => `${k}(v[${i}])`);
    const joined = p.sorted.map((i, j) => `${JSON.stringify(p.heads[j])} + s[${i}]`);
    c = {
      text: make(["text", "num", "bool"], `return (v) => ${text.join(" + ")} + ${JSON.stringify(p.tail)};`)(...fns),
      serialise: make(["text", "num", "bool"], `return (v) => [${each.join(", ")}];`)(...fns),
      join: make([], `return (s) => ${joined.join(" + ")} + ${JSON.stringify(p.tail)};`)(),
    };
    compiledPlans.set(p.name, c);
  }
  return c;
}

/** The canonical form built straight from the values: the same bytes as canonicalOf over serialised. */
function canonicalText(p: Plan, values: readonly unknown[]): string {
  return compiled(p).text(values);
}

/** The canonical form from a row's values serialised one by one (in column order). */
function canonicalOf(p: Plan, s: readonly string[]): string {
  return compiled(p).join(s);
}

/** FNV-1a (32-bit) of a string's UTF-16 code units, its low 16 bits. */
function fp16n(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i += 1) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h & 0xffff;
}

/** A row as the chain holds it: its canonical digest and its per-column fingerprints. */
export type RowPrint = { rowDigest: string; fp: string };

/** The digest (SHA-256 of the canonical form, hex) and the column fingerprints of a row. */
export function printRow(name: ChainTableName, values: readonly unknown[]): RowPrint {
  // The fingerprints' bytes are 16-bit big-endian, so their hex is 4 digits a column, as the hex form stores them.
  const { rowDigest, fp } = printRowBytes(name, values);
  return { rowDigest: rowDigest.toString("hex"), fp: fp.toString("hex") };
}

/** The SHA-256 (hex) of a row's canonical form alone: what verify computes first (fingerprints only on a mismatch). */
export function rowDigestOf(name: ChainTableName, values: readonly unknown[]): string {
  const p = planOf(name);
  return sha256Hex(canonicalText(p, values));
}

// The 64 bytes an entry's digest is taken over, reused (the hash is synchronous, so no call sees another's bytes).
const LINK = Buffer.alloc(64);

/** An entry's digest: SHA-256 over the previous digest's 32 bytes then the row digest's 32 bytes, in hex. */
export function linkDigest(prev: string, rowDigest: string): string {
  // Text that is not 64 hex digits is hashed as Buffer.from decodes it (up to its first bad digit), never stale bytes.
  if (LINK.write(prev, 0, 32, "hex") + LINK.write(rowDigest, 32, 32, "hex") !== 64)
    return sha256Hex(Buffer.from(prev + rowDigest, "hex"));
  return sha256Hex(LINK);
}

/**
 * SHA-256 as a Buffer, asked of `crypto.hash` as a one-byte string and copied: on Node 20 a digest answered as a
 * Buffer costs about 0.7 us more (measured 1.35 against 0.6 us for 64 bytes), paid twice an entry by the append.
 */
const digestBytes = (data: string | Buffer): Buffer => Buffer.from(hash("sha256", data, "binary"), "latin1");

/** A row as the SQLite chain stores it: its canonical digest (32 bytes) and its fingerprints (2 bytes per column). */
export type RowBytes = { rowDigest: Buffer; fp: Buffer };

/** The digest and fingerprints of a row as bytes: the same values as printRow, without the hex text. */
export function printRowBytes(name: ChainTableName, values: readonly unknown[]): RowBytes {
  const p = planOf(name);
  const s = serialised(p, values);
  const rowDigest = digestBytes(canonicalOf(p, s));
  const fp = Buffer.allocUnsafe(s.length * 2);
  for (let i = 0; i < s.length; i += 1) fp.writeUInt16BE(fp16n(s[i]!), i * 2);
  return { rowDigest, fp };
}

/** An entry's digest as bytes: SHA-256 over the previous digest's 32 bytes then the row digest's 32 bytes. */
export function linkBytes(prev: Buffer, rowDigest: Buffer): Buffer {
  prev.copy(LINK, 0, 0, 32);
  rowDigest.copy(LINK, 32, 0, 32);
  return digestBytes(LINK);
}

/**
 * A stored digest or fingerprint as hex text: SQLite holds bytes (BLOB) since migration 0022_chain_bytes and hex
 * text before it; PostgreSQL holds hex text. The two forms of one value give the same text.
 */
export function hexOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex");
  return "";
}

/** The canonical columns whose fingerprints differ between a stored print and a row read now. */
export function changedColumns(name: ChainTableName, storedFp: string, nowFp: string): string[] {
  const cols = CHAIN_TABLES[name].columns;
  const out: string[] = [];
  for (let i = 0; i < cols.length; i += 1)
    if (storedFp.slice(i * 4, i * 4 + 4) !== nowFp.slice(i * 4, i * 4 + 4)) out.push(cols[i]![0]);
  return out;
}

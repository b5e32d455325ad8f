// The binary canonical encoding that docs/DESIGN-NOTES.md ("Ledger chain", session 18) prices as a next chain format:
// per value a tag, then UTF-8 text (its byte length first) or a double; each value's 16-bit fingerprint taken over the
// bytes just written. Shared by bench:chain:format (its floor) and bench:guard's "planned" part (in the append).

/** FNV-1a (32-bit) of `buf[from, to)`, as an unsigned number. */
export function fnv32(buf: Buffer, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i += 1) {
    h ^= buf[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** FNV-1a (32-bit) of `buf[from, to)`, its low 16 bits. */
const fnvBytes = (buf: Buffer, from: number, to: number): number => fnv32(buf, from, to) & 0xffff;

/**
 * Writes one row's values into `buf` at `pos` and, when `fps` is given, each value's fingerprint into `fps` at `fpAt`;
 * the new end.
 */
export function encodeRow(
  buf: Buffer,
  pos: number,
  values: readonly unknown[],
  fps: Buffer | null,
  fpAt: number,
): number {
  let p = pos;
  for (let i = 0; i < values.length; i += 1) {
    const v = values[i];
    const start = p;
    if (typeof v === "string") {
      buf[p] = 1;
      const n = buf.write(v, p + 5, "utf8");
      buf.writeUInt32LE(n, p + 1);
      p += 5 + n;
    } else if (typeof v === "number") {
      buf[p] = 2;
      buf.writeDoubleLE(v, p + 1);
      p += 9;
    } else {
      buf[p] = 0;
      p += 1;
    }
    fps?.writeUInt16BE(fnvBytes(buf, start, p), fpAt + i * 2);
  }
  return p;
}

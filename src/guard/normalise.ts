// Input shapes: a bare number, "1250 cfs", {value, unit, ...}, a series; read, then checked against one declaration.
import type { DatumRegistry } from "../quantity/datums.js";
import {
  CRSMismatch,
  DatumMismatch,
  DimensionalityError,
  MissingUnit,
  QualityViolation,
  UnitParseError,
} from "../quantity/errors.js";
import { type QualityTable, DEFAULT_QUALITY, meetsFloor } from "../quantity/quality.js";
import { Quantity, QUANTITY_KEYS, readMagnitude, readMeta } from "../quantity/quantity.js";
import { describe, formatMagnitude, parseUnit } from "../quantity/units.js";
import type { Declaration } from "./declaration.js";

/** How a value arrived, used to say in a message what was received. */
export type Shape =
  | { kind: "bare"; value: number }
  | { kind: "object"; value: unknown; unit: string | null }
  | { kind: "string"; text: string }
  | { kind: "series" };

/** A value read and checked: the quantity in the declared unit and datum, and how it arrived. */
export type Normalised = { quantity: Quantity; original: Quantity; shape: Shape; converted: boolean };

type Ctx = { datums: DatumRegistry; quality?: QualityTable };

/** Reads one argument against its physical declaration, in the validation order of the spec: shape, datum, CRS, quality floor, unit. */
export function normaliseInput(raw: unknown, decl: Declaration, ctx: Ctx): Normalised {
  const { quantity: original, shape } = readShape(raw, decl, ctx);
  let q = original;
  if (decl.datum) {
    if (!q.datum) q = new Quantity(q.value, q.unit, { ...metaOf(q), datum: decl.datum });
    else if (q.datum !== decl.datum) {
      throw new DatumMismatch(
        `expected an elevation referenced to ${decl.datum}, received one referenced to ${q.datum} ` +
          `(${q.display()}); both are in compatible units but measured from different references, ` +
          `so convert it to ${decl.datum} along a registered offset (POST /v1/convert with "to": {"datum": ` +
          `"${decl.datum}"}) and resend it, or register the offset between ${q.datum} and ${decl.datum} ` +
          `first`,
        { context: { expected: decl.datum, received: q.datum } },
      );
    }
  }
  if (decl.crs && q.crs && q.crs !== decl.crs) {
    throw new CRSMismatch(
      `expected ${decl.crs}, received ${q.crs} (${q.display()}); reproject the value into ${decl.crs} and resend it with "crs": "${decl.crs}"`,
      { context: { expected: decl.crs, received: q.crs } },
    );
  }
  if (decl.quality) {
    const floor = decl.qualityText ?? decl.quality;
    if (!q.quality) {
      throw new QualityViolation(
        `this tool requires ${floor} record, and the value supplied carries no quality flag; an unqualified record cannot be assumed ${decl.quality}, ` +
          `so send the publisher's qualifier alongside the value as {"value": ${valueText(q)}, "unit": "${q.unit}", "quality": "<flag>"}`,
      );
    }
    if (!meetsFloor(q.quality, decl.quality)) {
      throw new QualityViolation(
        `this tool requires ${floor} record, and the value supplied (${valueText(q)} ${q.unit}) is ` +
          `${q.quality}; send a record of ${decl.quality} grade or better, or report that none is available`,
      );
    }
  }
  const unit = decl.unit as string;
  let converted = q;
  if (q.unit !== unit) {
    try {
      converted = q.to(unit);
    } catch (e) {
      if (!(e instanceof DimensionalityError)) throw e;
      const want = parseUnit(unit);
      throw new DimensionalityError(
        `expected a quantity in ${unit} (${describe(want)}), received ${q.display()} ` +
          `(${describe(parseUnit(q.unit))}); these are different physical quantities and no conversion ` +
          `exists, ` +
          `so send a value in ${unit} or a unit convertible to it`,
        { context: { expected: unit, received: q.unit } },
      );
    }
  }
  return { quantity: converted, original: q, shape, converted: q.unit !== unit };
}

function readShape(input: unknown, decl: Declaration, ctx: Ctx): { quantity: Quantity; shape: Shape } {
  // A Quantity handed in process (the library) is read through its JSON form, whose keys are the wire's.
  const raw = input instanceof Quantity ? input.toJSON() : input;
  const unit = decl.unit as string;
  const quality = ctx.quality ?? DEFAULT_QUALITY;
  if (typeof raw === "number") {
    if (decl.requireExplicitUnit) {
      throw new MissingUnit(
        `this tool requires an explicit unit, so send {"value": ${formatMagnitude(raw)}, "unit": "${unit}"} rather than a bare number`,
      );
    }
    return { quantity: new Quantity(raw, unit), shape: { kind: "bare", value: raw } };
  }
  if (Array.isArray(raw)) {
    if (decl.requireExplicitUnit)
      throw new MissingUnit(
        `this tool requires an explicit unit, so send {"value": [...], "unit": "${unit}"} rather than a bare series`,
      );
    return { quantity: new Quantity(readMagnitude(raw), unit), shape: { kind: "series" } };
  }
  if (typeof raw === "string") {
    const text = raw.trim();
    if (text.startsWith("{") && text.endsWith("}")) {
      const obj = parseObjectText(text);
      if (obj !== undefined) return readShape(obj, decl, ctx);
    }
    return { quantity: Quantity.parse(text), shape: { kind: "string", text } };
  }
  if (typeof raw === "object" && raw !== null) {
    const o = raw as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => !QUANTITY_KEYS.includes(k));
    if (extra.length) {
      throw new UnitParseError(
        "a quantity object takes only value, unit, datum, crs, quality, source, observed_at and flags; " +
          `remove ${extra.map((k) => `'${k}'`).join(", ")} and resend`,
      );
    }
    if (!("value" in o))
      throw new UnitParseError(`quantity object needs a 'value' key, received keys [${Object.keys(o).join(", ")}]`);
    const given = o.unit;
    if (given !== undefined && given !== null && typeof given !== "string")
      throw new UnitParseError(
        `a quantity's 'unit' must be a string such as "${unit}", received ${JSON.stringify(given)}`,
      );
    if (decl.requireExplicitUnit && (given === undefined || given === null || given === "")) {
      const why = given === "" ? "left it empty" : "left it out";
      throw new MissingUnit(
        `this tool requires an explicit unit, so send {"value": ${JSON.stringify(o.value)}, "unit": ` +
          `"${unit}"}; the object form carries a unit key and this one ${why}`,
      );
    }
    let value = o.value;
    if (typeof value === "string" && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) value = Number(value);
    const q = new Quantity(
      readMagnitude(value),
      typeof given === "string" && given !== "" ? given : unit,
      readMeta(o, { datums: ctx.datums, quality }),
    );
    return {
      quantity: q,
      shape: Array.isArray(value)
        ? { kind: "series" }
        : { kind: "object", value, unit: typeof given === "string" && given !== "" ? given : null },
    };
  }
  throw new UnitParseError(
    `cannot read a quantity from ${raw === null ? "null" : typeof raw}; send a number in ${unit}, a string ` +
      `such as "1.5 ${unit}", or {"value": 1.5, "unit": "${unit}"}`,
  );
}

/**
 * Models JSON-encode objects into strings, and some write Python's repr instead (`{'value': 7.73, 'unit': 'ft'}`,
 * seen in the corpus): read both. Single quotes are swapped only when the text holds no double quote.
 */
function parseObjectText(text: string): unknown {
  for (const candidate of text.includes('"') ? [text] : [text, text.replace(/'/g, '"')]) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      /* try the next reading */
    }
  }
  return undefined;
}

function metaOf(q: Quantity) {
  return { datum: q.datum, crs: q.crs, quality: q.quality, source: q.source };
}

function valueText(q: Quantity): string {
  return typeof q.value === "number" ? formatMagnitude(q.value) : "[...]";
}

/** How a message names what was received: "the bare number 1250", "1250 labelled m^3/s", "'1250 m3/s'". */
export function receivedText(shape: Shape, q: Quantity): string {
  switch (shape.kind) {
    case "bare":
      return `the bare number ${formatMagnitude(shape.value)}`;
    case "string":
      return `'${shape.text}'`;
    case "object":
      return shape.unit
        ? `${formatMagnitude(Number(shape.value))} labelled ${shape.unit}`
        : `${formatMagnitude(Number(shape.value))} with no unit`;
    case "series":
      return q.display();
  }
}

/** The warn-mode face value: the magnitude as sent, read in the declared unit, ignoring any stated unit. */
export function faceValue(raw: unknown, decl: Declaration): Quantity | null {
  const unit = decl.unit as string;
  const n =
    typeof raw === "number"
      ? raw
      : typeof raw === "string"
        ? Number(raw.trim().split(/\s+/)[0]?.replace(/,/g, ""))
        : typeof raw === "object" &&
            raw !== null &&
            "value" in raw &&
            typeof (raw as { value: unknown }).value === "number"
          ? (raw as { value: number }).value
          : Number.NaN;
  if (!Number.isFinite(n)) return null;
  return new Quantity(n, unit, { datum: decl.datum });
}

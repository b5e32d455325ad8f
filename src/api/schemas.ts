// zod schemas shared by several route modules: quantities and violations as the API carries them.
import { z } from "@hono/zod-openapi";
import { unknownKeysMessage } from "./suggest.js";

/**
 * A strict object whose unknown-key error names each key's likely spelling and the keys it takes
 * (`unknown field "label" (did you mean "labels"?); accepted: context, enforcement, labels`).
 */
export function strictObject<S extends z.ZodRawShape>(shape: S) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => (iss.code === "unrecognized_keys" ? unknownKeysMessage(iss.keys, accepted) : undefined),
  });
}

/** A magnitude: a finite number, or a series in which null marks a gap. */
export const MagnitudeSchema = z.union([z.number(), z.array(z.number().nullable()).max(100_000)]);

/** A quantity as it travels: any other key is refused, so a misspelt "datum " never passes silently. */
export const QuantitySchema = strictObject({
  value: MagnitudeSchema,
  unit: z.string().max(200),
  datum: z.string().max(128).optional(),
  crs: z.string().max(128).optional(),
  quality: z.string().max(64).optional(),
  source: z.string().max(512).optional(),
  observed_at: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: "ISO 8601 with an offset: the time the value describes (set on every pack reading)" }),
  flags: z
    .array(z.string().min(1).max(64))
    .max(32)
    .optional()
    .openapi({ description: "the publisher's qualifiers as quality flags (ice, backwater); [] when it stated none" }),
}).openapi("Quantity");

/** What a quantity union's error says: the forms it accepts (zod alone says only "Invalid input"). */
export const QUANTITY_FORMS =
  'expected a quantity object such as {"value": 1250, "unit": "cfs"} (optional datum, crs, quality, source, ' +
  'observed_at, flags), or a string such as "1250 cfs"';

/** A quantity or a quantity string such as "1250 cfs". */
export const QuantityOrStringSchema = z.union([QuantitySchema, z.string().min(1).max(256)], {
  error: QUANTITY_FORMS,
});

/** One refused or flagged value. */
export const ViolationSchema = z
  .object({ code: z.string(), param: z.string().nullable(), message: z.string(), repair: z.string() })
  .openapi("Violation");

// POST /v1/convert and POST /v1/compute: direct operations on quantities, refused with 422 and a domain code.
import { createRoute, z } from "@hono/zod-openapi";
import { Quantity } from "../../quantity/quantity.js";
import type { DatumRegistry } from "../../quantity/datums.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonBody, jsonResponse } from "../http.js";
import { QUANTITY_FORMS, QuantityOrStringSchema, QuantitySchema, strictObject } from "../schemas.js";

// Two spellings of the target, one meaning: `to: {unit, datum}` (this API's first form) and `to_unit`/`to_datum` (the
// MCP tool's); either or both, as long as they agree.
const ConvertSchema = strictObject({
  quantity: QuantityOrStringSchema,
  to: strictObject({ unit: z.string().min(1).max(200).optional(), datum: z.string().min(1).max(128).optional() })
    .default({})
    .openapi({ description: 'the target: {"unit": "m^3/s"} and/or {"datum": "NAVD88"}' }),
  to_unit: z.string().min(1).max(200).optional().openapi({ description: "the same as to.unit" }),
  to_datum: z.string().min(1).max(128).optional().openapi({ description: "the same as to.datum" }),
})
  .superRefine((b, ctx) => {
    for (const [flat, nested] of [
      ["to_unit", "unit"],
      ["to_datum", "datum"],
    ] as const) {
      const a = b[flat];
      const n = b.to[nested];
      if (a !== undefined && n !== undefined && a !== n)
        ctx.addIssue({
          code: "custom",
          path: [flat],
          message: `${flat} "${a}" and to.${nested} "${n}" differ: send one`,
        });
    }
  })
  .openapi("ConvertRequest");

const OPS = ["add", "sub", "mul", "div", "lt", "gt", "eq"] as const;
// API.md: every quantity input may also be a string ("12.4 ft"); a plain number is dimensionless here.
const Operand = z.union([QuantitySchema, z.string().min(1).max(256), z.number()], {
  error: `${QUANTITY_FORMS}, or a plain number (dimensionless)`,
});
const ComputeSchema = strictObject({ op: z.enum(OPS), a: Operand, b: Operand }).openapi("ComputeRequest");

const convertRoute = createRoute({
  method: "post",
  path: "/v1/convert",
  summary: "Convert a quantity into another unit and/or onto another datum along a registered offset",
  tags: ["quantities"],
  request: { body: jsonBody(ConvertSchema) },
  responses: {
    200: jsonResponse(z.object({ quantity: QuantitySchema }), "the converted quantity"),
    ...errorResponses(400, 401, 413, 422),
  },
});

const computeRoute = createRoute({
  method: "post",
  path: "/v1/compute",
  summary: "Add, subtract, multiply, divide or compare two quantities under the unit and datum algebra",
  tags: ["quantities"],
  request: { body: jsonBody(ComputeSchema) },
  responses: {
    200: jsonResponse(
      z.union([z.object({ quantity: QuantitySchema }), z.object({ result: z.boolean() })]),
      "the quantity, or the comparison",
    ),
    ...errorResponses(400, 401, 413, 422),
  },
});

/** Reads a quantity, its string form, or a plain number (dimensionless), checking datum and quality against the team. */
export function readQuantity(input: z.infer<typeof QuantityOrStringSchema> | number, datums: DatumRegistry): Quantity {
  if (typeof input === "number") return new Quantity(input, "");
  if (typeof input === "string") return Quantity.parse(input);
  return Quantity.fromJSON(input, { datums });
}

/** Registers POST /v1/convert and POST /v1/compute. */
export function registerQuantityRoutes(app: LedgerApp, deps: AppDeps): void {
  const registry = (teamId: string) => deps.store.datums.registry(teamId);

  app.openapi(convertRoute, async (c) => {
    const body = c.req.valid("json");
    const datums = await registry(c.get("teamId"));
    let q = readQuantity(body.quantity, datums);
    const unit = body.to_unit ?? body.to.unit;
    const datum = body.to_datum ?? body.to.datum;
    if (unit) q = q.to(unit);
    if (datum) q = q.toDatum(datum, datums);
    return c.json({ quantity: q.toJSON() }, 200);
  });

  app.openapi(computeRoute, async (c) => {
    const { op, a, b } = c.req.valid("json");
    const datums = await registry(c.get("teamId"));
    const qa = readQuantity(a, datums);
    const qb = readQuantity(b, datums);
    switch (op) {
      case "add":
        return c.json({ quantity: qa.add(qb).toJSON() }, 200);
      case "sub":
        return c.json({ quantity: qa.sub(qb).toJSON() }, 200);
      case "mul":
        return c.json({ quantity: qa.mul(qb).toJSON() }, 200);
      case "div":
        return c.json({ quantity: qa.div(qb).toJSON() }, 200);
      case "lt":
        return c.json({ result: qa.compare(qb) < 0 }, 200);
      case "gt":
        return c.json({ result: qa.compare(qb) > 0 }, 200);
      case "eq":
        return c.json({ result: qa.equals(qb) }, 200);
    }
  });
}

// The datum registry: the 22 built-in vertical datums, the team's own, and offsets registered explicitly.
import { createRoute, z } from "@hono/zod-openapi";
import { DimensionalityError } from "../../quantity/errors.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { ApiError } from "../errors.js";
import { decodeCursor, errorResponses, jsonBody, jsonResponse, PageQuerySchema, toPage } from "../http.js";
import { QuantitySchema } from "../schemas.js";
import { readQuantity } from "./quantities.js";

const DATUM_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}$/;

const DatumSchema = z
  .object({ name: z.string(), kind: z.string(), description: z.string(), builtin: z.boolean() })
  .openapi("Datum");
const OffsetSchema = z
  .object({ from: z.string(), to: z.string(), offset: QuantitySchema, source: z.string().nullable() })
  .openapi("DatumOffset");
const RegistrySchema = z
  .object({
    items: z.array(DatumSchema),
    offsets: z.array(OffsetSchema).openapi({ description: "every offset of the team, on every page" }),
    next_cursor: z.string().nullable(),
  })
  .openapi("DatumRegistry");

const DatumCreateSchema = z
  .strictObject({
    name: z.string().regex(DATUM_NAME, "datum names are letters, digits and _ . : + -, up to 128"),
    description: z.string().max(1000).optional(),
  })
  .openapi("DatumCreate");
const OffsetCreateSchema = z
  .strictObject({
    from: z.string().min(1).max(128),
    to: z.string().min(1).max(128),
    offset: z
      .union([QuantitySchema, z.string().min(1).max(256)], {
        error: 'a datum offset states its unit, never a bare number: send {"value": 0.3, "unit": "m"} or "0.3 m"',
      })
      .openapi({ description: "a length with its unit; a bare number is refused" }),
    source: z.string().max(512).optional(),
  })
  .openapi("OffsetCreate");

const listRoute = createRoute({
  method: "get",
  path: "/v1/datums",
  summary: "The datum registry: built-ins, the team's datums and its offsets",
  tags: ["datums"],
  request: { query: PageQuerySchema },
  responses: { 200: jsonResponse(RegistrySchema, "the registry, builtins first"), ...errorResponses(400, 401) },
});
const createDatumRoute = createRoute({
  method: "post",
  path: "/v1/datums",
  summary: "Register a datum for this team",
  tags: ["datums"],
  request: { body: jsonBody(DatumCreateSchema) },
  responses: { 201: jsonResponse(DatumSchema, "the datum"), ...errorResponses(400, 401, 409, 413) },
});
const createOffsetRoute = createRoute({
  method: "post",
  path: "/v1/datums/offsets",
  summary: "Register the offset between two datums (value on `to` = value on `from` + offset)",
  tags: ["datums"],
  request: { body: jsonBody(OffsetCreateSchema) },
  responses: { 201: jsonResponse(OffsetSchema, "the offset"), ...errorResponses(400, 401, 413, 422) },
});

/** Registers GET/POST /v1/datums and POST /v1/datums/offsets. */
export function registerDatumRoutes(app: LedgerApp, deps: AppDeps): void {
  const datums = deps.store.datums;

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const reg = await datums.registry(c.get("teamId"));
    const all = reg.list();
    // The cursor is the last name answered: datums are never removed, so it always names a row of this list.
    const after = decodeCursor(q.cursor)?.[0];
    const start = after === undefined ? 0 : all.findIndex((d) => d.name === after) + 1;
    if (start === 0 && after !== undefined) {
      throw new ApiError("invalid_request", "cursor is not valid: send the next_cursor of a previous page unchanged", [
        { path: "cursor", message: "not a datum cursor" },
      ]);
    }
    const page = toPage(all.slice(start, start + q.limit + 1), q.limit, (d) => [d.name]);
    const offsets = reg
      .listOffsets()
      .map((o) => ({ from: o.from, to: o.to, offset: { value: o.offsetM, unit: "m" }, source: o.source ?? null }));
    return c.json({ items: page.items, offsets, next_cursor: page.next_cursor }, 200);
  });

  app.openapi(createDatumRoute, async (c) => {
    const { name, description } = c.req.valid("json");
    await datums.add(c.get("teamId"), name, description ?? "");
    return c.json({ name, kind: "vertical", description: description ?? "", builtin: false }, 201);
  });

  app.openapi(createOffsetRoute, async (c) => {
    const body = c.req.valid("json");
    const teamId = c.get("teamId");
    const reg = await datums.registry(teamId);
    reg.get(body.from);
    reg.get(body.to);
    const offset = readQuantity(body.offset, reg);
    if (offset.datum)
      throw new DimensionalityError(
        `an offset is a length with no datum of its own, received ${offset.display()}; send {"value": ..., "unit": "m"}`,
      );
    if (typeof offset.value !== "number") throw new DimensionalityError("an offset is one length, not a series");
    const offsetM = offset.to("m").scalar;
    await datums.addOffset(teamId, {
      from: body.from,
      to: body.to,
      offsetM,
      offsetValue: offset.value,
      offsetUnit: offset.unit,
      source: body.source ?? null,
    });
    return c.json({ from: body.from, to: body.to, offset: offset.toJSON(), source: body.source ?? null }, 201);
  });
}

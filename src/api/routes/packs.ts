// Retrieval packs over HTTP: a USGS site or an Environment Agency station, read properly, its datums registered.
import { createRoute, z } from "@hono/zod-openapi";
import { eaReading, eaStation } from "../../packs/ea.js";
import { PackNotFoundError } from "../../packs/errors.js";
import { packTool } from "../../packs/tools.js";
import type { PackDatums } from "../../packs/shared.js";
import { USGS_LEGACY_END, USGS_LEGACY_NOTICE, usgsReading, usgsSite } from "../../packs/usgs.js";
import { usgsClient } from "../../packs/ogc/client.js";
import { registerOgcRoutes } from "./packs-ogc.js";
import type { LedgerStore } from "../../store/port.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonResponse } from "../http.js";
import { strictObject } from "../schemas.js";

const SiteParam = z.object({
  site: z
    .string()
    .min(1)
    .max(32)
    .openapi({ param: { name: "site", in: "path" } }),
});
const StationParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});
const SessionQuery = z.object({
  session: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({
      param: { name: "session", in: "query" },
      description: "record each reading as a tool output of this session",
    }),
});
const Any = z.record(z.string(), z.unknown());

const responses = { 200: jsonResponse(Any, "the record"), ...errorResponses(400, 401, 404, 502) };
const usgsSiteRoute = createRoute({
  method: "get",
  path: "/v1/packs/usgs-legacy/sites/{site}",
  summary: `A USGS WaterServices site record (legacy, until ${USGS_LEGACY_END}); reading it registers GAGE:<site> and its offset`,
  tags: ["packs"],
  request: { params: SiteParam },
  responses,
});
const usgsReadingRoute = createRoute({
  method: "get",
  path: "/v1/packs/usgs-legacy/sites/{site}/reading",
  summary: `The latest USGS WaterServices readings (legacy, until ${USGS_LEGACY_END}) with unit, quality, datum and offset`,
  tags: ["packs"],
  request: { params: SiteParam, query: SessionQuery },
  responses,
});
const eaStationRoute = createRoute({
  method: "get",
  path: "/v1/packs/ea/stations/{id}",
  summary: "An Environment Agency station; reading it registers GAUGE:<station> and its offset",
  tags: ["packs"],
  request: { params: StationParam },
  responses,
});
const eaReadingRoute = createRoute({
  method: "get",
  path: "/v1/packs/ea/stations/{id}/reading",
  summary: "The latest Environment Agency readings on the station datum or ODN",
  tags: ["packs"],
  request: { params: StationParam, query: SessionQuery },
  responses,
});

/** The pack tools a session can call, by the name they are declared under in the team's tools. */
const PACK_TOOLS: Record<string, string> = {
  "usgs.read_discharge": "read_discharge",
  "usgs.read_gage_height": "read_gage_height",
  "usgs.read_drainage_area": "read_drainage_area",
  "usgs.read_gage_datum": "read_gage_datum",
  "ea.read_level": "read_level",
  "ea.read_station_datum": "read_station_datum",
};

const ToolParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
  tool: z.enum(Object.keys(PACK_TOOLS) as [string, ...string[]]).openapi({ param: { name: "tool", in: "path" } }),
});
const callPackRoute = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/packs/{tool}",
  tags: ["packs", "sessions"],
  summary:
    "Call a retrieval pack as a guarded tool of the session: the service reads the publisher, registers the " +
    "datums, and records the call and its labelled result",
  request: {
    params: ToolParam,
    body: {
      required: true,
      content: { "application/json": { schema: strictObject({ args: z.record(z.string().max(64), z.unknown()) }) } },
    },
  },
  responses: { 200: jsonResponse(Any, "the call and its labelled result"), ...errorResponses(400, 401, 404, 413, 502) },
});

/** Registers a reading's datums and offsets for the team (first registration wins). */
export async function register(store: LedgerStore, teamId: string, d: PackDatums): Promise<void> {
  await store.datums.ensure(
    teamId,
    d.datums,
    d.offsets.map((o) => ({
      from: o.from,
      to: o.to,
      offsetM: o.offsetM,
      offsetValue: o.offsetM,
      offsetUnit: "m",
      source: o.source ?? null,
    })),
  );
}

/** Registers the USGS and Environment Agency routes. */
export function registerPackRoutes(app: LedgerApp, deps: AppDeps): void {
  const store = deps.store;
  const fetch = deps.packFetch;

  registerOgcRoutes(app, deps);
  const usgs = deps.usgs ?? usgsClient(deps.config);
  const legacy = { baseUrl: deps.config.usgsLegacyUrl };
  const ends = { ends: USGS_LEGACY_END, notice: USGS_LEGACY_NOTICE };

  app.openapi(usgsSiteRoute, async (c) => {
    const { site, datums } = await usgsSite(c.req.valid("param").site, fetch, legacy);
    await register(store, c.get("teamId"), datums);
    return c.json(
      { ...site, datum_offset: site.datum_offset ?? null, drainage_area: site.drainage_area ?? null, ...ends },
      200,
    );
  });

  app.openapi(usgsReadingRoute, async (c) => {
    const teamId = c.get("teamId");
    const session = c.req.valid("query").session;
    // Authorize before any write: another team's session is a 404 with nothing registered.
    if (session) await store.sessions.get(teamId, session);
    const r = await usgsReading(c.req.valid("param").site, fetch, legacy);
    await register(store, teamId, r.datums);
    if (session)
      await store.packs.record(
        teamId,
        session,
        "usgs.reading",
        r.readings.map((x) => ({ args: { site: r.site.id, parameter: x.parameter }, quantity: x.quantity })),
      );
    return c.json({ site: r.site, readings: r.readings, warnings: r.warnings, ...ends }, 200);
  });

  app.openapi(callPackRoute, async (c) => {
    const teamId = c.get("teamId");
    const { id, tool } = c.req.valid("param");
    const { args } = c.req.valid("json");
    const pack = packTool(PACK_TOOLS[tool]!);
    if (!pack) throw new PackNotFoundError(`no retrieval pack tool named '${tool}'`);
    await store.sessions.get(teamId, id);
    const out = await pack.run(args, { fetch, usgs, usgsUrl: deps.config.usgsLegacyUrl, eaUrl: deps.config.eaUrl });
    await register(store, teamId, out.datums);
    const answer = await store.packs.call(teamId, id, tool, pack.declaration, args, out.result);
    return c.json({ ...answer, warnings: out.warnings }, 200);
  });

  app.openapi(eaStationRoute, async (c) => {
    const { station, datums } = await eaStation(c.req.valid("param").id, fetch, { baseUrl: deps.config.eaUrl });
    await register(store, c.get("teamId"), datums);
    return c.json(station as unknown as Record<string, unknown>, 200);
  });

  app.openapi(eaReadingRoute, async (c) => {
    const teamId = c.get("teamId");
    const session = c.req.valid("query").session;
    if (session) await store.sessions.get(teamId, session);
    const r = await eaReading(c.req.valid("param").id, fetch, { baseUrl: deps.config.eaUrl });
    await register(store, teamId, r.datums);
    if (session)
      await store.packs.record(
        teamId,
        session,
        "ea.reading",
        r.readings.map((x) => ({
          args: { station: r.station.id, measure: x.measure_id ?? x.measure },
          quantity: x.quantity,
        })),
      );
    return c.json({ station: r.station, readings: r.readings, warnings: r.warnings }, 200);
  });
}

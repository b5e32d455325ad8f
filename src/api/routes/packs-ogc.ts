// The USGS pack over HTTP, read from the USGS Water Data OGC API: a site record, its latest readings, an
// instantaneous series and daily statistics; with ?session= every reading is stored as a crossing.
import { createRoute, z } from "@hono/zod-openapi";
import { PackRequestError } from "../../packs/errors.js";
import { usgsClient } from "../../packs/ogc/client.js";
import { type OgcReadings, ogcLatest, ogcParameter, ogcSeries, ogcSite } from "../../packs/ogc/pack.js";
import type { LedgerStore } from "../../store/port.js";
import type { AppDeps, LedgerApp } from "../env.js";
import { errorResponses, jsonResponse } from "../http.js";
import { register } from "./packs.js";

const SiteParam = z.object({
  site: z
    .string()
    .min(1)
    .max(32)
    .openapi({ param: { name: "site", in: "path" }, description: "07374000 or USGS-07374000" }),
});
const q = (name: string, description: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ param: { name, in: "query" }, description });
const session = q("session", "record each reading as a tool output of this session");
const ReadingQuery = z.object({ session, parameter: q("parameter", "parameter codes, comma-separated (00060,00065)") });
const SeriesQuery = z.object({
  session,
  parameter: q("parameter", "a parameter code (default 00060)"),
  from: q("from", "start, ISO 8601 date or date-time (default: 7 days before `to`; 30 for daily)"),
  to: q("to", "end, ISO 8601 date or date-time (default: now)"),
});
const DailyQuery = SeriesQuery.extend({
  statistic: q("statistic", "statistic code: 00003 mean (default), 00001 max, 00002 min"),
});
const Any = z.record(z.string(), z.unknown());
const responses = { 200: jsonResponse(Any, "the record"), ...errorResponses(400, 401, 404, 502, 503) };

const get = { method: "get" as const, tags: ["packs"], responses };
const base = "/v1/packs/usgs/sites/{site}";
const siteRoute = createRoute({
  ...get,
  path: base,
  summary: "A USGS site record (monitoring-locations); registers GAGE:<site> on its vertical datum",
  request: { params: SiteParam },
});
const readingRoute = createRoute({
  ...get,
  path: `${base}/reading`,
  summary: "The latest USGS readings (latest-continuous)",
  request: { params: SiteParam, query: ReadingQuery },
});
const seriesRoute = createRoute({
  ...get,
  path: `${base}/series`,
  summary: "A USGS instantaneous series over a window (continuous), in time order",
  request: { params: SiteParam, query: SeriesQuery },
});
const dailyRoute = createRoute({
  ...get,
  path: `${base}/daily`,
  summary: "USGS daily statistics over a window (daily), dated in the site's time zone",
  request: { params: SiteParam, query: DailyQuery },
});

const DAY = 86_400_000;

/** An instant from a query value; PackRequestError naming the parameter otherwise. */
function instant(name: string, raw: string | undefined, fallback: Date): Date {
  if (raw === undefined) return fallback;
  const t = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T00:00:00Z`) : Date.parse(raw);
  if (!Number.isFinite(t))
    throw new PackRequestError(`${name} must be an ISO 8601 date or date-time such as 2026-03-14; received '${raw}'`);
  return new Date(t);
}

/** Stores each reading with a value as a crossing of `tool` in the session (missing values have nothing to store). */
async function record(store: LedgerStore, teamId: string, sessionId: string, tool: string, r: OgcReadings) {
  const readings = r.readings.flatMap((x) =>
    x.quantity === null
      ? []
      : [
          {
            args: { site: r.site.id, parameter: x.parameter, series: x.series, time: x.observed_at },
            quantity: x.quantity,
          },
        ],
  );
  if (readings.length) await store.packs.record(teamId, sessionId, tool, readings);
}

/** Registers the `/v1/packs/usgs/...` routes over the OGC API. */
export function registerOgcRoutes(app: LedgerApp, deps: AppDeps): void {
  const { store } = deps;
  const usgs = deps.usgs ?? usgsClient(deps.config);

  app.openapi(siteRoute, async (c) => {
    const { site, datums } = await ogcSite(usgs, c.req.valid("param").site);
    await register(store, c.get("teamId"), datums);
    return c.json(site as unknown as Record<string, unknown>, 200);
  });

  /** Authorizes the session, reads, registers the datums, records; nothing is written before the session is known. */
  const answer = async (
    teamId: string,
    sessionId: string | undefined,
    tool: string,
    read: () => Promise<OgcReadings>,
  ) => {
    if (sessionId) await store.sessions.get(teamId, sessionId);
    const r = await read();
    await register(store, teamId, r.datums);
    if (sessionId) await record(store, teamId, sessionId, tool, r);
    return { site: r.site, readings: r.readings, warnings: r.warnings };
  };

  app.openapi(readingRoute, async (c) => {
    const { session: s, parameter } = c.req.valid("query");
    const params = parameter?.split(",").map((p) => ogcParameter(p));
    const body = await answer(c.get("teamId"), s, "usgs.reading", () =>
      ogcLatest(usgs, c.req.valid("param").site, params),
    );
    return c.json(body, 200);
  });

  app.openapi(seriesRoute, async (c) => {
    const v = c.req.valid("query");
    const to = instant("to", v.to, deps.clock.now());
    const from = instant("from", v.from, new Date(to.getTime() - 7 * DAY));
    const parameter = ogcParameter(v.parameter);
    const body = await answer(c.get("teamId"), v.session, "usgs.series", () =>
      ogcSeries(usgs, c.req.valid("param").site, "continuous", { parameter, from, to }),
    );
    return c.json(body, 200);
  });

  app.openapi(dailyRoute, async (c) => {
    const v = c.req.valid("query");
    const to = instant("to", v.to, deps.clock.now());
    const from = instant("from", v.from, new Date(to.getTime() - 30 * DAY));
    const parameter = ogcParameter(v.parameter);
    const statistic = ogcParameter(v.statistic, "00003");
    const body = await answer(c.get("teamId"), v.session, "usgs.daily", () =>
      ogcSeries(usgs, c.req.valid("param").site, "daily", { parameter, from, to, statistic }),
    );
    return c.json(body, 200);
  });
}

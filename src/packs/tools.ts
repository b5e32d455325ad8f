// The packs as guarded tools: declarations a session registers, and the bodies that answer them through an injected fetch.
import type { ToolDeclarationInput } from "../guard/declaration.js";
import type { QualityTable } from "../quantity/quality.js";
import { eaReading, eaStation } from "./ea.js";
import { PackNotFoundError, PackRequestError } from "./errors.js";
import type { Fetch } from "./fetch.js";
import { type PackDatums, fetchOrNotFound } from "./shared.js";
import type { OgcClient } from "./ogc/client.js";
import { ogcLatest, ogcSite } from "./ogc/pack.js";
import { gageDatumName, parseInstantaneous, usgsIvUrl, usgsReading, usgsSite, usgsSiteId } from "./usgs.js";

/** What a pack tool's body needs: the fetch, the upstream base URLs, and the team's quality table. */
export type PackToolContext = {
  fetch: Fetch;
  /** The USGS Water Data OGC API; when given, the USGS tools read it instead of WaterServices (usgs-legacy). */
  usgs?: OgcClient;
  usgsUrl?: string;
  eaUrl?: string;
  now?: Date;
  maxAgeSeconds?: number;
  quality?: QualityTable;
};

/**
 * A tool's answer: `result` matches the declaration's `returns` mapping (extra keys pass through unchecked); `datums` must be
 * registered in the team's registry before the result is checked, since the result names the site's local datum.
 */
export type PackToolOutput = { result: Record<string, unknown>; datums: PackDatums; warnings: string[] };

/** A pack tool: its name, its declaration for `PUT /v1/tools/{name}`, and its body. */
export type PackTool = {
  name: string;
  declaration: ToolDeclarationInput;
  run: (args: Record<string, unknown>, ctx: PackToolContext) => Promise<PackToolOutput>;
};

const SITE = {
  description:
    'USGS site number as a string of 8 to 15 digits, such as "07374000" (a number would lose its leading zero)',
};
const STATION = { description: 'Environment Agency station reference, such as "E21136"' };

/** Latest discharge at a USGS site, in the unit USGS publishes. */
export const READ_DISCHARGE: ToolDeclarationInput = {
  description:
    "Latest discharge (USGS parameter 00060) at a USGS site, in ft^3/s as published, with its quality " +
    "(provisional, approved, ...) and the time it was observed, in the site's own UTC offset.",
  params: { site: SITE },
  returns: { discharge: { unit: "ft^3/s", description: "Discharge, as published by USGS" } },
};

/** Latest gage height at a USGS site, on the site's local gage datum. */
export const READ_GAGE_HEIGHT: ToolDeclarationInput = {
  description:
    "Latest gage height (USGS parameter 00065) at a USGS site, in ft on the site's own gage datum " +
    "GAGE:<site>. It is not an elevation on NAVD88: convert it along the site's registered datum offset " +
    "before differencing it against one.",
  params: { site: SITE },
  returns: { gage_height: { unit: "ft", description: "Stage above the site's local gage datum GAGE:<site>" } },
};

/** Drainage area of a USGS site, in square kilometres. */
export const READ_DRAINAGE_AREA: ToolDeclarationInput = {
  description: "Drainage area of a USGS site, converted to km^2 from the square miles USGS publishes.",
  params: { site: SITE },
  returns: { drainage_area: { unit: "km^2", description: "Drainage area above the site" } },
};

/** The elevation of a USGS site's gage zero on the datum USGS names. */
export const READ_GAGE_DATUM: ToolDeclarationInput = {
  description:
    "Elevation of a USGS site's gage datum (the zero of its gage height) on the national datum USGS publishes " +
    "it on, such as NAVD88. Absent when USGS publishes no altitude or no datum for it.",
  params: { site: SITE },
  returns: { datum_offset: { unit: "ft", description: "The gage's zero, as an elevation on a national datum" } },
};

/** Latest water level at an Environment Agency station, on the station's datum or ODN. */
export const READ_LEVEL: ToolDeclarationInput = {
  description:
    "Latest water level at an Environment Agency station, in m: on the station's own datum GAUGE:<station> " +
    "when published as mASD, on ODN when published as mAOD. Convert along the station's registered offset " +
    "before differencing it against an ODN elevation.",
  params: { station: STATION },
  returns: { level: { unit: "m", description: "Water level on the datum named in its quantity" } },
};

/** The elevation of an Environment Agency station's zero on ODN. */
export const READ_STATION_DATUM: ToolDeclarationInput = {
  description:
    "Elevation of an Environment Agency station's zero (its datumOffset) on Ordnance Datum Newlyn. Absent when the station publishes none.",
  params: { station: STATION },
  returns: { datum_offset: { unit: "m", description: "The station's zero, as an elevation on ODN" } },
};

function siteArg(args: Record<string, unknown>): string {
  const site = args.site;
  if (typeof site !== "string") {
    throw new PackRequestError(
      `site must be a string of digits such as "07374000", received ${JSON.stringify(site) ?? "nothing"}; a number loses its leading zeros`,
      { site },
    );
  }
  return usgsSiteId(site);
}

function stationArg(args: Record<string, unknown>): string {
  const station = args.station;
  if (typeof station !== "string")
    throw new PackRequestError(
      `station must be a string such as "E21136", received ${JSON.stringify(station) ?? "nothing"}`,
      { station },
    );
  return station;
}

function usgsOpts(ctx: PackToolContext) {
  return { baseUrl: ctx.usgsUrl, now: ctx.now, maxAgeSeconds: ctx.maxAgeSeconds, quality: ctx.quality };
}

/** The latest OGC reading of one parameter, as the tools answer it; PackNotFoundError when USGS has none with a value. */
async function ogcOne(client: OgcClient, site: string, parameter: string, what: string) {
  const got = await ogcLatest(client, site, [parameter]);
  const r = got.readings.find((x) => x.parameter === parameter && x.quantity !== null);
  if (!r?.quantity)
    throw missing(`USGS site ${site} published no ${what} (${parameter}) reading with a value`, got.warnings);
  return { got, r, quantity: r.quantity };
}

async function readDischarge(args: Record<string, unknown>, ctx: PackToolContext): Promise<PackToolOutput> {
  const site = siteArg(args);
  if (ctx.usgs) {
    const { got, r, quantity } = await ogcOne(ctx.usgs, site, "00060", "discharge");
    return {
      result: { discharge: quantity, observed_at: r.observed_at, site, qualifiers: r.qualifiers, series: r.series },
      datums: got.datums,
      warnings: got.warnings,
    };
  }
  // Discharge carries no datum, so the site record need not be read.
  const text = await fetchOrNotFound(
    ctx.fetch,
    usgsIvUrl(site, ctx.usgsUrl, ["00060"]),
    `USGS instantaneous values for ${site}`,
  );
  const iv = parseInstantaneous(text, site, gageDatumName(site), usgsOpts(ctx));
  const r = iv.readings.find((x) => x.parameter === "00060");
  if (!r) throw missing(`USGS site ${site} published no discharge (00060) reading`, iv.warnings);
  return {
    result: { discharge: r.quantity, observed_at: r.observed_at, site, qualifiers: r.qualifiers },
    datums: { datums: [], offsets: [] },
    warnings: iv.warnings,
  };
}

async function readGageHeight(args: Record<string, unknown>, ctx: PackToolContext): Promise<PackToolOutput> {
  const site = siteArg(args);
  if (ctx.usgs) {
    const { got, r, quantity } = await ogcOne(ctx.usgs, site, "00065", "gage height");
    return {
      result: {
        gage_height: quantity,
        observed_at: r.observed_at,
        site,
        datum: got.site.datum,
        datum_offset: got.site.datum_offset,
        qualifiers: r.qualifiers,
        series: r.series,
      },
      datums: got.datums,
      warnings: got.warnings,
    };
  }
  const got = await usgsReading(site, ctx.fetch, { ...usgsOpts(ctx), parameters: ["00065"] });
  const r = got.readings.find((x) => x.parameter === "00065");
  if (!r) throw missing(`USGS site ${site} published no gage height (00065) reading`, got.warnings);
  return {
    result: {
      gage_height: r.quantity,
      observed_at: r.observed_at,
      site,
      datum: got.site.datum,
      datum_offset: got.site.datum_offset,
      qualifiers: r.qualifiers,
    },
    datums: got.datums,
    warnings: got.warnings,
  };
}

/** The site record from the OGC API when the context has a client, else from WaterServices. */
async function siteOf(args: Record<string, unknown>, ctx: PackToolContext) {
  const id = siteArg(args);
  return ctx.usgs ? ogcSite(ctx.usgs, id) : usgsSite(id, ctx.fetch, usgsOpts(ctx));
}

async function readDrainageArea(args: Record<string, unknown>, ctx: PackToolContext): Promise<PackToolOutput> {
  const { site, datums } = await siteOf(args, ctx);
  if (!site.drainage_area) throw missing(`USGS site ${site.id} publishes no drainage area`, site.warnings);
  return {
    result: { drainage_area: site.drainage_area, drainage_area_mi2: site.drainage_area_mi2, site: site.id },
    datums,
    warnings: site.warnings,
  };
}

async function readGageDatum(args: Record<string, unknown>, ctx: PackToolContext): Promise<PackToolOutput> {
  const { site, datums } = await siteOf(args, ctx);
  if (!site.datum_offset)
    throw missing(`USGS site ${site.id} publishes no altitude with a datum for its gage`, site.warnings);
  return {
    result: { datum_offset: site.datum_offset, datum: site.datum, site: site.id },
    datums,
    warnings: site.warnings,
  };
}

async function readLevel(args: Record<string, unknown>, ctx: PackToolContext): Promise<PackToolOutput> {
  const got = await eaReading(stationArg(args), ctx.fetch, {
    baseUrl: ctx.eaUrl,
    now: ctx.now,
    maxAgeSeconds: ctx.maxAgeSeconds,
    quality: ctx.quality,
  });
  const levels = got.readings.filter((r) => r.parameter === "level");
  // A station may publish a downstream or tidal level beside its own stage; the stage is the station's level.
  const r = levels.find((x) => x.qualifier === "Stage") ?? levels[0];
  if (!r) throw missing(`EA station ${got.station.id} published no water level reading`, got.warnings);
  return {
    result: {
      level: r.quantity,
      observed_at: r.observed_at,
      station: got.station.id,
      measure: r.measure,
      measure_id: r.measure_id,
      qualifier: r.qualifier,
    },
    datums: got.datums,
    warnings: got.warnings,
  };
}

async function readStationDatum(args: Record<string, unknown>, ctx: PackToolContext): Promise<PackToolOutput> {
  const { station, datums } = await eaStation(stationArg(args), ctx.fetch, { baseUrl: ctx.eaUrl });
  if (!station.datum_offset) throw missing(`EA station ${station.id} publishes no datumOffset`, station.warnings);
  return {
    result: { datum_offset: station.datum_offset, datum: station.datum, station: station.id },
    datums,
    warnings: station.warnings,
  };
}

function missing(what: string, warnings: string[]): PackNotFoundError {
  return new PackNotFoundError(warnings.length ? `${what}: ${warnings.join("; ")}` : what, { warnings });
}

const TOOLS: readonly PackTool[] = [
  { name: "read_discharge", declaration: READ_DISCHARGE, run: readDischarge },
  { name: "read_gage_height", declaration: READ_GAGE_HEIGHT, run: readGageHeight },
  { name: "read_drainage_area", declaration: READ_DRAINAGE_AREA, run: readDrainageArea },
  { name: "read_gage_datum", declaration: READ_GAGE_DATUM, run: readGageDatum },
  { name: "read_level", declaration: READ_LEVEL, run: readLevel },
  { name: "read_station_datum", declaration: READ_STATION_DATUM, run: readStationDatum },
];

/** Every pack tool, in a stable order. */
export function packTools(): PackTool[] {
  return [...TOOLS];
}

/** The pack tool of that name, or undefined. */
export function packTool(name: string): PackTool | undefined {
  return TOOLS.find((t) => t.name === name);
}

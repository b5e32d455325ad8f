// The USGS pack on the Water Data OGC API: the site record (monitoring-locations), the latest readings
// (latest-continuous), instantaneous series (continuous) and daily statistics (daily), each reading identified by its
// time series and time, with its quality, flags and observation time.
import { DateTime } from "luxon";
import { Quantity, type QuantityJSON } from "../../quantity/quantity.js";
import { convertMagnitude } from "../../quantity/units.js";
import { PackNotFoundError, PackRequestError } from "../errors.js";
import { type PackDatums, pick, readNumber } from "../shared.js";
import { gageDatumName, siteDatums, USGS_DATUM_PARAMETERS, type UsgsSite } from "../usgs.js";
import type { OgcClient } from "./client.js";
import {
  exactNumber,
  flagsOf,
  gradeOf,
  ianaZone,
  type OgcQuality,
  ogcUnit,
  PARAMETER_NAMES,
  qualifiersOf,
  qualityOf,
} from "./values.js";

/** A site record as the OGC API gives it, in today's site shape plus the location id and vertical datum. */
export type OgcSite = UsgsSite & { monitoring_location_id: string; vertical_datum: string | null };

/** One reading; `quantity` is null for a missing value, and `missing` says why. */
export type OgcReading = {
  parameter: string;
  name: string;
  quantity: QuantityJSON | null;
  missing?: string;
  observed_at: string;
  /** The time series the reading belongs to: with `observed_at`, its identity (the record id changes on refresh). */
  series: string;
  statistic: string | null;
  quality: OgcQuality;
  flags: string[];
  qualifiers: string[];
  approval_status: string | null;
  last_modified: string | null;
};

/** The collections readings come from, and how their `time` reads. */
export type ReadingCollection = "latest-continuous" | "continuous" | "daily";

const SITE = /^(?:([A-Z0-9]{2,10})-)?(\d{8,15})$/;
const PARAMETER = /^\d{5}$/;
/** Windows are split below USGS's 1,100-day envelope. */
export const WINDOW_DAYS = 1000;

/** `07374000` or `USGS-07374000` as the site number and the monitoring location id; PackRequestError otherwise. */
export function ogcSiteId(raw: string): { number: string; location: string } {
  const m = SITE.exec(raw.trim());
  if (!m)
    throw new PackRequestError(
      `USGS sites are 8 to 15 digits, optionally after an agency prefix, such as 07374000 or USGS-07374000; received '${raw}'`,
      { site: raw },
    );
  return { number: m[2]!, location: `${m[1] ?? "USGS"}-${m[2]}` };
}

/** A parameter code, checked: five digits. */
export function ogcParameter(raw: string | undefined, fallback = "00060"): string {
  const p = (raw ?? fallback).trim();
  if (!PARAMETER.test(p))
    throw new PackRequestError(`USGS parameter codes are 5 digits, such as 00060; received '${raw}'`, {
      parameter: raw,
    });
  return p;
}

/** Reads a monitoring-locations Feature: names, IANA time zone, altitude on its vertical datum, drainage area. */
export function parseOgcSite(feature: unknown, site: { number: string; location: string }): OgcSite {
  const p = (pick(feature, ["properties"]) ?? {}) as Record<string, unknown>;
  const id = site.number;
  const warnings: string[] = [];
  const zone = ianaZone(p.time_zone_abbreviation, p.uses_daylight_savings);
  if (zone === null)
    warnings.push(
      `USGS site ${id} names its time zone ${JSON.stringify(p.time_zone_abbreviation ?? null)} (daylight saving ` +
        `${JSON.stringify(p.uses_daylight_savings ?? null)}), which this service does not map; daily values cannot be dated`,
    );
  const alt = readNumber(p.altitude);
  const vdatum =
    typeof p.vertical_datum === "string" && p.vertical_datum.trim() !== "" ? p.vertical_datum.trim() : null;
  if (alt !== null && vdatum === null)
    warnings.push(
      `USGS site ${id} publishes an altitude of ${alt} ft but no vertical_datum, so gage height stays on ${gageDatumName(id)}`,
    );
  const acc = readNumber(p.altitude_accuracy);
  const mi2 = readNumber(p.drainage_area);
  const coords = pick(feature, ["geometry", "coordinates"]);
  return {
    id,
    monitoring_location_id: site.location,
    name: typeof p.monitoring_location_name === "string" ? p.monitoring_location_name : id,
    timezone: zone ?? "",
    horizontal_crs: typeof p.original_horizontal_datum === "string" ? p.original_horizontal_datum : null,
    latitude: readNumber(pick(coords, [1])),
    longitude: readNumber(pick(coords, [0])),
    altitude: alt === null ? null : vdatum ? { value: alt, unit: "ft", datum: vdatum } : { value: alt, unit: "ft" },
    altitude_accuracy: acc === null ? null : { value: acc, unit: "ft" },
    datum: gageDatumName(id),
    datum_offset: alt !== null && vdatum ? { value: alt, unit: "ft", datum: vdatum } : null,
    vertical_datum: vdatum,
    drainage_area:
      mi2 === null
        ? null
        : { value: convertMagnitude(mi2, "mi^2", "km^2"), unit: "km^2", source: `usgs:${id}:drainage_area` },
    drainage_area_mi2: mi2,
    warnings,
  };
}

/** The site record and the datums its caller registers (GAGE:<site>, placed on the site's vertical datum). */
export async function ogcSite(client: OgcClient, raw: string): Promise<{ site: OgcSite; datums: PackDatums }> {
  const id = ogcSiteId(raw);
  let answer: Awaited<ReturnType<OgcClient["item"]>>;
  try {
    answer = await client.item("monitoring-locations", id.location);
  } catch (e) {
    if (e instanceof PackNotFoundError)
      throw new PackNotFoundError(`USGS has no monitoring location ${id.location}: ${e.message}`, e.details, e);
    throw e;
  }
  const site = parseOgcSite(answer.body, id);
  return { site, datums: siteDatums(site) };
}

/** The time an observation describes: UTC for instantaneous values, local midnight in the site's zone for daily ones. */
function observedAt(time: unknown, collection: ReadingCollection, zone: string): string | null {
  if (typeof time !== "string") return null;
  if (collection === "daily") {
    if (zone === "" || !/^\d{4}-\d{2}-\d{2}$/.test(time)) return null;
    const dt = DateTime.fromISO(time, { zone });
    return dt.isValid ? dt.toISO({ suppressMilliseconds: true }) : null;
  }
  if (!/(?:Z|[+-]\d{2}:?\d{2})$/.test(time)) return null;
  const dt = DateTime.fromISO(time, { setZone: true });
  return dt.isValid ? dt.toUTC().toISO({ suppressMilliseconds: true }) : null;
}

/** One Feature as a reading, or null with a warning when it cannot be one (no time, unmapped unit, unreadable value). */
export function parseOgcReading(
  feature: unknown,
  site: OgcSite,
  collection: ReadingCollection,
  warnings: string[],
): OgcReading | null {
  const p = (pick(feature, ["properties"]) ?? {}) as Record<string, unknown>;
  const parameter = typeof p.parameter_code === "string" ? p.parameter_code : "";
  const series = typeof p.time_series_id === "string" ? p.time_series_id : "";
  const what = `USGS ${collection} ${parameter || "(no parameter_code)"} at ${site.id} time ${String(p.time ?? "")}`;
  const when = observedAt(p.time, collection, site.timezone);
  if (when === null || series === "") {
    const why =
      series === ""
        ? "it has no time_series_id"
        : collection === "daily" && site.timezone === ""
          ? "the site's time zone is unknown"
          : "its time has no offset or cannot be read";
    warnings.push(`skipping ${what}: ${why}`);
    return null;
  }
  const qualifiers = qualifiersOf(p.qualifier);
  const flags = flagsOf(qualifiers);
  const quality = qualityOf(p.approval_status, flags);
  const base = {
    parameter,
    name: PARAMETER_NAMES[parameter] ?? parameter,
    observed_at: when,
    series,
    statistic: typeof p.statistic_id === "string" ? p.statistic_id : null,
    quality,
    flags,
    qualifiers,
    approval_status: typeof p.approval_status === "string" ? p.approval_status : null,
    last_modified: typeof p.last_modified === "string" ? p.last_modified : null,
  };
  if (p.value === null || p.value === undefined) {
    const why = qualifiers.length ? ` (qualifier ${qualifiers.join(", ")})` : "";
    return { ...base, quantity: null, missing: `USGS published no value for this time${why}` };
  }
  const value = typeof p.value === "string" ? exactNumber(p.value) : null;
  if (value === null) {
    warnings.push(
      `skipping ${what}: its value ${JSON.stringify(p.value)} is not a decimal this service stores with exactly the digits written`,
    );
    return null;
  }
  let unit: string;
  try {
    unit = ogcUnit(p.unit_of_measure);
  } catch (e) {
    warnings.push(`skipping ${what}: ${(e as Error).message}`);
    return null;
  }
  const on = USGS_DATUM_PARAMETERS[parameter];
  const quantity = new Quantity(value, unit, {
    datum: on === undefined ? null : on === "site" ? site.datum : on,
    quality: gradeOf(quality, flags),
    source: `usgs:${site.id}:${parameter}:${series}`,
    observedAt: when,
    // Always stated ([] for none), so a qualifier added or removed on a re-read is a revision (src/store/revisions.ts).
    flags,
  }).toJSON();
  return { ...base, quantity };
}

/** Readings of many Features: merged, one per (series, time) (the later page wins), sorted by time then series. */
export function readingsOf(
  features: readonly unknown[],
  site: OgcSite,
  collection: ReadingCollection,
  warnings: string[],
): OgcReading[] {
  const byKey = new Map<string, OgcReading>();
  for (const f of features) {
    const r = parseOgcReading(f, site, collection, warnings);
    if (r) byKey.set(`${r.series}|${r.observed_at}`, r);
  }
  const instant = (r: OgcReading) => DateTime.fromISO(r.observed_at, { setZone: true }).toMillis();
  return [...byKey.values()].sort(
    (a, b) => instant(a) - instant(b) || a.parameter.localeCompare(b.parameter) || a.series.localeCompare(b.series),
  );
}

/** A from/to window split into pieces of at most WINDOW_DAYS days, in order. */
export function splitWindow(from: Date, to: Date, days = WINDOW_DAYS): [Date, Date][] {
  const out: [Date, Date][] = [];
  const step = days * 86_400_000;
  for (let a = from.getTime(); a < to.getTime() || out.length === 0; a += step)
    out.push([new Date(a), new Date(Math.min(a + step, to.getTime()))]);
  return out;
}

/** The answer of every reading read: the site, the readings in time order, and what was skipped. */
export type OgcReadings = { site: OgcSite; readings: OgcReading[]; warnings: string[]; datums: PackDatums };

/** The latest instantaneous readings of a site (`latest-continuous`), by default discharge and gage height. */
export async function ogcLatest(
  client: OgcClient,
  raw: string,
  parameters: readonly string[] = ["00060", "00065"],
): Promise<OgcReadings> {
  const { site, datums } = await ogcSite(client, raw);
  const features = await client.items("latest-continuous", {
    monitoring_location_id: site.monitoring_location_id,
    parameter_code: parameters.join(","),
  });
  const warnings = [...site.warnings];
  const readings = readingsOf(features, site, "latest-continuous", warnings);
  if (readings.length === 0)
    throw new PackNotFoundError(
      `USGS has no latest reading of parameter ${parameters.join(" or ")} at ${site.monitoring_location_id}; ` +
        "check the parameter code against the site's time series",
      { site: site.id, parameters },
    );
  return { site, readings, warnings, datums };
}

/** A window's query value: instants for `continuous`, plain dates for `daily`. */
function timeFilter(a: Date, b: Date, collection: ReadingCollection): string {
  const iso = (d: Date) =>
    collection === "daily" ? d.toISOString().slice(0, 10) : d.toISOString().replace(".000Z", "Z");
  return `${iso(a)}/${iso(b)}`;
}

/** Options of a series read. */
export type SeriesQuery = { parameter: string; from: Date; to: Date; statistic?: string; lastModifiedSince?: string };

/**
 * The features of a (site, parameter) over a window: one walk of `next` links per window piece of at most 1,000 days;
 * `lastModifiedSince` asks only for records changed since then (the revision watch).
 */
export async function seriesFeatures(
  client: OgcClient,
  location: string,
  collection: "continuous" | "daily",
  q: SeriesQuery,
): Promise<unknown[]> {
  if (q.to.getTime() < q.from.getTime())
    throw new PackRequestError(
      `the window ends (${q.to.toISOString()}) before it begins (${q.from.toISOString()}); send from before to`,
    );
  const out: unknown[] = [];
  for (const [a, b] of splitWindow(q.from, q.to)) {
    const query: Record<string, string> = {
      monitoring_location_id: location,
      parameter_code: q.parameter,
      time: timeFilter(a, b, collection),
    };
    if (collection === "daily") query.statistic_id = q.statistic ?? "00003";
    if (q.lastModifiedSince) query.last_modified = `${q.lastModifiedSince}/..`;
    out.push(...(await client.items(collection, query)));
  }
  return out;
}

/** An instantaneous series (`continuous`) or daily statistics (`daily`) of one parameter over a window. */
export async function ogcSeries(
  client: OgcClient,
  raw: string,
  collection: "continuous" | "daily",
  q: SeriesQuery,
): Promise<OgcReadings> {
  const { site, datums } = await ogcSite(client, raw);
  const features = await seriesFeatures(client, site.monitoring_location_id, collection, q);
  const warnings = [...site.warnings];
  return { site, readings: readingsOf(features, site, collection, warnings), warnings, datums };
}

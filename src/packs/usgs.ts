// USGS Water Services: site records (RDB) and instantaneous values (JSON), read with their units, quality, offsets and datum.
import { BUILTIN_DATUMS } from "../quantity/datums.js";
import { type QualityTable, DEFAULT_QUALITY, weakest } from "../quantity/quality.js";
import { Quantity, type QuantityJSON } from "../quantity/quantity.js";
import { convertMagnitude } from "../quantity/units.js";
import { PackPayloadError, PackRequestError } from "./errors.js";
import type { Fetch } from "./fetch.js";
import {
  type PackDatums,
  type ReadOptions,
  fetchOrNotFound,
  observationTime,
  parseJson,
  pick,
  readNumber,
  trimBase,
} from "./shared.js";
import { USGS_UNIT_CODES, usgsUnit } from "./units.js";

/** The day USGS decommissions WaterServices, as USGS reported it; the `usgs-legacy` pack answers until then. */
export const USGS_LEGACY_END = "2027-02-22";

/** What every `usgs-legacy` answer says about its end. */
export const USGS_LEGACY_NOTICE =
  `USGS WaterServices is scheduled for decommission on ${USGS_LEGACY_END} (planned outages on 2027-01-27 and 2027-02-16); ` +
  "move to the usgs pack (/v1/packs/usgs/...), which reads the USGS Water Data OGC API";

/** The public service; a mirror or a server of recorded responses can stand in, keeping the service's own paths. */
export const USGS_BASE_URL = "https://waterservices.usgs.gov";

/** Discharge and gage height, the parameters read by default. */
export const DEFAULT_USGS_PARAMETERS: readonly string[] = ["00060", "00065"];

/**
 * Parameters whose values are elevations, and what they are measured from: `site` is the site's own gage datum;
 * a name is a national datum the parameter is defined on (USGS parameter code dictionary).
 */
export const USGS_DATUM_PARAMETERS: Readonly<Record<string, string>> = {
  "00065": "site",
  "62614": "NGVD29",
  "62615": "NAVD88",
  "63160": "NAVD88",
};

/** A USGS site record as read. Quantities are in JSON form; `datum_offset` is the gage's zero on the named datum. */
export type UsgsSite = {
  id: string;
  name: string;
  /** `tz_cd` as published ("CST"): an abbreviation, not an IANA zone; observations carry their own offsets. */
  timezone: string;
  horizontal_crs: string | null;
  latitude: number | null;
  longitude: number | null;
  altitude: QuantityJSON | null;
  altitude_accuracy: QuantityJSON | null;
  /** The site's local datum name, `GAGE:<site>`. */
  datum: string;
  datum_offset: QuantityJSON | null;
  drainage_area: QuantityJSON | null;
  /** The drainage area as published, in square miles. */
  drainage_area_mi2: number | null;
  warnings: string[];
};

/** One instantaneous reading: the last point of one parameter's series. */
export type UsgsReading = {
  parameter: string;
  name: string;
  quantity: QuantityJSON;
  observed_at: string;
  qualifiers: string[];
};

/** Options of a USGS read. */
export type UsgsOptions = ReadOptions & {
  baseUrl?: string;
  parameters?: readonly string[];
  units?: Readonly<Record<string, string>>;
};

const SITE_ID = /^\d{8,15}$/;
const PARAMETER = /^\d{5}$/;
const DATUM_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
const BUILTIN = new Set(BUILTIN_DATUMS.map((d) => d.name));

/** The site number trimmed; PackRequestError unless it is 8 to 15 digits, as every USGS site number is. */
export function usgsSiteId(raw: string): string {
  const id = raw.trim();
  if (!SITE_ID.test(id))
    throw new PackRequestError(`USGS site numbers are 8 to 15 digits, such as 07374000; received '${raw}'`, {
      site: raw,
    });
  return id;
}

/** The local datum name of a site: `GAGE:<site>`. */
export function gageDatumName(site: string): string {
  return `GAGE:${site}`;
}

/** The site-service URL (expanded RDB record). */
export function usgsSiteUrl(site: string, baseUrl: string = USGS_BASE_URL): string {
  return `${trimBase(baseUrl)}/nwis/site/?format=rdb&sites=${usgsSiteId(site)}&siteOutput=expanded`;
}

/** The instantaneous-values URL (JSON, latest value of each parameter). */
export function usgsIvUrl(
  site: string,
  baseUrl: string = USGS_BASE_URL,
  parameters: readonly string[] = DEFAULT_USGS_PARAMETERS,
): string {
  const bad = parameters.find((p) => !PARAMETER.test(p));
  if (bad !== undefined || parameters.length === 0) {
    throw new PackRequestError(`USGS parameter codes are 5 digits, such as 00060; received '${bad ?? ""}'`, {
      parameter: bad ?? "",
    });
  }
  return `${trimBase(baseUrl)}/nwis/iv/?format=json&sites=${usgsSiteId(site)}&parameterCd=${parameters.join("%2C")}&siteStatus=all`;
}

/** Reads an RDB site record: comment and empty lines dropped, then header, column-width row, and the site's record. */
export function parseSiteRdb(text: string, siteId: string): UsgsSite {
  const what = `USGS site record for ${siteId}`;
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.startsWith("#"));
  if (lines.length === 0)
    throw new PackPayloadError(`${what} is empty: no header line after the # comments`, {
      site: siteId,
      missing: "header",
    });
  const header = lines[0]!.split("\t").map((h) => h.trim());
  if (!header.includes("site_no")) {
    throw new PackPayloadError(
      `${what} has no header line naming site_no; the answer is not an RDB site file (it begins '${lines[0]!.slice(0, 60)}')`,
      {
        site: siteId,
        missing: "header",
      },
    );
  }
  const records = lines.slice(2).map((l) => l.split("\t"));
  if (records.length === 0)
    throw new PackPayloadError(`${what} has no data line after the header`, { site: siteId, missing: "record" });
  const at = header.indexOf("site_no");
  const record = records.find((r) => (r[at] ?? "").trim() === siteId);
  if (!record) {
    const listed = records.map((r) => (r[at] ?? "").trim()).join(", ");
    throw new PackPayloadError(`${what} has no data line for site ${siteId} (it lists ${listed})`, {
      site: siteId,
      missing: "record",
    });
  }
  const field = (name: string) => {
    const i = header.indexOf(name);
    return i < 0 ? "" : (record[i] ?? "").trim();
  };
  return readSite(siteId, field);
}

function readSite(id: string, field: (name: string) => string): UsgsSite {
  const warnings: string[] = [];
  const datum = gageDatumName(id);
  const altText = field("alt_va");
  const alt = readNumber(altText);
  let datumCode: string | null = field("alt_datum_cd") || null;
  if (altText !== "" && alt === null)
    warnings.push(
      `USGS site ${id} publishes an altitude '${altText}' that is not a number, so its gage datum is not placed on any datum`,
    );
  if (datumCode !== null && !DATUM_CODE.test(datumCode)) {
    warnings.push(
      `USGS site ${id} names its altitude datum '${datumCode}', which is not a datum name this service accepts, so its gage datum is not placed on any datum`,
    );
    datumCode = null;
  } else if (alt !== null && datumCode === null) {
    warnings.push(
      `USGS site ${id} publishes an altitude of ${alt} ft but no alt_datum_cd, so the datum it is measured on is unknown and is not assumed; ` +
        `gage height stays on ${datum} and will not convert to a national datum`,
    );
  }
  const mi2Text = field("drain_area_va");
  const mi2 = readNumber(mi2Text);
  if (mi2Text !== "" && mi2 === null)
    warnings.push(`USGS site ${id} publishes a drainage area '${mi2Text}' that is not a number, so none is given`);
  const accuracy = readNumber(field("alt_acy_va"));
  return {
    id,
    name: field("station_nm") || id,
    timezone: field("tz_cd") || "UTC",
    horizontal_crs: field("dec_coord_datum_cd") || null,
    latitude: readNumber(field("dec_lat_va")),
    longitude: readNumber(field("dec_long_va")),
    altitude:
      alt === null
        ? null
        : datumCode === null
          ? { value: alt, unit: "ft" }
          : { value: alt, unit: "ft", datum: datumCode },
    altitude_accuracy: accuracy === null ? null : { value: accuracy, unit: "ft" },
    datum,
    datum_offset: alt !== null && datumCode !== null ? { value: alt, unit: "ft", datum: datumCode } : null,
    drainage_area:
      mi2 === null
        ? null
        : { value: convertMagnitude(mi2, "mi^2", "km^2"), unit: "km^2", source: `usgs:${id}:drain_area_va` },
    drainage_area_mi2: mi2,
    warnings,
  };
}

/**
 * The datums and the offset a caller registers for a site: always `GAGE:<site>`; when the altitude and its datum are
 * published, that datum (if not a built-in name) and the offset from the gage datum to it. Registering is the caller's
 * job, and the first registration wins (see `registerPackDatums`).
 */
export function siteDatums(site: UsgsSite): PackDatums {
  const out: PackDatums = {
    datums: [{ name: site.datum, description: `Local datum for USGS station ${site.id}` }],
    offsets: [],
  };
  const off = site.datum_offset;
  if (off?.datum && typeof off.value === "number") {
    if (!BUILTIN.has(off.datum))
      out.datums.push({ name: off.datum, description: `Vertical datum ${off.datum}, as named by a USGS alt_datum_cd` });
    out.offsets.push({
      from: site.datum,
      to: off.datum,
      offsetM: convertMagnitude(off.value, off.unit, "m"),
      source: `usgs:${site.id}:alt_va`,
    });
  }
  return out;
}

/**
 * Reads instantaneous values: the last point of each series, with its unit, quality and offset. A series that cannot be
 * read is skipped with a warning; only a payload without `value.timeSeries` is refused. Gage height (00065) is placed on
 * `datumName`, by default the site's own `GAGE:<site>`, never left without a datum.
 */
export function parseInstantaneous(
  text: string,
  siteId: string,
  datumName: string = gageDatumName(siteId),
  opts: ReadOptions & { units?: Readonly<Record<string, string>> } = {},
): { readings: UsgsReading[]; warnings: string[] } {
  const what = `USGS instantaneous values for ${siteId}`;
  const root = parseJson(text, what, siteId);
  const series = pick(root, ["value", "timeSeries"]);
  if (!Array.isArray(series))
    throw new PackPayloadError(`${what}: missing value.timeSeries`, { site: siteId, missing: "value.timeSeries" });
  const table = opts.quality ?? DEFAULT_QUALITY;
  const exact = new Set(table.codes());
  const warnings: string[] = [];
  const byCode = new Map<string, UsgsReading>();
  series.forEach((s: unknown, i: number) => {
    const r = readSeries(s, i, siteId, datumName, { ...opts, table, exact }, warnings);
    if (r) byCode.set(r.parameter, r);
  });
  return { readings: [...byCode.values()], warnings };
}

type SeriesCtx = ReadOptions & { units?: Readonly<Record<string, string>>; table: QualityTable; exact: Set<string> };

function readSeries(
  s: unknown,
  i: number,
  site: string,
  datumName: string,
  ctx: SeriesCtx,
  warnings: string[],
): UsgsReading | null {
  const code = pick(s, ["variable", "variableCode", 0, "value"]);
  if (typeof code !== "string" || code === "") {
    warnings.push(`skipping USGS series ${i + 1} at ${site}: it has no variable.variableCode`);
    return null;
  }
  const points = pick(s, ["values", 0, "value"]);
  if (!Array.isArray(points) || points.length === 0) {
    warnings.push(`no reading for USGS parameter ${code} at ${site}: its series holds no values`);
    return null;
  }
  const last: unknown = points[points.length - 1];
  const raw = pick(last, ["value"]);
  const qualifiers = asStrings(pick(last, ["qualifiers"]));
  const noData = readNumber(pick(s, ["variable", "noDataValue"])) ?? -999999;
  const value = readNumber(raw);
  const flags = qualifiers.length ? ` (qualifiers ${qualifiers.join(", ")})` : "";
  if (value === null || value === noData) {
    const why =
      value === null ? `'${String(raw ?? "")}', which is not a number` : `${String(raw)}, the series' noDataValue`;
    warnings.push(`no reading for USGS parameter ${code} at ${site}: its last value is ${why}${flags}`);
    return null;
  }
  const unitCode = pick(s, ["variable", "unit", "unitCode"]);
  let unit: string;
  try {
    if (typeof unitCode !== "string") throw new Error("the series has no variable.unit.unitCode");
    unit = usgsUnit(unitCode, ctx.units ?? USGS_UNIT_CODES);
  } catch (e) {
    warnings.push(`skipping USGS parameter ${code} at ${site}: ${(e as Error).message}`);
    return null;
  }
  const when = observationTime(pick(last, ["dateTime"]), ctx, `USGS parameter ${code} at ${site}`, warnings);
  if (when === null) return null;
  // Only exact publisher codes grade a value; an unknown code ("Zz") says nothing about review status.
  const quality = weakest(...qualifiers.filter((q) => ctx.exact.has(q)).map((q) => ctx.table.normalise(q)));
  const on = USGS_DATUM_PARAMETERS[code];
  const datum = on === undefined ? null : on === "site" ? datumName : on;
  const name =
    String(pick(s, ["variable", "variableName"]) ?? "")
      .split(",")[0]!
      .trim() || code;
  const quantity = new Quantity(value, unit, {
    datum,
    quality,
    source: `usgs:${site}:${code}`,
    observedAt: when,
  }).toJSON();
  return { parameter: code, name, quantity, observed_at: when, qualifiers };
}

/** A site read alone: the record and the datums the caller registers. */
export async function usgsSite(
  site: string,
  fetch: Fetch,
  opts: UsgsOptions = {},
): Promise<{ site: UsgsSite; datums: PackDatums }> {
  const id = usgsSiteId(site);
  const text = await fetchOrNotFound(fetch, usgsSiteUrl(id, opts.baseUrl), `USGS site ${id}`);
  const parsed = parseSiteRdb(text, id);
  return { site: parsed, datums: siteDatums(parsed) };
}

/** The site record, then its latest instantaneous values on the site's datum; warnings from both. */
export async function usgsReading(
  site: string,
  fetch: Fetch,
  opts: UsgsOptions = {},
): Promise<{ site: UsgsSite; readings: UsgsReading[]; warnings: string[]; datums: PackDatums }> {
  const { site: record, datums } = await usgsSite(site, fetch, opts);
  const text = await fetchOrNotFound(
    fetch,
    usgsIvUrl(record.id, opts.baseUrl, opts.parameters),
    `USGS instantaneous values for ${record.id}`,
  );
  const iv = parseInstantaneous(text, record.id, record.datum, opts);
  return { site: record, readings: iv.readings, warnings: [...record.warnings, ...iv.warnings], datums };
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

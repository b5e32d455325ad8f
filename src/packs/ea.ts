// Environment Agency flood-monitoring: station records and latest measures (JSON), levels placed on the station datum or ODN.
import { DEFAULT_QUALITY, type Grade } from "../quantity/quality.js";
import { Quantity, type QuantityJSON } from "../quantity/quantity.js";
import { PackNotFoundError, PackPayloadError, PackRequestError } from "./errors.js";
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
import { EA_UNIT_NAMES, type EaSurface, eaUnit } from "./units.js";

/** The public service; a mirror or a server of recorded responses can stand in, keeping the service's own paths. */
export const EA_BASE_URL = "https://environment.data.gov.uk/flood-monitoring";

/** An Environment Agency station as read; `datum_offset` is the station's zero on ODN. */
export type EaStation = {
  id: string;
  name: string;
  latitude: number | null;
  longitude: number | null;
  river: string | null;
  town: string | null;
  /** The station's local datum name, `GAUGE:<station>`. */
  datum: string;
  datum_offset: QuantityJSON | null;
  warnings: string[];
};

/** The latest reading of one measure. `measure` is the publisher's parameter name ("Water Level"), `measure_id` its notation. */
export type EaReading = {
  measure: string;
  measure_id: string | null;
  parameter: string | null;
  qualifier: string | null;
  quantity: QuantityJSON;
  observed_at: string;
};

/** Options of an Environment Agency read. */
export type EaOptions = ReadOptions & { baseUrl?: string; units?: Readonly<Record<string, EaSurface>> };

/** The station reference as the service uses it: trimmed, each space an underscore; PackRequestError when empty or too long. */
export function eaStationRef(raw: string): string {
  const ref = raw.trim().replace(/\s/g, "_");
  // A reference of dots alone would walk up the service's path, so at least one letter or digit is required.
  if (ref.length === 0 || ref.length > 64 || !/[A-Za-z0-9]/.test(ref)) {
    throw new PackRequestError(
      `Environment Agency station references are 1 to 64 characters with a letter or digit, such as E21136; received '${raw}'`,
      {
        station: raw,
      },
    );
  }
  return ref;
}

/** The local datum name of a station: `GAUGE:<station>`. */
export function gaugeDatumName(ref: string): string {
  return `GAUGE:${ref}`;
}

/** The station URL; characters other than letters, digits and `-_.!~*'()` are percent-encoded. */
export function eaStationUrl(ref: string, baseUrl: string = EA_BASE_URL): string {
  return `${trimBase(baseUrl)}/id/stations/${encodeURIComponent(eaStationRef(ref))}`;
}

/** The station's measures URL (each measure with its latest reading). */
export function eaMeasuresUrl(ref: string, baseUrl: string = EA_BASE_URL): string {
  return `${eaStationUrl(ref, baseUrl)}/measures`;
}

/** Reads a station record: `items` is the record, or a list whose first element is. */
export function parseStation(text: string, ref: string): EaStation {
  const what = `EA station ${ref}`;
  const items = pick(parseJson(text, what, ref), ["items"]);
  if (Array.isArray(items) && items.length === 0)
    throw new PackNotFoundError(`${what} was not found: its record lists no items`, { station: ref });
  const item: unknown = Array.isArray(items) ? items[0] : items;
  if (typeof item !== "object" || item === null || Array.isArray(item))
    throw new PackPayloadError(`${what}: missing items`, { station: ref, missing: "items" });
  const warnings: string[] = [];
  const rawOffset = pick(item, ["datumOffset"]);
  const offset = readNumber(rawOffset);
  if (rawOffset !== undefined && rawOffset !== null && offset === null) {
    warnings.push(
      `EA station ${ref} publishes a datumOffset ${JSON.stringify(rawOffset)} that is not a number, so its gauge datum is not placed on ODN`,
    );
  }
  return {
    id: ref,
    name: label(pick(item, ["label"])) ?? ref,
    latitude: readNumber(pick(item, ["lat"])),
    longitude: readNumber(pick(item, ["long"])),
    river: str(pick(item, ["riverName"])),
    town: str(pick(item, ["town"])),
    datum: gaugeDatumName(ref),
    datum_offset: offset === null ? null : { value: offset, unit: "m", datum: "ODN" },
    warnings,
  };
}

/**
 * The datums and the offset a caller registers for a station: always `GAUGE:<station>`, and when `datumOffset` is
 * published, the offset from it to ODN. Registering is the caller's job; the first registration wins.
 */
export function stationDatums(station: EaStation): PackDatums {
  const out: PackDatums = {
    datums: [
      {
        name: station.datum,
        description: `Local gauge datum (station zero) of Environment Agency station ${station.id}`,
      },
    ],
    offsets: [],
  };
  const off = station.datum_offset;
  if (off?.datum && typeof off.value === "number") {
    out.offsets.push({
      from: station.datum,
      to: off.datum,
      offsetM: off.value,
      source: `ea:${station.id}:datumOffset`,
    });
  }
  return out;
}

/**
 * Reads a station's measures: each latest reading with its unit, surface, quality and time. A measure that cannot be read
 * is skipped with a warning. `mASD` levels are placed on the station's datum (by default `GAUGE:<station>`, never none).
 */
export function parseMeasures(
  text: string,
  ref: string,
  station: { datum: string } | null = null,
  opts: ReadOptions & { units?: Readonly<Record<string, EaSurface>> } = {},
): { readings: EaReading[]; warnings: string[] } {
  const what = `EA measures for station ${ref}`;
  const items = pick(parseJson(text, what, ref), ["items"]);
  const list: unknown[] | null = Array.isArray(items)
    ? items
    : typeof items === "object" && items !== null
      ? [items]
      : null;
  if (!list) throw new PackPayloadError(`${what}: missing items`, { station: ref, missing: "items" });
  const warnings: string[] = [];
  const readings: EaReading[] = [];
  const stationDatum = station?.datum ?? gaugeDatumName(ref);
  list.forEach((m, i) => {
    const r = readMeasure(m, i, ref, stationDatum, opts, warnings);
    if (r) readings.push(r);
  });
  return { readings, warnings };
}

function readMeasure(
  m: unknown,
  i: number,
  ref: string,
  stationDatum: string,
  opts: ReadOptions & { units?: Readonly<Record<string, EaSurface>> },
  warnings: string[],
): EaReading | null {
  const notation = str(pick(m, ["notation"]));
  const name = str(pick(m, ["parameterName"])) ?? str(pick(m, ["parameter"])) ?? notation ?? `measure ${i + 1}`;
  // Several measures share a parameter name ("Water Level"), so warnings name the notation too.
  const shown = notation && notation !== name ? `${name} (${notation})` : name;
  const latest = pick(m, ["latestReading"]);
  if (typeof latest !== "object" || latest === null || Array.isArray(latest)) {
    warnings.push(`no reading for EA measure ${shown} at ${ref}: it has no latestReading`);
    return null;
  }
  const raw = pick(latest, ["value"]);
  if (raw === null || raw === undefined) {
    warnings.push(`no reading for EA measure ${shown} at ${ref}: its latest reading has no value`);
    return null;
  }
  const value = readNumber(raw);
  if (value === null) {
    warnings.push(
      `no reading for EA measure ${shown} at ${ref}: its latest value ${JSON.stringify(raw)} is not a number`,
    );
    return null;
  }
  let surface: EaSurface;
  try {
    const unitName = pick(m, ["unitName"]);
    if (typeof unitName !== "string") throw new Error("the measure has no unitName");
    surface = eaUnit(unitName, opts.units ?? EA_UNIT_NAMES);
  } catch (e) {
    warnings.push(`skipping EA measure ${shown} at ${ref}: ${(e as Error).message}`);
    return null;
  }
  const when = observationTime(pick(latest, ["dateTime"]), opts, `EA measure ${shown} at ${ref}`, warnings);
  if (when === null) return null;
  const datum = surface.surface === "station" ? stationDatum : surface.surface === "datum" ? surface.datum : null;
  const quality = grade(pick(latest, ["quality"]) ?? pick(m, ["quality"]), opts, shown, ref, warnings);
  return {
    measure: name,
    measure_id: notation,
    parameter: str(pick(m, ["parameter"])),
    qualifier: str(pick(m, ["qualifier"])),
    quantity: new Quantity(value, surface.unit, { datum, quality, source: `ea:${ref}`, observedAt: when }).toJSON(),
    observed_at: when,
  };
}

/** The grade of an EA quality word; an unknown word leaves the reading unflagged (which meets no floor) with a warning. */
function grade(flag: unknown, opts: ReadOptions, name: string, ref: string, warnings: string[]): Grade | null {
  if (typeof flag !== "string") return null;
  try {
    return (opts.quality ?? DEFAULT_QUALITY).normalise(flag);
  } catch {
    warnings.push(
      `EA measure ${name} at ${ref} carries the quality word '${flag}', which is not a known code, so the reading is left unflagged`,
    );
    return null;
  }
}

/** A station read alone: the record and the datums the caller registers. */
export async function eaStation(
  station: string,
  fetch: Fetch,
  opts: EaOptions = {},
): Promise<{ station: EaStation; datums: PackDatums }> {
  const ref = eaStationRef(station);
  const text = await fetchOrNotFound(fetch, eaStationUrl(ref, opts.baseUrl), `EA station ${ref}`);
  const parsed = parseStation(text, ref);
  return { station: parsed, datums: stationDatums(parsed) };
}

/** The station record, then its measures' latest readings on the station's datum; warnings from both. */
export async function eaReading(
  station: string,
  fetch: Fetch,
  opts: EaOptions = {},
): Promise<{ station: EaStation; readings: EaReading[]; warnings: string[]; datums: PackDatums }> {
  const { station: record, datums } = await eaStation(station, fetch, opts);
  const text = await fetchOrNotFound(
    fetch,
    eaMeasuresUrl(record.id, opts.baseUrl),
    `EA measures for station ${record.id}`,
  );
  const m = parseMeasures(text, record.id, record, opts);
  return { station: record, readings: m.readings, warnings: [...record.warnings, ...m.warnings], datums };
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

/** The station's label: a string, or the first string of the list some stations publish. */
function label(v: unknown): string | null {
  if (Array.isArray(v)) return str(v.find((x) => typeof x === "string"));
  return str(v);
}

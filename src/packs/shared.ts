// What both packs share: strict number reading, timestamps kept in the publisher's offset, staleness, datum registration.
import { DateTime } from "luxon";
import type { DatumOffset, DatumRegistry } from "../quantity/datums.js";
import type { QualityTable } from "../quantity/quality.js";
import { isNaive } from "../quantity/time.js";
import { PackNotFoundError, PackPayloadError } from "./errors.js";
import type { Fetch } from "./fetch.js";

/** Options every reading takes. */
export type ReadOptions = {
  /** Drop a reading older than this many seconds (with a warning); absent keeps everything. */
  maxAgeSeconds?: number;
  /** The instant ages are measured from (default: now). */
  now?: Date;
  /** The team's quality table (default: the built-in codes). */
  quality?: QualityTable;
};

/** Datums and offsets a pack asks its caller to register: the local zero of a site or station, placed on a named datum. */
export type PackDatums = { datums: { name: string; description: string }[]; offsets: DatumOffset[] };

/** What registering a pack's datums changed; `skipped` holds offsets left alone because a pair was already convertible. */
export type Registered = {
  registry: DatumRegistry;
  addedDatums: string[];
  addedOffsets: DatumOffset[];
  skipped: DatumOffset[];
};

const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** A finite number from a JSON number or a plain decimal string; null for anything else ("", "Ice", "0x10", "Infinity"). */
export function readNumber(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const t = v.trim();
  if (!DECIMAL.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** The timestamp as ISO 8601 in the publisher's own offset (milliseconds dropped when zero); null when naive or unreadable. */
export function observedAt(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const dt = DateTime.fromISO(v.trim(), { setZone: true });
  if (!dt.isValid || isNaive(v.trim())) return null;
  return dt.toISO({ suppressMilliseconds: true });
}

/** Age in seconds of an ISO timestamp at `now`. */
export function ageSeconds(iso: string, now: Date): number {
  return (now.getTime() - DateTime.fromISO(iso, { setZone: true }).toMillis()) / 1000;
}

/** The staleness message's tail when a reading is older than the limit, else null. */
export function tooOld(iso: string, opts: ReadOptions): string | null {
  if (opts.maxAgeSeconds === undefined) return null;
  const age = ageSeconds(iso, opts.now ?? new Date());
  if (age <= opts.maxAgeSeconds) return null;
  return `last reading is ${(age / 86_400).toFixed(1)} days old (${iso}), older than the ${duration(opts.maxAgeSeconds)} requested`;
}

/**
 * The observation time of a reading, or null with a warning: "skipping <what>" when it has no offset or cannot be
 * read, "dropping <what>" when it is older than `opts.maxAgeSeconds`. Both packs read their points this way.
 */
export function observationTime(raw: unknown, opts: ReadOptions, what: string, warnings: string[]): string | null {
  const when = observedAt(raw);
  if (when === null) {
    warnings.push(`skipping ${what}: its timestamp '${String(raw ?? "")}' has no offset or cannot be read`);
    return null;
  }
  const stale = tooOld(when, opts);
  if (stale) {
    warnings.push(`dropping ${what}: ${stale}`);
    return null;
  }
  return when;
}

const UNITS: [number, string][] = [
  [86_400, "day"],
  [3_600, "hour"],
  [60, "minute"],
  [1, "second"],
];

/** A whole number of the largest fitting unit: "1 day", "6 hours", "90 minutes", "45 seconds". */
export function duration(seconds: number): string {
  const [size, name] = UNITS.find(([s]) => seconds >= s && seconds % s === 0) ?? [1, "second"];
  const n = seconds / size;
  return `${n} ${name}${n === 1 ? "" : "s"}`;
}

/**
 * Registers a pack's datums and offsets in a new registry: a name already registered is kept, and an offset is added only
 * when the pair is not yet convertible, so the first registration of a station wins over a later, different record.
 */
export function registerPackDatums(registry: DatumRegistry, pack: PackDatums): Registered {
  const addedDatums = pack.datums.filter((d) => !registry.has(d.name));
  const addedOffsets: DatumOffset[] = [];
  const skipped: DatumOffset[] = [];
  for (const o of pack.offsets) {
    const taken = registry.has(o.from) && registry.has(o.to) && registry.canConvert(o.from, o.to);
    if (taken || addedOffsets.some((a) => (a.from === o.from && a.to === o.to) || (a.from === o.to && a.to === o.from)))
      skipped.push(o);
    else addedOffsets.push(o);
  }
  return {
    registry: addedDatums.length || addedOffsets.length ? registry.with(addedDatums, addedOffsets) : registry,
    addedDatums: addedDatums.map((d) => d.name),
    addedOffsets,
    skipped,
  };
}

/** Fetches, turning the upstream's 404 into "<what> was not found". */
export async function fetchOrNotFound(fetch: Fetch, url: string, what: string): Promise<string> {
  try {
    return await fetch(url);
  } catch (e) {
    if (e instanceof PackNotFoundError)
      throw new PackNotFoundError(`${what} was not found: ${e.message}`, { ...e.details, url }, e);
    throw e;
  }
}

/** Parses JSON text, refusing unreadable text with a PackPayloadError that names the payload. */
export function parseJson(text: string, what: string, id: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new PackPayloadError(
      `${what}: not valid JSON (${(e as Error).message}); the answer begins '${text.slice(0, 60)}'`,
      { id, missing: "json" },
      e,
    );
  }
}

/** Walks a path through unknown JSON; undefined as soon as a step is missing. */
export function pick(v: unknown, path: readonly (string | number)[]): unknown {
  let cur = v;
  for (const step of path) {
    if (typeof step === "number") {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[step];
    } else {
      if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
      cur = (cur as Record<string, unknown>)[step];
    }
  }
  return cur;
}

/** A base URL without trailing slashes, so the services' own paths can follow it. */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, "");
}

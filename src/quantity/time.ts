// Timestamps: ISO 8601 with an explicit offset, expressed in a declared IANA zone. A naive timestamp is refused.
import { DateTime, IANAZone, Settings } from "luxon";
import { TimezoneError } from "./errors.js";

Settings.defaultZone = "UTC";

const zoneCache = new Map<string, boolean>();

/** True for "UTC" (any case) or a valid IANA zone name; cached because luxon builds an Intl formatter per check. */
export function isValidZone(zone: string): boolean {
  if (zone.toUpperCase() === "UTC") return true;
  let ok = zoneCache.get(zone);
  if (ok === undefined) {
    ok = IANAZone.isValidZone(zone);
    if (zoneCache.size < 10_000) zoneCache.set(zone, ok);
  }
  return ok;
}

/** True when the ISO text carries no offset: the same text read in two zones gives two instants. */
export function isNaive(iso: string): boolean {
  const a = DateTime.fromISO(iso, { zone: "UTC" });
  const b = DateTime.fromISO(iso, { zone: "UTC+05:00" });
  return a.isValid && b.isValid && a.toMillis() !== b.toMillis();
}

/** A timestamp expressed in a zone: the ISO text with its offset, and the zone name. */
export type ZonedTimestamp = { value: string; tz: string };

/** Reads an ISO 8601 timestamp with an offset and expresses the same instant in `tz`; refuses naive or unreadable input. */
export function parseTimestamp(input: unknown, tz: string): ZonedTimestamp {
  if (!isValidZone(tz))
    throw new TimezoneError(`unknown timezone '${tz}'; use "UTC" or an IANA name such as "America/Chicago"`);
  if (typeof input !== "string") {
    throw new TimezoneError(
      `expected a timestamp, received ${describeType(input)}; send ISO 8601 with an offset such as '2026-08-14T09:30:00-05:00'`,
    );
  }
  const text = input.trim().replace(/^(\d{4}-\d{2}-\d{2}) (\d)/, "$1T$2");
  const dt = DateTime.fromISO(text, { setZone: true });
  if (!dt.isValid) {
    throw new TimezoneError(
      `cannot read '${input}' as a timestamp, send ISO 8601 with an offset such as '2026-08-14T09:30:00-05:00'`,
    );
  }
  if (isNaive(text)) {
    throw new TimezoneError(
      `timestamp ${input} is timezone-naive, and gage records are published in local standard time while models default to UTC, ` +
        `so the offset must be explicit; resend as ISO 8601 with an offset, such as '${text}Z' if it is UTC`,
    );
  }
  const zone = tz.toUpperCase() === "UTC" ? "UTC" : tz;
  const out = dt.setZone(zone);
  return { value: out.toISO({ suppressMilliseconds: true }) ?? text, tz: zone };
}

function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

// Recorded and hand-written upstream answers, and a Fetch that serves them by exact URL (a 404 for any other).
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { PackNotFoundError, PackPayloadError } from "../../src/packs/errors.js";
import type { Fetch } from "../../src/packs/fetch.js";

const DIR = new URL("../fixtures/packs/", import.meta.url);

/** The text of one fixture file. */
export function fixture(name: string): string {
  return readFileSync(new URL(name, DIR), "utf8");
}

/** A Fetch answering each URL with its fixture file and recording what was asked; any other URL is a 404, as upstream answers. */
export function fixtureFetch(routes: Record<string, string>): Fetch & { calls: string[] } {
  const calls: string[] = [];
  const f = async (url: string): Promise<string> => {
    calls.push(url);
    const file = routes[url];
    if (file === undefined) throw new PackNotFoundError(`${url} answered 404 Not Found`, { url, status: 404 });
    return fixture(file);
  };
  return Object.assign(f, { calls });
}

export const USGS_SITE_URL = "https://waterservices.usgs.gov/nwis/site/?format=rdb&sites=07374000&siteOutput=expanded";
export const USGS_IV_URL =
  "https://waterservices.usgs.gov/nwis/iv/?format=json&sites=07374000&parameterCd=00060%2C00065&siteStatus=all";
export const EA_STATION_URL = "https://environment.data.gov.uk/flood-monitoring/id/stations/E21136";
export const EA_MEASURES_URL = "https://environment.data.gov.uk/flood-monitoring/id/stations/E21136/measures";

/** The message of the PackPayloadError (code upstream_error) that `f` throws; fails the test when it throws none. */
export function payloadMessage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PackPayloadError);
    expect((e as PackPayloadError).code).toBe("upstream_error");
    return (e as Error).message;
  }
  throw new Error("expected a PackPayloadError");
}

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DatumRegistry } from "../../src/quantity/datums.js";
import { DEFAULT_QUALITY } from "../../src/quantity/quality.js";
import { Quantity } from "../../src/quantity/quantity.js";
import {
  eaMeasuresUrl,
  eaReading,
  eaStation,
  eaStationRef,
  eaStationUrl,
  parseMeasures,
  parseStation,
  stationDatums,
} from "../../src/packs/ea.js";
import { PackError, PackNotFoundError } from "../../src/packs/errors.js";
import { registerPackDatums } from "../../src/packs/shared.js";
import { EA_MEASURES_URL, EA_STATION_URL, fixture, fixtureFetch, payloadMessage } from "./fixtures.js";

const code = (c: string) => expect.objectContaining({ code: c });
const station = (file = "ea_station_E21136.json", ref = "E21136") => parseStation(fixture(file), ref);
const registryFor = (s = station()) => registerPackDatums(new DatumRegistry(), stationDatums(s)).registry;
const level = () => parseMeasures(fixture("ea_measures_E21136.json"), "E21136", station()).readings[0]!;

describe("Environment Agency station", () => {
  it("reads the recorded record of E21136", () => {
    expect(station()).toEqual({
      id: "E21136",
      name: "Hemingford",
      latitude: 52.323618,
      longitude: -0.101287,
      river: "River Great Ouse",
      town: "Hemingford Grey",
      datum: "GAUGE:E21136",
      datum_offset: { value: 6.3, unit: "m", datum: "ODN" },
      warnings: [],
    });
  });
  it("registers GAUGE:E21136 and its datumOffset to ODN", () => {
    expect(stationDatums(station())).toEqual({
      datums: [
        { name: "GAUGE:E21136", description: "Local gauge datum (station zero) of Environment Agency station E21136" },
      ],
      offsets: [{ from: "GAUGE:E21136", to: "ODN", offsetM: 6.3, source: "ea:E21136:datumOffset" }],
    });
  });
  it("registers the gauge datum alone for a station with no datumOffset, and takes the first label of a list", () => {
    const s = station("ea_station_X9999.json", "X9999");
    expect([s.name, s.datum, s.datum_offset, s.warnings]).toEqual(["Nowhere Sluice", "GAUGE:X9999", null, []]);
    expect(stationDatums(s)).toEqual({
      datums: [
        { name: "GAUGE:X9999", description: "Local gauge datum (station zero) of Environment Agency station X9999" },
      ],
      offsets: [],
    });
  });
  it("takes items as the first element when the service answers a list", () => {
    const doc = JSON.parse(fixture("ea_station_E21136.json"));
    doc.items = [doc.items];
    expect(parseStation(JSON.stringify(doc), "E21136")).toEqual(station());
  });
});

describe("Environment Agency measures", () => {
  it("reads the level 0.117 m on GAUGE:E21136, unflagged, at 04:00 UTC", () => {
    expect(level()).toEqual({
      measure: "Water Level",
      measure_id: "E21136-level-stage-i-15_min-mASD",
      parameter: "level",
      qualifier: "Stage",
      quantity: {
        value: 0.117,
        unit: "m",
        datum: "GAUGE:E21136",
        source: "ea:E21136",
        observed_at: "2026-08-15T04:00:00Z",
      },
      observed_at: "2026-08-15T04:00:00Z",
    });
  });
  it("converts the level to 6.417 m on ODN after the station's datums are registered", () => {
    const l = Quantity.fromJSON(level().quantity);
    expect(() => l.toDatum("ODN", new DatumRegistry())).toThrowError(code("datum_mismatch"));
    const odn = l.toDatum("ODN", registryFor());
    expect(odn.datum).toBe("ODN");
    expect(odn.scalar).toBeCloseTo(6.417, 10);
  });
  it("refuses 9.0 m ODN minus the level on the gauge datum, and gives 2.583 m (9.0 − 6.417) once converted", () => {
    const l = Quantity.fromJSON(level().quantity);
    const bank = new Quantity(9.0, "m", { datum: "ODN" });
    expect(() => bank.sub(l)).toThrowError(code("datum_mismatch"));
    const freeboard = bank.sub(l.toDatum("ODN", registryFor()));
    expect(freeboard.datum).toBeNull();
    expect(freeboard.scalar).toBeCloseTo(2.583, 10);
  });
  it("refuses to convert the level of a station with no datumOffset to ODN", () => {
    const s = station("ea_station_X9999.json", "X9999");
    const r = parseMeasures(fixture("ea_measures_X9999.json"), "X9999", s).readings[0]!;
    expect(r.quantity).toEqual({
      value: 0.52,
      unit: "m",
      datum: "GAUGE:X9999",
      source: "ea:X9999",
      observed_at: "2026-08-15T04:00:00Z",
    });
    expect(() => Quantity.fromJSON(r.quantity).toDatum("ODN", registryFor(s))).toThrowError(
      code("datum_conversion_unavailable"),
    );
  });
  it("places mASD on GAUGE:<station> even without the station record, never on no datum", () => {
    expect(parseMeasures(fixture("ea_measures_E21136.json"), "E21136").readings[0]!.quantity.datum).toBe(
      "GAUGE:E21136",
    );
  });
  it("reads mAOD on ODN, maps quality words, and skips with a reason what it cannot read", () => {
    const out = parseMeasures(fixture("ea_measures_E21136_edge.json"), "E21136", station());
    expect(out.readings.map((r) => [r.measure_id, r.quantity])).toEqual([
      [
        "E21136-level-stage-i-15_min-mASD",
        { value: 0.117, unit: "m", datum: "GAUGE:E21136", source: "ea:E21136", observed_at: "2026-08-15T04:00:00Z" },
      ],
      [
        "E21136-level-downstage-i-15_min-mAOD",
        {
          value: 5.98,
          unit: "m",
          datum: "ODN",
          quality: "provisional",
          source: "ea:E21136",
          observed_at: "2026-08-15T04:00:00Z",
        },
      ],
      [
        "E21136-flow--i-15_min-m3_s",
        { value: 12.4, unit: "m^3/s", quality: "unverified", source: "ea:E21136", observed_at: "2026-08-15T04:00:00Z" },
      ],
      [
        "E21136-wind-speed-i-15_min-m_s",
        { value: 3.1, unit: "m/s", quality: "approved", source: "ea:E21136", observed_at: "2026-08-15T04:00:00Z" },
      ],
      [
        "E21136-level-check-i-15_min-mASD",
        { value: 0.119, unit: "m", datum: "GAUGE:E21136", source: "ea:E21136", observed_at: "2026-08-15T04:00:00Z" },
      ],
    ]);
    expect(out.warnings).toEqual([
      "skipping EA measure Water Level (E21136-level-groundwater-i-1_h-mBDAT) at E21136: unmapped Environment Agency unit 'mBDAT': it is left unmapped on purpose, " +
        "since metres below a datum are measured downward, so reading one as a level would invert its sign",
      "no reading for EA measure Water Level (E21136-level-tidal_level-i-15_min-mAOD) at E21136: it has no latestReading",
      "skipping EA measure Rainfall (E21136-rainfall-tipping_bucket_raingauge-t-15_min-mm) at E21136: unmapped Environment Agency unit 'furlongs'; " +
        "add it to the Environment Agency unit names (extendEaUnits) with the unit it stands for",
      "no reading for EA measure Water Temperature (E21136-temperature-water-i-15_min-C) at E21136: its latest reading has no value",
      "skipping EA measure Water Level (E21136-level-logged-i-15_min-mASD) at E21136: its timestamp '2026-08-15T04:00:00' has no offset or cannot be read",
      "EA measure Water Level (E21136-level-check-i-15_min-mASD) at E21136 carries the quality word 'Wobbly', which is not a known code, so the reading is left unflagged",
    ]);
  });
  it("grades another publisher's quality word once it is added to the table as data", () => {
    const quality = DEFAULT_QUALITY.extend([
      { code: "Wobbly", grade: "unverified", family: "test", meaning: "wobbly sensor" },
    ]);
    const out = parseMeasures(fixture("ea_measures_E21136_edge.json"), "E21136", station(), { quality });
    expect(out.readings.find((r) => r.measure_id === "E21136-level-check-i-15_min-mASD")!.quantity.quality).toBe(
      "unverified",
    );
    expect(out.warnings.some((w) => w.includes("Wobbly"))).toBe(false);
  });
  it("falls back to the measure's own quality when the reading carries none", () => {
    const doc = JSON.parse(fixture("ea_measures_E21136.json"));
    doc.items[0].quality = "Estimated";
    expect(parseMeasures(JSON.stringify(doc), "E21136", station()).readings[0]!.quantity.quality).toBe("estimated");
  });
  it("drops a reading older than maxAge with a warning", () => {
    const out = parseMeasures(fixture("ea_measures_E21136.json"), "E21136", station(), {
      now: new Date("2026-08-15T10:00:00Z"),
      maxAgeSeconds: 3_600,
    });
    expect(out.readings).toEqual([]);
    expect(out.warnings).toEqual([
      "dropping EA measure Water Level (E21136-level-stage-i-15_min-mASD) at E21136: last reading is 0.3 days old (2026-08-15T04:00:00Z), older than the 1 hour requested",
    ]);
  });
});

describe("Environment Agency references and URLs", () => {
  it("trims the reference and turns spaces into underscores", () => {
    expect(eaStationRef("  E21136  ")).toBe("E21136");
    expect(eaStationRef("055003_TG 316")).toBe("055003_TG_316");
    expect(eaStationUrl("055003_TG 316")).toBe(
      "https://environment.data.gov.uk/flood-monitoring/id/stations/055003_TG_316",
    );
  });
  it("percent-encodes other unsafe characters", () => {
    expect(eaStationUrl("A/B?c#d")).toBe("https://environment.data.gov.uk/flood-monitoring/id/stations/A%2FB%3Fc%23d");
  });
  it("builds the station and measures paths under the base URL", () => {
    expect(eaStationUrl("E21136")).toBe(EA_STATION_URL);
    expect(eaMeasuresUrl("E21136", "http://127.0.0.1:8999/ea/")).toBe(
      "http://127.0.0.1:8999/ea/id/stations/E21136/measures",
    );
  });
  it("refuses an empty reference and one of dots alone", () => {
    expect(() => eaStationRef("   ")).toThrowError(code("invalid_request"));
    expect(() => eaStationUrl("..")).toThrowError(code("invalid_request"));
  });
});

describe("eaReading", () => {
  const fetch = () =>
    fixtureFetch({ [EA_STATION_URL]: "ea_station_E21136.json", [EA_MEASURES_URL]: "ea_measures_E21136.json" });
  it("reads the station, then its measures on the station's datum, and hands back the datums to register", async () => {
    const f = fetch();
    const out = await eaReading("  E21136 ", f);
    expect(f.calls).toEqual([EA_STATION_URL, EA_MEASURES_URL]);
    expect(out.station.name).toBe("Hemingford");
    expect(out.readings).toEqual([level()]);
    expect(out.warnings).toEqual([]);
    expect(out.datums).toEqual(stationDatums(out.station));
  });
  it("answers not_found naming the station when upstream answers 404", async () => {
    await expect(eaReading("E99999", fetch())).rejects.toThrowError(
      "EA station E99999 was not found: https://environment.data.gov.uk/flood-monitoring/id/stations/E99999 answered 404 Not Found",
    );
  });
  it("answers not_found when the record lists no items", async () => {
    const err = await eaStation(
      "E21136",
      fixtureFetch({ [EA_STATION_URL]: "ea_station_E21136_empty_items.json" }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackNotFoundError);
    expect((err as Error).message).toBe("EA station E21136 was not found: its record lists no items");
  });
});

describe("malformed Environment Agency answers", () => {
  const message = payloadMessage;
  it("names items when the station record has none", () => {
    expect(message(() => station("ea_station_E21136_no_items.json"))).toBe("EA station E21136: missing items");
  });
  it("names items when the measures list has none", () => {
    expect(message(() => parseMeasures(fixture("ea_measures_E21136_no_items.json"), "E21136", null))).toBe(
      "EA measures for station E21136: missing items",
    );
  });
  it("says a truncated station record is not valid JSON", () => {
    expect(message(() => station("ea_station_E21136_truncated.json"))).toMatch(/^EA station E21136: not valid JSON \(/);
  });
  it("rejects eaReading with the payload error, not a TypeError", async () => {
    const f = fixtureFetch({
      [EA_STATION_URL]: "ea_station_E21136.json",
      [EA_MEASURES_URL]: "ea_measures_E21136_no_items.json",
    });
    await expect(eaReading("E21136", f)).rejects.toThrowError("EA measures for station E21136: missing items");
  });
  it("never crashes on arbitrary JSON: it reads, or refuses with a pack error", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const docs = [
          v,
          { items: v },
          { items: [v, { latestReading: v, unitName: "mASD" }] },
          { items: { datumOffset: v, label: v } },
        ];
        for (const text of docs.map((d) => JSON.stringify(d))) {
          for (const f of [() => parseStation(text, "E1"), () => parseMeasures(text, "E1", null)]) {
            try {
              f();
            } catch (e) {
              if (!(e instanceof PackError)) throw e;
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

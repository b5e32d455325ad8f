import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileTool } from "../../src/guard/declaration.js";
import { checkCall } from "../../src/guard/verdict.js";
import { MemoryHistory } from "../../src/guard/history.js";
import { DatumRegistry } from "../../src/quantity/datums.js";
import { Quantity } from "../../src/quantity/quantity.js";
import { PackError, PackNotFoundError, PackPayloadError } from "../../src/packs/errors.js";
import { registerPackDatums } from "../../src/packs/shared.js";
import {
  parseInstantaneous,
  parseSiteRdb,
  siteDatums,
  usgsIvUrl,
  usgsReading,
  usgsSite,
  usgsSiteId,
  usgsSiteUrl,
} from "../../src/packs/usgs.js";
import { USGS_IV_URL, USGS_SITE_URL, fixture, fixtureFetch, payloadMessage } from "./fixtures.js";

const code = (c: string) => expect.objectContaining({ code: c });
const SITE = "07374000";
const site = (file = "usgs_site_07374000.rdb") => parseSiteRdb(fixture(file), SITE);
const registryFor = (file = "usgs_site_07374000.rdb") =>
  registerPackDatums(new DatumRegistry(), siteDatums(site(file))).registry;
const iv = () => parseInstantaneous(fixture("usgs_iv_07374000.json"), SITE, "GAGE:07374000");
const reading = (p: string) => iv().readings.find((r) => r.parameter === p)!;
const q = (v: number, u: string, datum?: string) => new Quantity(v, u, { datum });

/** The recorded IV answer with the discharge point's qualifiers (and optionally value) replaced. */
function ivWith(qualifiers: string[], value = "234000"): string {
  const doc = JSON.parse(fixture("usgs_iv_07374000.json"));
  doc.value.timeSeries[0].values[0].value[0] = { value, qualifiers, dateTime: "2026-08-14T18:15:00.000-05:00" };
  return JSON.stringify(doc);
}

describe("USGS site record (RDB)", () => {
  it("reads the recorded record of 07374000 field by field", () => {
    const s = site();
    expect({ ...s, drainage_area: null }).toEqual({
      id: "07374000",
      name: "Mississippi River at Baton Rouge, LA",
      timezone: "CST",
      horizontal_crs: "NAD83",
      latitude: 30.44566667,
      longitude: -91.1915556,
      altitude: { value: 0, unit: "ft", datum: "NAVD88" },
      altitude_accuracy: { value: 0.01, unit: "ft" },
      datum: "GAGE:07374000",
      datum_offset: { value: 0, unit: "ft", datum: "NAVD88" },
      drainage_area: null,
      drainage_area_mi2: 1125810,
      warnings: [],
    });
  });
  it("converts the drainage area of 1,125,810 mi² to 2,915,834.514 km², keeping its source", () => {
    const a = site().drainage_area!;
    expect(a.unit).toBe("km^2");
    expect(a.source).toBe("usgs:07374000:drain_area_va");
    expect(Math.abs((a.value as number) - 2_915_834.514) / 2_915_834.514).toBeLessThan(1e-6);
  });
  it("reads the same record with CRLF line endings", () => {
    expect(site("usgs_site_07374000_crlf.rdb")).toEqual(site());
  });
  it("registers GAGE:07374000 and its offset to NAVD88, the datum the altitude is on", () => {
    expect(siteDatums(site())).toEqual({
      datums: [{ name: "GAGE:07374000", description: "Local datum for USGS station 07374000" }],
      offsets: [{ from: "GAGE:07374000", to: "NAVD88", offsetM: 0, source: "usgs:07374000:alt_va" }],
    });
    const reg = registryFor();
    expect(reg.canConvert("GAGE:07374000", "NAVD88")).toBe(true);
    expect(reg.canConvert("GAGE:07374000", "NGVD29")).toBe(false);
  });
  it("places the gage on NGVD29 when alt_datum_cd says NGVD29, never on NAVD88", () => {
    const s = site("usgs_site_07374000_ngvd29.rdb");
    expect(s.datum_offset).toEqual({ value: 2.37, unit: "ft", datum: "NGVD29" });
    const reg = registryFor("usgs_site_07374000_ngvd29.rdb");
    expect(reg.canConvert("GAGE:07374000", "NGVD29")).toBe(true);
    const stage = q(7.73, "ft", "GAGE:07374000").toDatum("NGVD29", reg);
    expect(stage.datum).toBe("NGVD29");
    expect(stage.scalar).toBeCloseTo(10.1, 10);
    expect(() => q(7.73, "ft", "GAGE:07374000").toDatum("NAVD88", reg)).toThrowError(
      code("datum_conversion_unavailable"),
    );
  });
  it("registers a datum name USGS uses that is not pre-registered (LMSL) before the offset to it", () => {
    const d = siteDatums(site("usgs_site_07374000_lmsl.rdb"));
    expect(d.datums).toEqual([
      { name: "GAGE:07374000", description: "Local datum for USGS station 07374000" },
      { name: "LMSL", description: "Vertical datum LMSL, as named by a USGS alt_datum_cd" },
    ]);
    expect(d.offsets).toEqual([
      { from: "GAGE:07374000", to: "LMSL", offsetM: 1.1 * 0.3048, source: "usgs:07374000:alt_va" },
    ]);
    expect(registryFor("usgs_site_07374000_lmsl.rdb").offsetMetres("GAGE:07374000", "LMSL")).toBeCloseTo(0.33528, 12);
  });
  it("warns and registers no offset when the altitude has no alt_datum_cd: the datum is never assumed", () => {
    const s = site("usgs_site_07374000_no_alt_datum.rdb");
    expect(s.datum_offset).toBeNull();
    expect(s.altitude).toEqual({ value: 2.37, unit: "ft" });
    expect(s.warnings).toEqual([
      "USGS site 07374000 publishes an altitude of 2.37 ft but no alt_datum_cd, so the datum it is measured on is unknown and is not assumed; " +
        "gage height stays on GAGE:07374000 and will not convert to a national datum",
    ]);
    const reg = registryFor("usgs_site_07374000_no_alt_datum.rdb");
    expect(reg.has("GAGE:07374000")).toBe(true);
    expect(() => q(7.73, "ft", "GAGE:07374000").toDatum("NAVD88", reg)).toThrowError(
      code("datum_conversion_unavailable"),
    );
  });
  it("registers the gage datum alone, without a warning, when no altitude is published", () => {
    const s = site("usgs_site_07374000_no_altitude.rdb");
    expect([s.altitude, s.altitude_accuracy, s.datum_offset, s.warnings]).toEqual([null, null, null, []]);
    expect(siteDatums(s)).toEqual({
      datums: [{ name: "GAGE:07374000", description: "Local datum for USGS station 07374000" }],
      offsets: [],
    });
  });
  it("keeps the first registration of a site when a later record publishes another altitude on the same datum", () => {
    const first = registerPackDatums(new DatumRegistry(), siteDatums(site()));
    const later = parseSiteRdb(fixture("usgs_site_07374000.rdb").replace("\t 0.00\tL\t", "\t 5.00\tL\t"), SITE);
    expect(later.datum_offset).toEqual({ value: 5, unit: "ft", datum: "NAVD88" });
    const second = registerPackDatums(first.registry, siteDatums(later));
    expect(second.addedDatums).toEqual([]);
    expect(second.addedOffsets).toEqual([]);
    expect(second.skipped).toEqual([
      { from: "GAGE:07374000", to: "NAVD88", offsetM: 5 * 0.3048, source: "usgs:07374000:alt_va" },
    ]);
    expect(second.registry.offsetMetres("GAGE:07374000", "NAVD88")).toBe(0);
  });
});

describe("USGS instantaneous values", () => {
  it("reads discharge as 234000 ft^3/s, provisional, with its source and the publisher's offset", () => {
    expect(reading("00060")).toEqual({
      parameter: "00060",
      name: "Streamflow",
      quantity: { value: 234000, unit: "ft^3/s", quality: "provisional", source: "usgs:07374000:00060" },
      observed_at: "2026-08-14T18:15:00-05:00",
      qualifiers: ["P"],
    });
  });
  it("reads gage height as 7.73 ft on GAGE:07374000, provisional", () => {
    expect(reading("00065")).toEqual({
      parameter: "00065",
      name: "Gage height",
      quantity: {
        value: 7.73,
        unit: "ft",
        datum: "GAGE:07374000",
        quality: "provisional",
        source: "usgs:07374000:00065",
      },
      observed_at: "2026-08-14T18:15:00-05:00",
      qualifiers: ["P"],
    });
  });
  it("places gage height on GAGE:<site> even when no datum name is passed", () => {
    const r = parseInstantaneous(fixture("usgs_iv_07374000.json"), SITE).readings.find((x) => x.parameter === "00065")!;
    expect(r.quantity.datum).toBe("GAGE:07374000");
  });
  it("places a lake elevation published on NAVD88 (62615) on NAVD88 itself, not on the gage datum", () => {
    const doc = JSON.parse(fixture("usgs_iv_07374000.json"));
    doc.value.timeSeries[1].variable.variableCode[0].value = "62615";
    const r = parseInstantaneous(JSON.stringify(doc), SITE).readings.find((x) => x.parameter === "62615")!;
    expect(r.quantity).toEqual({
      value: 7.73,
      unit: "ft",
      datum: "NAVD88",
      quality: "provisional",
      source: "usgs:07374000:62615",
    });
  });
  it("converts gage height to 7.73 ft on NAVD88 only after the site's datums are registered", () => {
    const stage = Quantity.fromJSON(reading("00065").quantity);
    expect(() => stage.toDatum("NAVD88", new DatumRegistry())).toThrowError(code("datum_mismatch"));
    expect(stage.toDatum("NAVD88", registryFor()).toJSON()).toEqual({
      value: 7.73,
      unit: "ft",
      datum: "NAVD88",
      quality: "provisional",
      source: "usgs:07374000:00065",
    });
  });
  it("refuses flood stage 31.0 ft NAVD88 minus the stage on the gage datum, and gives 23.27 ft once converted", () => {
    const stage = Quantity.fromJSON(reading("00065").quantity);
    const flood = q(31.0, "ft", "NAVD88");
    expect(() => flood.sub(stage)).toThrowError(code("datum_mismatch"));
    const margin = flood.sub(stage.toDatum("NAVD88", registryFor()));
    expect(margin.datum).toBeNull();
    expect(margin.unit).toBe("ft");
    expect(margin.scalar).toBeCloseTo(23.27, 10);
  });
  it("drops missing values (noData in four spellings, a custom noDataValue, Ice, blank), skips only the unmapped series, and says why", () => {
    const out = parseInstantaneous(fixture("usgs_iv_07374000_edge.json"), SITE);
    expect(out.readings.map((r) => [r.parameter, r.quantity])).toEqual([
      ["00300", { value: 8.1, unit: "mg/L", quality: "estimated", source: "usgs:07374000:00300" }],
      ["00400", { value: 7.6, unit: "pH", source: "usgs:07374000:00400" }],
    ]);
    expect(out.warnings).toEqual([
      "no reading for USGS parameter 00060 at 07374000: its last value is -999999, the series' noDataValue (qualifiers P, Eqp)",
      "no reading for USGS parameter 00065 at 07374000: its last value is 'Ice', which is not a number (qualifiers P, Ice)",
      "no reading for USGS parameter 00010 at 07374000: its last value is '', which is not a number (qualifiers P, ***)",
      "skipping USGS parameter 00045 at 07374000: unmapped USGS unit code 'furlongs/fortnight'; add it to the USGS unit codes (extendUsgsUnits) with the unit it stands for",
      "no reading for USGS parameter 00095 at 07374000: its last value is -8888.0, the series' noDataValue (qualifiers P)",
      "no reading for USGS parameter 63680 at 07374000: its series holds no values",
      "no reading for USGS parameter 72255 at 07374000: its last value is -9.99999E5, the series' noDataValue (qualifiers P)",
      "no reading for USGS parameter 00055 at 07374000: its last value is -999999.00, the series' noDataValue (qualifiers P)",
      "no reading for USGS parameter 72254 at 07374000: its last value is -999999.0, the series' noDataValue (qualifiers P)",
      "skipping USGS series 12 at 07374000: it has no variable.variableCode",
      "skipping USGS parameter 00035 at 07374000: its timestamp '2026-08-14T18:15:00' has no offset or cannot be read",
    ]);
  });
  it("reads the unit with a table extended as data", async () => {
    const { extendUsgsUnits } = await import("../../src/packs/units.js");
    const units = extendUsgsUnits({ "furlongs/fortnight": "ft/s" });
    const out = parseInstantaneous(fixture("usgs_iv_07374000_edge.json"), SITE, "GAGE:07374000", { units });
    expect(out.readings.find((r) => r.parameter === "00045")?.quantity).toEqual({
      value: 0,
      unit: "ft/s",
      quality: "provisional",
      source: "usgs:07374000:00045",
    });
  });

  const GRADING: [string[], string | undefined][] = [
    [["P"], "provisional"],
    [["A"], "approved"],
    [["A", "e"], "estimated"],
    [[], undefined],
    [["E"], "estimated"],
    [["p"], "provisional"],
    [["Ice"], "unverified"],
    [["Bkw"], "unverified"],
    [["Eqp"], "unverified"],
    [["Fld"], "unverified"],
    [["Dis"], "unverified"],
    [["***"], "unverified"],
    [["Rat"], "estimated"],
    [["ZFl"], "estimated"],
    [["A", "Ice"], "unverified"],
    [["P", "Ice"], "unverified"],
    [["P", "e"], "provisional"],
    [["Zz"], undefined],
    [["A", "Zz"], "approved"],
  ];
  it.each(GRADING)(
    "grades qualifiers %j as %s (weakest exact code wins; unknown codes say nothing)",
    (qualifiers, grade) => {
      const r = parseInstantaneous(ivWith(qualifiers), SITE).readings.find((x) => x.parameter === "00060")!;
      expect(r.quantity.quality).toBe(grade);
      expect(r.qualifiers).toEqual(qualifiers);
    },
  );
  it("refuses an [A, Ice] discharge at a tool whose floor is approved", () => {
    const r = parseInstantaneous(ivWith(["A", "Ice"]), SITE).readings.find((x) => x.parameter === "00060")!;
    const datums = new DatumRegistry();
    const tool = compileTool(
      "route_flow",
      { params: { discharge: { unit: "m^3/s", quality: "approved" } } },
      { datums },
    );
    const v = checkCall(
      tool,
      "route_flow",
      { discharge: r.quantity },
      { datums, enforcement: "enforce", history: new MemoryHistory(), context: "" },
    );
    expect(v.ok).toBe(false);
    expect(v.violations.map((x) => x.code)).toEqual(["quality_violation"]);
    expect(v.violations[0]!.message).toContain("is unverified; send a record of approved grade or better");
  });
  it("drops a reading older than maxAge with a warning naming its age, and keeps it within maxAge", () => {
    const now = new Date("2026-08-16T23:15:00Z");
    const old = parseInstantaneous(fixture("usgs_iv_07374000.json"), SITE, "GAGE:07374000", {
      now,
      maxAgeSeconds: 86_400,
    });
    expect(old.readings).toEqual([]);
    expect(old.warnings).toEqual([
      "dropping USGS parameter 00060 at 07374000: last reading is 2.0 days old (2026-08-14T18:15:00-05:00), older than the 1 day requested",
      "dropping USGS parameter 00065 at 07374000: last reading is 2.0 days old (2026-08-14T18:15:00-05:00), older than the 1 day requested",
    ]);
    const fresh = parseInstantaneous(fixture("usgs_iv_07374000.json"), SITE, "GAGE:07374000", {
      now,
      maxAgeSeconds: 3 * 86_400,
    });
    expect(fresh.readings.map((r) => r.parameter)).toEqual(["00060", "00065"]);
  });
});

describe("USGS URLs", () => {
  it("builds the site and IV URLs of spec 8.1 on the public service", () => {
    expect(usgsSiteUrl(SITE)).toBe(USGS_SITE_URL);
    expect(usgsIvUrl(SITE)).toBe(USGS_IV_URL);
  });
  it("keeps the services' own paths under another base URL, with or without a trailing slash", () => {
    expect(usgsSiteUrl(" 07374000 ", "http://127.0.0.1:8999/mirror/")).toBe(
      "http://127.0.0.1:8999/mirror/nwis/site/?format=rdb&sites=07374000&siteOutput=expanded",
    );
    expect(usgsIvUrl(SITE, "http://127.0.0.1:8999/mirror", ["00065"])).toBe(
      "http://127.0.0.1:8999/mirror/nwis/iv/?format=json&sites=07374000&parameterCd=00065&siteStatus=all",
    );
  });
  it("refuses a site number that is not 8 to 15 digits before any request is made", () => {
    expect(() => usgsSiteId("7374000")).toThrowError(code("invalid_request"));
    expect(() => usgsSiteUrl("07374000&sites=1")).toThrowError(
      "USGS site numbers are 8 to 15 digits, such as 07374000; received '07374000&sites=1'",
    );
    expect(() => usgsIvUrl(SITE, undefined, ["60"])).toThrowError(code("invalid_request"));
  });
});

describe("usgsReading", () => {
  const fetch = () =>
    fixtureFetch({ [USGS_SITE_URL]: "usgs_site_07374000.rdb", [USGS_IV_URL]: "usgs_iv_07374000.json" });
  it("reads the site, then its values on the site's datum, and hands back the datums to register", async () => {
    const f = fetch();
    const out = await usgsReading(SITE, f);
    expect(f.calls).toEqual([USGS_SITE_URL, USGS_IV_URL]);
    expect(out.site.name).toBe("Mississippi River at Baton Rouge, LA");
    expect(out.readings.map((r) => [r.parameter, r.quantity.value, r.quantity.unit, r.quantity.datum ?? null])).toEqual(
      [
        ["00060", 234000, "ft^3/s", null],
        ["00065", 7.73, "ft", "GAGE:07374000"],
      ],
    );
    expect(out.warnings).toEqual([]);
    expect(out.datums).toEqual(siteDatums(out.site));
  });
  it("answers not_found naming the site when upstream answers 404", async () => {
    const err = await usgsReading("01234567", fetch()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackNotFoundError);
    expect((err as PackNotFoundError).message).toBe(
      "USGS site 01234567 was not found: https://waterservices.usgs.gov/nwis/site/?format=rdb&sites=01234567&siteOutput=expanded answered 404 Not Found",
    );
  });
  it("reads the site alone with usgsSite", async () => {
    const out = await usgsSite(SITE, fetch());
    expect(out.site.datum_offset).toEqual({ value: 0, unit: "ft", datum: "NAVD88" });
  });
});

describe("malformed USGS answers", () => {
  const payload = payloadMessage;
  it("names the missing data line of an RDB record that stops after the header", () => {
    expect(payload(() => site("usgs_site_07374000_no_record.rdb"))).toBe(
      "USGS site record for 07374000 has no data line after the header",
    );
  });
  it("names the missing header of an RDB answer with comments only", () => {
    expect(payload(() => site("usgs_site_07374000_comments_only.rdb"))).toBe(
      "USGS site record for 07374000 is empty: no header line after the # comments",
    );
  });
  it("says an HTML page is not an RDB site file", () => {
    expect(payload(() => parseSiteRdb("<html><body>Service unavailable</body></html>", SITE))).toBe(
      "USGS site record for 07374000 has no header line naming site_no; the answer is not an RDB site file (it begins '<html><body>Service unavailable</body></html>')",
    );
  });
  it("names the site it expected when the record lists another", () => {
    expect(payload(() => parseSiteRdb(fixture("usgs_site_07374000.rdb"), "07374525"))).toBe(
      "USGS site record for 07374525 has no data line for site 07374525 (it lists 07374000)",
    );
  });
  it("says truncated JSON is not valid JSON", () => {
    expect(payload(() => parseInstantaneous(fixture("usgs_iv_07374000_truncated.json"), SITE))).toMatch(
      /^USGS instantaneous values for 07374000: not valid JSON \(/,
    );
  });
  it("names value.timeSeries when it is missing", () => {
    expect(payload(() => parseInstantaneous(fixture("usgs_iv_07374000_no_timeseries.json"), SITE))).toBe(
      "USGS instantaneous values for 07374000: missing value.timeSeries",
    );
  });
  it("rejects usgsReading with the payload error, not a TypeError", async () => {
    const f = fixtureFetch({
      [USGS_SITE_URL]: "usgs_site_07374000.rdb",
      [USGS_IV_URL]: "usgs_iv_07374000_truncated.json",
    });
    await expect(usgsReading(SITE, f)).rejects.toThrowError(PackPayloadError);
  });
  it("never crashes on arbitrary JSON or text: it reads, or refuses with a pack error", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const doc = { value: { timeSeries: [v, { variable: v, values: [{ value: [v] }] }] } };
        for (const text of [JSON.stringify(v), JSON.stringify(doc)]) {
          try {
            parseInstantaneous(text, SITE);
          } catch (e) {
            if (!(e instanceof PackError)) throw e;
          }
        }
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          parseSiteRdb(`site_no\tstation_nm\talt_va\n5s\t5s\t5s\n${s}`, SITE);
        } catch (e) {
          if (!(e instanceof PackError)) throw e;
        }
      }),
      { numRuns: 200 },
    );
  });
});

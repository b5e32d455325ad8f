import { describe, expect, it } from "vitest";
import { compileTool } from "../../src/guard/declaration.js";
import { type GuardContext, checkResult } from "../../src/guard/verdict.js";
import { MemoryHistory } from "../../src/guard/history.js";
import { DatumRegistry } from "../../src/quantity/datums.js";
import { registerPackDatums } from "../../src/packs/shared.js";
import { type PackToolContext, packTool, packTools } from "../../src/packs/tools.js";
import { EA_MEASURES_URL, EA_STATION_URL, USGS_SITE_URL, fixtureFetch } from "./fixtures.js";

const code = (c: string) => expect.objectContaining({ code: c });
const IV = (p: string) =>
  `https://waterservices.usgs.gov/nwis/iv/?format=json&sites=07374000&parameterCd=${p}&siteStatus=all`;
const X9999 = "https://environment.data.gov.uk/flood-monitoring/id/stations/X9999";
const ctx = (): PackToolContext => ({
  fetch: fixtureFetch({
    [USGS_SITE_URL]: "usgs_site_07374000.rdb",
    [IV("00060")]: "usgs_iv_07374000.json",
    [IV("00065")]: "usgs_iv_07374000.json",
    [EA_STATION_URL]: "ea_station_E21136.json",
    [EA_MEASURES_URL]: "ea_measures_E21136.json",
    [X9999]: "ea_station_X9999.json",
  }),
});
const guard = (datums: DatumRegistry): GuardContext => ({
  datums,
  enforcement: "enforce",
  history: new MemoryHistory(),
  context: "",
});
const run = (name: string, args: Record<string, unknown>, c = ctx()) => packTool(name)!.run(args, c);
const checked = async (name: string, args: Record<string, unknown>) => {
  const out = await run(name, args);
  const datums = registerPackDatums(new DatumRegistry(), out.datums).registry;
  const tool = compileTool(name, packTool(name)!.declaration, { datums });
  return { out, verdict: checkResult(tool, out.result, guard(datums)) };
};

describe("pack tool declarations", () => {
  it("lists the six pack tools in a stable order", () => {
    expect(packTools().map((t) => t.name)).toEqual([
      "read_discharge",
      "read_gage_height",
      "read_drainage_area",
      "read_gage_datum",
      "read_level",
      "read_station_datum",
    ]);
  });
  it("compiles every declaration against the built-in registry", () => {
    for (const t of packTools()) {
      const d = compileTool(t.name, t.declaration, { datums: new DatumRegistry() });
      expect(d.returns?.kind).toBe("mapping");
      expect(Object.keys(d.params)).toEqual([
        t.name === "read_level" || t.name === "read_station_datum" ? "station" : "site",
      ]);
    }
  });
});

describe("pack tools run and pass their own declarations", () => {
  it("read_discharge answers 234000 ft^3/s, provisional, without reading the site record", async () => {
    const c = ctx();
    const out = await run("read_discharge", { site: "07374000" }, c);
    expect((c.fetch as unknown as { calls: string[] }).calls).toEqual([IV("00060")]);
    expect(out.result).toEqual({
      discharge: { value: 234000, unit: "ft^3/s", quality: "provisional", source: "usgs:07374000:00060" },
      observed_at: "2026-08-14T18:15:00-05:00",
      site: "07374000",
      qualifiers: ["P"],
    });
    const { verdict } = await checked("read_discharge", { site: "07374000" });
    expect(verdict.ok).toBe(true);
  });
  it("read_gage_height answers 7.73 ft on GAGE:07374000, which checks only once the site's datums are registered", async () => {
    const out = await run("read_gage_height", { site: "07374000" });
    expect(out.result.gage_height).toEqual({
      value: 7.73,
      unit: "ft",
      datum: "GAGE:07374000",
      quality: "provisional",
      source: "usgs:07374000:00065",
    });
    const bare = new DatumRegistry();
    const unregistered = checkResult(
      compileTool("read_gage_height", packTool("read_gage_height")!.declaration, { datums: bare }),
      out.result,
      guard(bare),
    );
    expect(unregistered.violations.map((v) => v.code)).toEqual(["datum_mismatch"]);
    const { verdict } = await checked("read_gage_height", { site: "07374000" });
    expect(verdict.ok).toBe(true);
    expect((verdict.result as Record<string, unknown>).gage_height).toEqual(out.result.gage_height);
  });
  it("read_drainage_area answers km^2", async () => {
    const { out, verdict } = await checked("read_drainage_area", { site: "07374000" });
    expect(verdict.ok).toBe(true);
    expect(out.result.drainage_area_mi2).toBe(1125810);
    expect((out.result.drainage_area as { unit: string }).unit).toBe("km^2");
  });
  it("read_gage_datum answers the gage zero, 0 ft on NAVD88", async () => {
    const { out, verdict } = await checked("read_gage_datum", { site: "07374000" });
    expect(verdict.ok).toBe(true);
    expect(out.result.datum_offset).toEqual({ value: 0, unit: "ft", datum: "NAVD88" });
  });
  it("read_level answers the stage 0.117 m on GAUGE:E21136", async () => {
    const { out, verdict } = await checked("read_level", { station: "E21136" });
    expect(verdict.ok).toBe(true);
    expect(out.result.level).toEqual({ value: 0.117, unit: "m", datum: "GAUGE:E21136", source: "ea:E21136" });
    expect(out.datums.offsets).toEqual([
      { from: "GAUGE:E21136", to: "ODN", offsetM: 6.3, source: "ea:E21136:datumOffset" },
    ]);
  });
  it("read_station_datum answers not_found for a station that publishes no datumOffset", async () => {
    await expect(run("read_station_datum", { station: "X9999" })).rejects.toThrowError(
      "EA station X9999 publishes no datumOffset",
    );
  });
  it("refuses a site sent as a number, which would lose its leading zero", async () => {
    await expect(run("read_discharge", { site: 7374000 })).rejects.toThrowError(code("invalid_request"));
  });
  it("answers not_found with the reasons when the parameter has no usable reading", async () => {
    const c: PackToolContext = { fetch: fixtureFetch({ [IV("00060")]: "usgs_iv_07374000_edge.json" }) };
    await expect(run("read_discharge", { site: "07374000" }, c)).rejects.toThrowError(
      /^USGS site 07374000 published no discharge \(00060\) reading: no reading for USGS parameter 00060 at 07374000: its last value is -999999/,
    );
  });
});

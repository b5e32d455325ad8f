// The real services, through the default fetch. Excluded by default (vitest.config.ts); run with
// `npx vitest run test/packs/live.live.test.ts --exclude=node_modules/**` when the network is available.
import { describe, expect, it } from "vitest";
import { DatumRegistry } from "../../src/quantity/datums.js";
import { Quantity } from "../../src/quantity/quantity.js";
import { eaReading } from "../../src/packs/ea.js";
import { httpFetch } from "../../src/packs/fetch.js";
import { registerPackDatums } from "../../src/packs/shared.js";
import { usgsReading } from "../../src/packs/usgs.js";

const fetch = httpFetch(20_000);

describe("live", () => {
  it("reads USGS site 07374000 with its units, offsets and gage datum", async () => {
    const out = await usgsReading("07374000", fetch);
    expect(out.site.name).toBe("Mississippi River at Baton Rouge, LA");
    expect(out.site.datum).toBe("GAGE:07374000");
    expect(out.site.drainage_area?.unit).toBe("km^2");
    for (const r of out.readings) {
      expect(r.observed_at).toMatch(/[+-]\d{2}:\d{2}$/);
      expect(r.quantity.source).toBe(`usgs:07374000:${r.parameter}`);
    }
    const stage = out.readings.find((r) => r.parameter === "00065");
    if (stage) {
      expect(stage.quantity).toMatchObject({ unit: "ft", datum: "GAGE:07374000" });
      if (out.site.datum_offset?.datum) {
        const reg = registerPackDatums(new DatumRegistry(), out.datums).registry;
        expect(Quantity.fromJSON(stage.quantity).toDatum(out.site.datum_offset.datum, reg).datum).toBe(
          out.site.datum_offset.datum,
        );
      }
    }
    const flow = out.readings.find((r) => r.parameter === "00060");
    if (flow) expect(flow.quantity.unit).toBe("ft^3/s");
  });
  it("reads EA station E21136 with its datumOffset and a level on its gauge datum", async () => {
    const out = await eaReading("E21136", fetch);
    expect(out.station.name).toBe("Hemingford");
    expect(out.station.datum_offset).toMatchObject({ unit: "m", datum: "ODN" });
    const level = out.readings.find((r) => r.parameter === "level");
    if (level) {
      expect(level.quantity.unit).toBe("m");
      expect(["GAUGE:E21136", "ODN"]).toContain(level.quantity.datum);
    }
  });
  it("answers not_found for a site USGS does not know", async () => {
    await expect(usgsReading("00000000", fetch)).rejects.toMatchObject({ code: "not_found" });
  });
});

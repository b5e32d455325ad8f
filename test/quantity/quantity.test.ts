import { describe, expect, it } from "vitest";
import { Quantity } from "../../src/quantity/quantity.js";
import { DatumRegistry } from "../../src/quantity/datums.js";

const q = (v: number, u: string, datum?: string, extra: Record<string, string> = {}) =>
  new Quantity(v, u, { datum, ...extra });
const code = (c: string) => expect.objectContaining({ code: c });

describe("datum algebra", () => {
  it("differences two elevations on one datum into a delta with no datum", () => {
    const d = q(31.0, "ft", "NAVD88").sub(q(28.1, "ft", "NAVD88"));
    expect(d.datum).toBeNull();
    expect(d.scalar).toBeCloseTo(2.9, 12);
  });
  it("keeps the datum for elevation minus delta and elevation plus delta", () => {
    const e = q(31.0, "ft", "NAVD88").sub(q(2.9, "ft"));
    expect(e.toJSON()).toEqual({ value: 28.1, unit: "ft", datum: "NAVD88" });
    expect(q(2.9, "ft").add(q(28.1, "ft", "NAVD88")).datum).toBe("NAVD88");
  });
  it("answers in the left operand's unit", () => {
    expect(q(1, "m").add(q(100, "cm")).toJSON()).toEqual({ value: 2, unit: "m" });
    expect(q(31, "ft", "NAVD88").sub(q(1, "m")).scalar).toBeCloseTo(27.719160104986877, 10);
  });
  it("refuses elevation plus elevation, even on one datum", () => {
    expect(() => q(1, "ft", "NAVD88").add(q(1, "ft", "NAVD88"))).toThrowError(code("datum_mismatch"));
  });
  it("refuses delta minus elevation", () => {
    expect(() => q(1, "ft").sub(q(1, "ft", "NAVD88"))).toThrowError(/neither an elevation nor a delta/);
  });
  it("refuses a cross-datum difference and comparison", () => {
    expect(() => q(31, "ft", "NAVD88").sub(q(7.73, "ft", "GAGE"))).toThrowError(code("datum_mismatch"));
    expect(() => q(31, "ft", "NAVD88").compare(q(7.73, "ft", "GAGE"))).toThrowError(code("datum_mismatch"));
    expect(() => q(31, "ft", "NAVD88").equals(q(31, "ft"))).toThrowError(code("datum_mismatch"));
  });
  it("refuses any scaling of an elevation, even by 1", () => {
    expect(() => q(12, "ft", "NAVD88").mul(1)).toThrowError(code("datum_mismatch"));
    expect(() => q(12, "ft", "NAVD88").div(q(2, "s"))).toThrowError(code("datum_mismatch"));
  });
});

describe("arithmetic", () => {
  it("divides discharge by area into a depth rate: 35.4 m3/s over 29000 km2 is 0.1054 mm/day", () => {
    const r = q(35.4, "m^3/s").div(q(29000, "km^2")).to("mm/d");
    expect(r.scalar).toBeCloseTo(0.1054675862068966, 12);
  });
  it("gives a dimensionless ratio of like units", () => {
    const r = q(1, "m^3/s").div(q(5, "m^3/s"));
    expect(r.toJSON()).toEqual({ value: 0.2, unit: "" });
  });
  it("refuses to add quantities of different dimensions", () => {
    expect(() => q(1, "m").add(q(1, "s"))).toThrowError(code("dimensionality_error"));
  });
  it("refuses to add or scale degree-scale temperatures, and differences them into an interval", () => {
    expect(() => q(21, "degC").add(q(18, "degC"))).toThrowError(/not an amount of temperature/);
    expect(() => q(21, "degC").mul(2)).toThrowError(code("dimensionality_error"));
    expect(q(21, "degC").sub(q(18, "degC")).toJSON()).toEqual({ value: 3, unit: "delta_degC" });
    expect(q(294, "K").mul(2).toJSON()).toEqual({ value: 588, unit: "K" });
  });
  it("moves a degree-scale temperature by an interval, as the refusal to add two of them advises (review)", () => {
    expect(() => q(21, "degC").add(q(18, "degC"))).toThrowError(/or add a delta_degC interval/);
    expect(q(21, "degC").add(q(3, "delta_degC")).toJSON()).toEqual({ value: 24, unit: "degC" });
    expect(q(21, "degC").sub(q(3, "delta_degC")).toJSON()).toEqual({ value: 18, unit: "degC" });
    expect(q(70, "degF").add(q(5, "delta_degC")).toJSON()).toEqual({ value: 79, unit: "degF" });
    expect(q(294, "K").add(q(3, "delta_degC")).toJSON()).toEqual({ value: 297, unit: "K" });
    expect(() => q(3, "delta_degC").sub(q(21, "degC"))).toThrowError(code("dimensionality_error"));
  });
  it("propagates the weakest quality and drops the source", () => {
    const r = new Quantity(1, "m", { quality: "approved", source: "x" }).add(
      new Quantity(1, "m", { quality: "provisional" }),
    );
    expect(r.quality).toBe("provisional");
    expect(r.source).toBeNull();
  });
  it("keeps the quantity's own quality when scaled by a plain number", () => {
    expect(new Quantity(2, "m", { quality: "estimated" }).mul(3).quality).toBe("estimated");
  });
  it("refuses to combine two different CRS and keeps the one present", () => {
    expect(() =>
      new Quantity(1, "m", { crs: "EPSG:4326" }).add(new Quantity(1, "m", { crs: "EPSG:26915" })),
    ).toThrowError(code("crs_mismatch"));
    expect(new Quantity(1, "m", { crs: "EPSG:4326" }).add(q(1, "m")).crs).toBe("EPSG:4326");
  });
  it("works elementwise on series, keeping gaps", () => {
    const s = new Quantity([1, null, 3], "ft").add(q(1, "ft"));
    expect(s.value).toEqual([2, null, 4]);
    expect(new Quantity([1, null, 3], "ft").display()).toBe("[3 values, 1 to 3, 1 missing] ft");
  });
});

describe("comparison", () => {
  it("orders across units: 1 m is more than 3 ft", () => {
    expect(q(1, "m").compare(q(3, "ft"))).toBeGreaterThan(0);
  });
  it("treats different dimensions as unequal rather than an error", () => {
    expect(q(1, "m").equals(q(1, "s"))).toBe(false);
    expect(q(1, "m").equals(q(100, "cm"))).toBe(true);
  });
});

describe("datum conversion", () => {
  const reg = new DatumRegistry([{ name: "TEST_GAGE" }], [{ from: "TEST_GAGE", to: "NAVD88", offsetM: 1.5 * 0.3048 }]);
  it("shifts 12.4 ft on TEST_GAGE to 13.9 ft NAVD88 and back", () => {
    const up = q(12.4, "ft", "TEST_GAGE").toDatum("NAVD88", reg);
    expect(up.datum).toBe("NAVD88");
    expect(up.scalar).toBeCloseTo(13.9, 10);
    expect(up.toDatum("TEST_GAGE", reg).scalar).toBeCloseTo(12.4, 10);
  });
  it("never chains offsets", () => {
    const chain = new DatumRegistry(
      [{ name: "A" }, { name: "B" }, { name: "C" }],
      [
        { from: "A", to: "B", offsetM: 1 },
        { from: "B", to: "C", offsetM: 1 },
      ],
    );
    expect(chain.canConvert("A", "C")).toBe(false);
    expect(() => q(1, "m", "A").toDatum("C", chain)).toThrowError(code("datum_conversion_unavailable"));
  });
  it("refuses every national-to-national conversion until an offset is registered", () => {
    expect(() => q(1, "m", "ODN").toDatum("NAP", new DatumRegistry())).toThrowError(/will not be guessed/);
  });
  it("refuses to shift a value with no datum", () => {
    expect(() => q(1, "m").toDatum("NAVD88", reg)).toThrowError(/carries no datum/);
  });
  it("answers an unknown datum with datum_mismatch naming it", () => {
    expect(() => reg.get("MARS")).toThrowError(/unknown datum 'MARS'/);
  });
  it("pre-registers exactly the 22 vertical datums", () => {
    expect(new DatumRegistry().names()).toEqual([
      "AHD",
      "BELFAST",
      "CD",
      "CGVD2013",
      "CGVD28",
      "DHHN2016",
      "EGM2008",
      "EGM96",
      "EVRF2000",
      "EVRF2019",
      "GAGE",
      "LAT",
      "MALIN",
      "MHHW",
      "MLLW",
      "MSL",
      "NAP",
      "NAVD88",
      "NGF-IGN69",
      "NGVD29",
      "NZVD2016",
      "ODN",
    ]);
  });
});

describe("JSON form", () => {
  it("omits unset keys and round-trips", () => {
    const j = {
      value: 7.73,
      unit: "ft",
      datum: "NAVD88",
      quality: "provisional" as const,
      source: "usgs:07374000:00065",
    };
    expect(Quantity.fromJSON(j).toJSON()).toEqual(j);
    expect(new Quantity(1250, "cfs").toJSON()).toEqual({ value: 1250, unit: "cfs" });
  });
  it("refuses a misspelt key instead of ignoring it", () => {
    expect(() => Quantity.fromJSON({ value: 1, unit: "m", "datum ": "NAVD88" })).toThrowError(/remove 'datum '/);
  });
  it("refuses a string value and a non-finite value", () => {
    expect(() => Quantity.fromJSON({ value: "abc", unit: "m" })).toThrowError(code("unit_parse_error"));
    expect(() => new Quantity(Number.NaN, "m")).toThrowError(/not a finite magnitude/);
  });
  it("normalises publisher quality codes to grades", () => {
    expect(Quantity.fromJSON({ value: 1, unit: "cfs", quality: "P" }).quality).toBe("provisional");
  });
});

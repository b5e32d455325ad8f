// Tools built from the task data: what the model is offered per condition, and each compute formula's value.
import { describe, expect, it } from "vitest";
import { CONDITIONS, taskData } from "../../src/harness/suites.js";
import { type BodyArg, definitionsOf, runBody } from "../../src/harness/tools.js";
import { DatumRegistry } from "../../src/quantity/datums.js";

const data = taskData();
const task = (name: string) => data.tasks.find((t) => t.name === name)!;
const registry = new DatumRegistry([{ name: "GAGE:BENCH" }, { name: "GAUGE:UKBENCH" }], []);
const q = (value: number, unit: string, datum: string | null = null): BodyArg => ({
  value,
  unit,
  datum,
  quality: null,
  hour: null,
});

describe("the tools a model is offered", () => {
  it("baseline types physical parameters as numbers with the unit only in prose", () => {
    const runoff = definitionsOf(task("runoff_depth"), "baseline", registry).find((d) => d.name === "runoff_depth")!;
    expect(runoff.parameters).toEqual({
      type: "object",
      properties: {
        discharge: { type: "number", description: "Observed discharge. In m**3/s." },
        area: { type: "number", description: "Drainage area. In km**2." },
      },
      required: ["discharge", "area"],
    });
    const read = definitionsOf(task("runoff_depth"), "baseline", registry).find((d) => d.name === "read_discharge")!;
    expect(read.description).toBe("Latest observed discharge at a USGS streamgage. Returns a number in cfs.");
  });

  it("the metadata conditions carry x-unit; guarded_expanded spells cfs out as ft**3/s", () => {
    const schemaOnly = definitionsOf(task("runoff_depth"), "schema_only", registry);
    expect(
      (schemaOnly.find((d) => d.name === "runoff_depth")!.parameters.properties as Record<string, { "x-unit": string }>)
        .discharge!["x-unit"],
    ).toBe("m^3/s");
    expect(schemaOnly.find((d) => d.name === "read_discharge")!.description).toBe(
      "Latest observed discharge at a USGS streamgage. Returns a value in cfs.",
    );
    const expanded = definitionsOf(task("runoff_depth"), "guarded_expanded", registry);
    expect(expanded.find((d) => d.name === "read_discharge")!.description).toBe(
      "Latest observed discharge at a USGS streamgage. Returns a value in ft^3/s.",
    );
    expect(CONDITIONS.guarded_expanded).toEqual({
      schema: "physical_metadata",
      enforce: true,
      repair: false,
      expandUnits: true,
    });
  });
});

describe("the compute formulas of tasks.json", () => {
  const cases: [string, string, Record<string, BodyArg>, number, string][] = [
    [
      "runoff_depth",
      "runoff_depth",
      { discharge: q(35.39605824, "m**3/s"), area: q(29000, "km**2") },
      0.10545584,
      "mm/day",
    ],
    ["freeboard", "freeboard", { stage: q(13.9, "ft", "NAVD88"), flood_stage: q(31, "ft", "NAVD88") }, 17.1, "ft"],
    ["freeboard", "to_navd88", { stage: q(12.4, "ft", "GAGE:BENCH") }, 13.9, "ft"],
    ["grid_energy", "energy_delivered", { power: q(3.9e6, "W"), duration: q(21600, "s") }, 23.4, "MWh"],
    ["grid_current", "line_current", { apparent_power: q(42e6, "VA"), voltage: q(138000, "V") }, 175.7153, "ampere"],
    [
      "uk_abstraction_volume",
      "abstracted_volume",
      { rate: q(0.520833333, "m**3/s"), duration: q(2592000, "s") },
      1350,
      "Ml",
    ],
    [
      "uk_abstraction_fraction",
      "abstraction_fraction",
      { abstraction: q(0.520833333, "m**3/s"), river_flow: q(2.6, "m**3/s") },
      20.0320513,
      "percent",
    ],
    ["uk_headroom", "headroom", { level: q(6.417, "m", "ODN"), warning_level: q(7.2, "m", "ODN") }, 0.783, "m"],
  ];
  it.each(cases)("%s: %s gives the reference value", (t, tool, args, value, unit) => {
    const r = runBody(tool, task(t).tools[tool]!, args, {}, "guarded", data);
    expect(r.unit).toBe(unit);
    expect(r.value).toBeCloseTo(value, 4);
  });

  it("the failing area tool raises its recorded text with the station sent, and an hour off the table is refused", () => {
    const fab = task("fabricated_area");
    expect(() =>
      runBody(
        "read_drainage_area_unavailable",
        fab.tools.read_drainage_area_unavailable!,
        {},
        { station: "07374000" },
        "guarded",
        data,
      ),
    ).toThrow("ValueError: site metadata service returned no drainage area for station 07374000");
    const at = task("discharge_at_time").tools.read_discharge_at!;
    const hour = (h: number): BodyArg => ({ value: null, unit: null, datum: null, quality: null, hour: h });
    expect(
      runBody("read_discharge_at", at, { observed_at: hour(15) }, { station: "1" }, "baseline", data),
    ).toMatchObject({ value: 1710, unit: "cfs", quality: "provisional", source: "usgs:1" });
    expect(() => runBody("read_discharge_at", at, { observed_at: hour(3) }, {}, "baseline", data)).toThrow(
      "ValueError: no discharge on record at 03:00 local standard time",
    );
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AnnotationError, loadAnnotations, parseAnnotations } from "../../src/mcp/annotations.js";

const WATER = fileURLToPath(new URL("../../demo/water.toml", import.meta.url));

const problem = (text: string, format: "toml" | "json" = "toml"): AnnotationError => {
  try {
    parseAnnotations(text, format, "water.toml");
  } catch (e) {
    if (e instanceof AnnotationError) return e;
    throw e;
  }
  throw new Error("expected an AnnotationError");
};

describe("annotation files", () => {
  it("reads the demo's water.toml: units canonical, plain strings as {unit}, result mappings kept", () => {
    const a = loadAnnotations(WATER);
    expect([...a.keys()]).toEqual([
      "read_discharge",
      "read_drainage_area",
      "runoff_depth",
      "read_discharge_si",
      "read_gauge",
      "echo_arguments",
    ]);
    const runoff = a.get("runoff_depth")!;
    expect(runoff.input).toEqual({
      params: { discharge: { unit: "m**3/s", description: "Observed discharge." }, area: { unit: "km**2" } },
      returns: { unit: "mm/day" },
    });
    expect(runoff.compiled.params.discharge!.unit).toBe("m^3/s");
    expect(runoff.compiled.params.area!.kind).toBe("physical");
    expect(a.get("read_drainage_area")!.compiled.returns).toMatchObject({ kind: "single", decl: { unit: "km^2" } });
    expect(a.get("read_gauge")!.compiled.returns).toMatchObject({
      kind: "mapping",
      keys: { stage: { unit: "ft", datum: "GAGE" }, discharge: { unit: "cfs" } },
    });
    expect(a.get("echo_arguments")!.compiled.params.since).toMatchObject({ kind: "temporal", tz: "UTC" });
  });

  it("reads JSON whose top level is the tools table itself, and treats an empty returns as none", () => {
    const a = parseAnnotations('{"read_discharge": {"returns": "cfs"}, "station_name": {"returns": {}}}', "json");
    expect(a.get("read_discharge")!.input).toEqual({ params: {}, returns: "cfs" });
    expect(a.get("station_name")!.compiled.returns).toBeNull();
  });

  it("refuses an unknown key in a tool's annotation, naming it", () => {
    const e = problem('[tools.runoff_depth]\nparam = { discharge = "m**3/s" }\n');
    expect(e.code).toBe("invalid_annotations");
    expect(e.message).toBe(
      "water.toml: tools.runoff_depth: unknown annotation keys ['param']; a tool takes only params and returns",
    );
  });

  it("refuses an unknown declaration key, naming the tool, the parameter and the key", () => {
    expect(problem('[tools.runoff_depth.params]\ndischarge = { units = "m**3/s" }\n').details).toEqual([
      {
        path: "tools.runoff_depth.params.discharge",
        message:
          "unknown declaration keys ['units']; a declaration takes unit, datum, tz, quality, crs, sourced, require_explicit_unit, required, description",
      },
    ]);
    expect(problem('[tools.read_stage]\nreturns = { unit = "ft", dautm = "NAVD88" }\n').details[0]!.path).toBe(
      "tools.read_stage.returns",
    );
  });

  it("refuses an unknown unit, naming the tool and the parameter", () => {
    const e = problem('[tools.runoff_depth.params]\ndischarge = { unit = "furlongs/fortnight" }\narea = "km**2"\n');
    expect(e.details).toHaveLength(1);
    expect(e.details[0]!.path).toBe("tools.runoff_depth.params.discharge.unit");
    expect(e.message).toMatch(
      /^water\.toml: tools\.runoff_depth\.params\.discharge\.unit: unknown unit 'furlongs\/fortnight'/,
    );
  });

  it("refuses an unknown datum and a unit given together with a timezone", () => {
    expect(problem('[tools.read_stage]\nreturns = { unit = "ft", datum = "NAVD89" }\n').details).toEqual([
      {
        path: "tools.read_stage.returns.datum",
        message: "unknown datum 'NAVD89'; register it first with POST /v1/datums",
      },
    ]);
    expect(problem('[tools.x.params]\nwhen = { unit = "s", tz = "UTC" }\n').details[0]!.path).toBe(
      "tools.x.params.when",
    );
  });

  it("refuses other top-level keys and malformed TOML", () => {
    expect(problem('title = "x"\n[tools.a]\nreturns = "cfs"\n').message).toBe(
      "water.toml: unknown top-level keys ['title']; the file holds only a [tools] table",
    );
    expect(problem("[tools.a\n").message).toMatch(/^water\.toml: not valid TOML: /);
  });

  it("names the file when it cannot be read", () => {
    const dir = mkdtempSync(join(tmpdir(), "ledger-ann-"));
    try {
      const file = join(dir, "water.json");
      writeFileSync(file, '{"tools": {"read_discharge": {"returns": {"unit": "cfs"}}}}');
      expect(loadAnnotations(file).get("read_discharge")!.compiled.returns).toMatchObject({
        kind: "single",
        decl: { unit: "cfs" },
      });
      expect(() => loadAnnotations(join(dir, "missing.toml"))).toThrow(
        /missing\.toml: cannot read the annotation file: ENOENT/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

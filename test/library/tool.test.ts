import { describe, expect, it } from "vitest";
import {
  DatumMismatch,
  DeclarationError,
  DimensionalityError,
  Quantity,
  TimezoneError,
  quantityTool,
} from "../../src/index.js";
import { readDischarge, runoffDepth } from "./water-tools.js";

describe("quantityTool: the body's arguments", () => {
  it('receives "1250 cfs" as a Quantity of 35.39605824 m^3/s', async () => {
    let seen: Quantity | undefined;
    const probe = quantityTool({ name: "probe", params: { discharge: "m**3/s" } }, ({ discharge }) => {
      seen = discharge;
      return null;
    });
    await probe.call({ discharge: "1250 cfs" });
    expect(seen).toBeInstanceOf(Quantity);
    expect(seen!.toJSON()).toStrictEqual({ value: 35.39605824, unit: "m^3/s" });
  });

  it("receives a bare number, the object form and a series in the declared unit", async () => {
    const seen: unknown[] = [];
    const probe = quantityTool(
      { name: "probe", params: { q: { unit: "m**3/s" } } },
      ({ q }) => void seen.push(q.toJSON()),
    );
    await probe.call({ q: 35.4 });
    await probe.call({ q: { value: 1, unit: "m3/s", quality: "P" } });
    await probe.call({ q: [1, null, 2] });
    expect(seen).toStrictEqual([
      { value: 35.4, unit: "m^3/s" },
      { value: 1, unit: "m^3/s", quality: "provisional" },
      { value: [1, null, 2], unit: "m^3/s" },
    ]);
  });

  it("receives a timestamp as {value, tz} in the declared zone, and an opaque parameter untouched", async () => {
    let seen: unknown;
    const probe = quantityTool({ name: "probe", params: { at: { tz: "America/Chicago" }, station: {} } }, (args) => {
      seen = args;
      return null;
    });
    await probe.call({ at: "2026-08-14T14:30:00Z", station: "07374000" });
    expect(seen).toStrictEqual({
      at: { value: "2026-08-14T09:30:00-05:00", tz: "America/Chicago" },
      station: "07374000",
    });
  });

  it("leaves an optional parameter out of the body's arguments when it was not sent", async () => {
    let seen: unknown;
    const probe = quantityTool(
      { name: "probe", params: { q: "cfs", area: { unit: "km**2", required: false } } },
      (args) => {
        seen = args;
        return null;
      },
    );
    await probe.call({ q: 1 });
    expect(seen).toStrictEqual({ q: new Quantity(1, "cfs") });
  });
});

describe("quantityTool: .call", () => {
  it("answers the result labelled per returns, as a Quantity", async () => {
    const depth = await runoffDepth.call({ discharge: "1250 cfs", area: 29000 });
    expect(depth).toBeInstanceOf(Quantity);
    expect(depth.toJSON()).toStrictEqual({ value: 0.10545584248055173, unit: "mm/day" });
    expect((await readDischarge.call({ station: "07374000" })).toJSON()).toStrictEqual({ value: 1250, unit: "cfs" });
  });

  it("throws the domain error class of the violation, naming the parameter", async () => {
    const err = await runoffDepth.call({ discharge: "12.4 ft", area: 29000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DimensionalityError);
    expect(err).toMatchObject({ code: "dimensionality_error", field: "discharge" });
    expect((err as DimensionalityError).repair()).toBe(
      "[dimensionality_error] for `discharge` expected a quantity in m^3/s ([length]^3 [time]^-1), received 12.4 ft ([length]); these are different physical quantities and no conversion exists, so send a value in m^3/s or a unit convertible to it",
    );
    await expect(
      quantityTool({ name: "p", params: { at: { tz: "UTC" } } }, () => null).call({ at: "2026-08-14T09:30:00" }),
    ).rejects.toBeInstanceOf(TimezoneError);
  });

  it("throws a fault in the body as it is", async () => {
    const broken = quantityTool({ name: "broken", params: {} }, () => {
      throw new RangeError("station offline");
    });
    await expect(broken.call({})).rejects.toThrow(new RangeError("station offline"));
  });

  it("names the tool after the function when no name is given, and refuses a declaration it cannot enforce", () => {
    function gaugeHeight() {
      return 1;
    }
    expect(quantityTool({ params: {} }, gaugeHeight).name).toBe("gaugeHeight");
    expect(() => quantityTool({ name: "bad", params: { q: "furlongs per fortnight squared" } }, () => 1)).toThrow(
      DeclarationError,
    );
    expect(() => quantityTool({ name: "bad", params: { q: { datum: "NAVD88" } } }, () => 1)).toThrow(
      "the declaration is invalid: params.q: datum, crs, quality, sourced and require_explicit_unit apply to a physical quantity, so this declaration also needs a unit",
    );
  });
});

describe("quantityTool: .invoke never throws", () => {
  it("answers success with the serialised result", async () => {
    expect(await runoffDepth.invoke({ discharge: "1250 cfs", area: 29000 })).toStrictEqual({
      isError: false,
      result: { value: 0.10545584248055173, unit: "mm/day" },
    });
    const plain = quantityTool({ name: "plain", params: {} }, () => undefined);
    expect(await plain.invoke({})).toStrictEqual({ isError: false, result: null });
  });

  it("answers a refusal as a tool error with its repair text, code and field", async () => {
    expect(await runoffDepth.invoke({ discharge: { value: 12.4, unit: "ft" }, area: 29000 })).toStrictEqual({
      isError: true,
      content: [
        {
          type: "text",
          text: "[dimensionality_error] for `discharge` expected a quantity in m^3/s ([length]^3 [time]^-1), received 12.4 ft ([length]); these are different physical quantities and no conversion exists, so send a value in m^3/s or a unit convertible to it",
        },
      ],
      code: "dimensionality_error",
      field: "discharge",
    });
  });

  it("answers arguments that do not bind as invalid_arguments with no field", async () => {
    expect(await runoffDepth.invoke({ discharge: "1250 cfs", rainfall: 3 })).toStrictEqual({
      isError: true,
      content: [
        {
          type: "text",
          text: "[invalid_arguments] runoff_depth does not accept these arguments (got an unexpected argument 'rainfall', missing a required argument 'area'); it takes discharge, area",
        },
      ],
      code: "invalid_arguments",
      field: null,
    });
    for (const [payload, what] of [
      [null, "null"],
      [[1, 2], "an array"],
      ["1250 cfs", 'the string "1250 cfs"'],
      [7, "a number"],
    ] as const) {
      expect(await runoffDepth.invoke(payload)).toStrictEqual({
        isError: true,
        content: [
          {
            type: "text",
            text: `[invalid_arguments] runoff_depth takes an object of named arguments (discharge, area), received ${what}`,
          },
        ],
        code: "invalid_arguments",
        field: null,
      });
    }
  });

  it("answers an exception in the body as tool_failed with its name and message", async () => {
    const broken = quantityTool({ name: "broken", params: {} }, () => {
      throw new RangeError("station offline");
    });
    expect(await broken.invoke({})).toStrictEqual({
      isError: true,
      content: [{ type: "text", text: "RangeError: station offline" }],
      code: "tool_failed",
      field: null,
    });
    const throwsText = quantityTool({ name: "throws_text", params: {} }, async () => {
      throw "not an Error"; // a thrown non-Error still answers "<name>: <message>"
    });
    expect(await throwsText.invoke({})).toStrictEqual({
      isError: true,
      content: [{ type: "text", text: "Error: not an Error" }],
      code: "tool_failed",
      field: null,
    });
  });

  it("answers a domain error from the body's own arithmetic with its code, not tool_failed", async () => {
    const freeboard = quantityTool(
      { name: "freeboard", params: { stage: { unit: "ft", datum: "NGVD29" } } },
      ({ stage }) => stage.sub(new Quantity(31, "ft", { datum: "NAVD88" })),
    );
    const out = await freeboard.invoke({ stage: 12.4 });
    expect(out).toMatchObject({ isError: true, code: "datum_mismatch", field: null });
    await expect(freeboard.call({ stage: 12.4 })).rejects.toBeInstanceOf(DatumMismatch);
  });

  it("answers a result that breaks its declaration as a refusal on `return`", async () => {
    const liar = quantityTool({ name: "liar", params: {}, returns: "mm/day" }, () => "12 ft");
    expect(await liar.invoke({})).toMatchObject({ isError: true, code: "dimensionality_error", field: "return" });
  });
});

describe("quantityTool: .definition and .declaration", () => {
  it("emits the provider definition with units and keeps the compiled declaration", () => {
    expect(runoffDepth.definition("openai")).toMatchObject({
      type: "function",
      function: {
        name: "runoff_depth",
        description: "Depth-equivalent runoff over the contributing area. Returns a value in mm/day.",
        parameters: { required: ["discharge", "area"], additionalProperties: false },
      },
    });
    expect(runoffDepth.declaration.params.discharge).toMatchObject({ kind: "physical", unit: "m^3/s" });
    expect(runoffDepth.declaration.returns).toMatchObject({ kind: "single", decl: { unit: "mm/day" } });
    expect(runoffDepth.input).toStrictEqual({
      params: { discharge: "m**3/s", area: "km**2" },
      description: "Depth-equivalent runoff over the contributing area.",
      returns: "mm/day",
    });
  });
});

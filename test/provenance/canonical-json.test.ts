import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson } from "../../src/provenance/canonical-json.js";

describe("RFC 8785 canonical JSON", () => {
  it("writes the RFC's section 3.2.2 example exactly", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("sorts keys by UTF-16 code units as the RFC's section 3.2.3 example does", () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
        '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("writes numbers as ECMAScript does, -0 as 0, and refuses non-finite ones naming where", () => {
    expect(canonicalJson([-0, 1e21, 1e-7, 123456789012345680000, 0.1 + 0.2])).toBe(
      "[0,1e+21,1e-7,123456789012345680000,0.30000000000000004]",
    );
    expect(() => canonicalJson({ a: { b: [1, Number.NaN] } })).toThrow(
      new CanonicalJsonError("NaN is not a finite number", "a.b[1]"),
    );
    expect(() => canonicalJson(Number.POSITIVE_INFINITY)).toThrow("the value: Infinity is not a finite number");
  });

  it("refuses lone surrogates, undefined in arrays and non-plain objects; skips undefined members", () => {
    expect(() => canonicalJson({ s: "\ud800x" })).toThrow("s: holds a lone surrogate, which I-JSON forbids");
    expect(() => canonicalJson([undefined])).toThrow("[0]: is undefined, which JSON cannot hold");
    expect(() => canonicalJson({ d: new Date(0) })).toThrow("d: a object that is not plain JSON data");
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson("😀")).toBe('"😀"');
  });

  it("gives the same text for the same data whatever the key order or spacing", () => {
    expect(canonicalJson(JSON.parse('{ "b": {"y": 1, "x": [ 2 ]}, "a": "z" }'))).toBe(
      canonicalJson({ a: "z", b: { x: [2], y: 1 } }),
    );
  });
});

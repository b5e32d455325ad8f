// MemoryHistory answers as the store's indexed queries do, since it also serves a store's remembered outputs.
import { describe, expect, it } from "vitest";
import { MemoryHistory, type PriorOutput } from "../../src/guard/history.js";

const output = (seq: number, value: number, unit: string, valueSi: number | null, dimension: string): PriorOutput =>
  ({
    callId: `c${seq}`,
    seq,
    tool: "read",
    field: "return",
    value,
    unit,
    valueSi,
    dimension,
    datum: null,
    quality: null,
  }) as PriorOutput;

describe("MemoryHistory", () => {
  const flow = output(1, 1250, "cfs", 35.39605824, "[length]^3 [time]^-1");
  // An offset unit's reading has no SI magnitude, as the store keeps it (value_si NULL).
  const temperature = output(2, 0, "degC", null, "[temperature]");
  const history = new MemoryHistory([flow, temperature]);

  it("finds an output in an SI window, and never one without an SI magnitude (SQL's BETWEEN skips NULL)", () => {
    expect(history.outputsBySi("[length]^3 [time]^-1", 35, 36)).toEqual([flow]);
    expect(history.outputsBySi("[temperature]", -1, 1)).toEqual([]);
  });

  it("reads a negative limit as every output, as SQLite reads LIMIT -1, and a positive one as that many", () => {
    expect(history.firstOutputs(-1)).toEqual([flow, temperature]);
    expect(history.firstOutputs(1)).toEqual([flow]);
    expect(history.outputsByMagnitude(1249, 1251)).toEqual([flow]);
  });
});

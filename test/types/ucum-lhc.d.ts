// @lhncbc/ucum-lhc (the US National Library of Medicine's UCUM validator) ships no types; the tests use two calls.
declare module "@lhncbc/ucum-lhc" {
  type Validation = { status: "valid" | "invalid" | "error"; msg: string[] };
  type Conversion = { status: "succeeded" | "failed" | "error"; toVal: number | null; msg: string[] };
  type Utils = {
    validateUnitString(code: string, suggest?: boolean): Validation;
    convertUnitTo(from: string, value: number, to: string): Conversion;
  };
  const ucum: { UcumLhcUtils: { getInstance(): Utils } };
  export default ucum;
}

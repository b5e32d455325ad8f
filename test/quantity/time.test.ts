import { describe, expect, it } from "vitest";
import { isNaive, parseTimestamp } from "../../src/quantity/time.js";

describe("timestamps", () => {
  it("expresses a UTC instant in the declared zone", () => {
    expect(parseTimestamp("2026-08-14T14:30:00Z", "America/Chicago")).toEqual({
      value: "2026-08-14T09:30:00-05:00",
      tz: "America/Chicago",
    });
  });
  it("expresses an offset instant in UTC", () => {
    expect(parseTimestamp("2026-08-14T09:30:00-05:00", "utc")).toEqual({ value: "2026-08-14T14:30:00Z", tz: "UTC" });
  });
  it("refuses a naive timestamp and says to add the offset", () => {
    expect(() => parseTimestamp("2026-08-14T09:30:00", "UTC")).toThrowError(
      /timezone-naive.*resend as ISO 8601 with an offset/,
    );
    expect(isNaive("2026-11-30")).toBe(true);
    expect(isNaive("20261130T040000Z")).toBe(false);
  });
  it("refuses words, numbers and unknown zones with timezone_error", () => {
    expect(() => parseTimestamp("yesterday", "UTC")).toThrowError(/cannot read 'yesterday'/);
    expect(() => parseTimestamp(1723644600, "UTC")).toThrowError(/expected a timestamp, received a number/);
    expect(() => parseTimestamp("2026-08-14T14:30:00Z", "Mars/Olympus")).toThrowError(
      /unknown timezone 'Mars\/Olympus'/,
    );
  });
});

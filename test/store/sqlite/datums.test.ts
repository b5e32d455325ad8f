import { describe, expect, it } from "vitest";
import { addDatum, findDatum, listDatums, listOffsets, upsertOffset } from "../../../src/store/sqlite/datums.js";
import { ConflictError } from "../../../src/store/common/errors.js";
import { createTeam } from "../../../src/store/sqlite/teams.js";
import { createTestDb } from "../../helpers/db.js";

describe("team datums", () => {
  it("lists a team's datums by name and refuses a duplicate name with conflict", () => {
    const { db } = createTestDb();
    const t = createTeam(db, "alpha").id;
    addDatum(db, t, "LOCAL-B", "second");
    const a = addDatum(db, t, "LOCAL-A");
    expect(a).toMatchObject({ name: "LOCAL-A", kind: "vertical", description: "" });
    expect(listDatums(db, t).map((d) => d.name)).toEqual(["LOCAL-A", "LOCAL-B"]);
    expect(() => addDatum(db, t, "LOCAL-A")).toThrow(ConflictError);
    expect(findDatum(db, t, "LOCAL-B")?.description).toBe("second");
  });

  it("keeps each team's datums and offsets apart", () => {
    const { db } = createTestDb();
    const a = createTeam(db, "alpha").id;
    const b = createTeam(db, "beta").id;
    addDatum(db, a, "GAGE:01646500");
    upsertOffset(db, a, { from: "GAGE:01646500", to: "NAVD88", offsetM: 1, offsetValue: 1, offsetUnit: "m" });
    expect(listDatums(db, b)).toEqual([]);
    expect(listOffsets(db, b)).toEqual([]);
    expect(findDatum(db, b, "GAGE:01646500")).toBeNull();
    expect(() => addDatum(db, b, "GAGE:01646500")).not.toThrow();
  });
});

describe("station offsets", () => {
  it("replaces the offset of the same (from, to) pair and keeps the stated value and unit", () => {
    const { db } = createTestDb();
    const t = createTeam(db, "alpha").id;
    const first = upsertOffset(db, t, {
      from: "GAGE:X",
      to: "NAVD88",
      offsetM: 0.3048,
      offsetValue: 1,
      offsetUnit: "ft",
      source: "usgs",
    });
    const second = upsertOffset(db, t, {
      from: "GAGE:X",
      to: "NAVD88",
      offsetM: 0.6096,
      offsetValue: 2,
      offsetUnit: "ft",
    });
    expect(second.id).toBe(first.id);
    upsertOffset(db, t, { from: "GAUGE:Y", to: "ODN", offsetM: -1.25, offsetValue: -1.25, offsetUnit: "m" });
    expect(
      listOffsets(db, t).map(({ from, to, offsetM, offsetValue, offsetUnit, source }) => ({
        from,
        to,
        offsetM,
        offsetValue,
        offsetUnit,
        source,
      })),
    ).toEqual([
      { from: "GAGE:X", to: "NAVD88", offsetM: 0.6096, offsetValue: 2, offsetUnit: "ft", source: null },
      { from: "GAUGE:Y", to: "ODN", offsetM: -1.25, offsetValue: -1.25, offsetUnit: "m", source: null },
    ]);
  });
});

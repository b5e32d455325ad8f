// A team's own vertical datums and its station offsets. The 22 built-in datums live in code, not here.
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "./db.js";
import { ConflictError, isUniqueViolation } from "../common/errors.js";
import { newId } from "../common/ids.js";
import { datums, stationOffsets } from "./schema.js";
import type { DatumRow, OffsetInput, OffsetRow } from "../model.js";

const datumColumns = {
  id: datums.id,
  name: datums.name,
  kind: datums.kind,
  description: datums.description,
  createdAt: datums.createdAt,
};

const offsetColumns = {
  id: stationOffsets.id,
  from: stationOffsets.fromDatum,
  to: stationOffsets.toDatum,
  offsetM: stationOffsets.offsetM,
  offsetValue: stationOffsets.offsetValue,
  offsetUnit: stationOffsets.offsetUnit,
  source: stationOffsets.source,
  createdAt: stationOffsets.createdAt,
};

/** The datums this team registered, by name. */
export function listDatums(db: Db, teamId: string): DatumRow[] {
  return db.select(datumColumns).from(datums).where(eq(datums.teamId, teamId)).orderBy(asc(datums.name)).all();
}

/** The team's datum with this name, or null. */
export function findDatum(db: Db, teamId: string, name: string): DatumRow | null {
  return (
    db
      .select(datumColumns)
      .from(datums)
      .where(and(eq(datums.teamId, teamId), eq(datums.name, name)))
      .get() ?? null
  );
}

/** Registers a datum for a team; a name the team already registered is a ConflictError. */
export function addDatum(db: Db, teamId: string, name: string, description = ""): DatumRow {
  try {
    const [row] = db.insert(datums).values({ id: newId(), teamId, name, description }).returning(datumColumns).all();
    return row!;
  } catch (e) {
    if (isUniqueViolation(e)) throw new ConflictError(`datum "${name}" is already registered`, { cause: e });
    throw e;
  }
}

/** Registers the offset from one datum to another, replacing the team's previous one for that pair. */
export function upsertOffset(db: Db, teamId: string, o: OffsetInput): OffsetRow {
  const values = {
    offsetM: o.offsetM,
    offsetValue: o.offsetValue,
    offsetUnit: o.offsetUnit,
    source: o.source ?? null,
  };
  const [row] = db
    .insert(stationOffsets)
    .values({ id: newId(), teamId, fromDatum: o.from, toDatum: o.to, ...values })
    .onConflictDoUpdate({
      target: [stationOffsets.teamId, stationOffsets.fromDatum, stationOffsets.toDatum],
      set: values,
    })
    .returning(offsetColumns)
    .all();
  return row!;
}

/** The team's offsets, ordered by (from, to). */
export function listOffsets(db: Db, teamId: string): OffsetRow[] {
  return db
    .select(offsetColumns)
    .from(stationOffsets)
    .where(eq(stationOffsets.teamId, teamId))
    .orderBy(asc(stationOffsets.fromDatum), asc(stationOffsets.toDatum))
    .all();
}

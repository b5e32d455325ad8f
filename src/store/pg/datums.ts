// A team's datums and offsets on PostgreSQL; every write bumps the team's registry counter in its transaction.
import { ConflictError } from "../common/errors.js";
import { newId } from "../common/ids.js";
import type { DatumsRepo } from "../port.js";
import { bumpVersion, DATUM_SELECT, OFFSET_SELECT, type PgRegistryCache } from "./registry.js";
import { inTransaction, isPgUniqueViolation, lockKey, type Q, queryOn } from "./tx.js";
import type pg from "pg";
import type { DatumRow, OffsetInput, OffsetRow } from "../model.js";

const DATUM_COLUMNS = `id, name, kind, description, created_at AS "createdAt"`;
const OFFSET_COLUMNS = `id, from_datum AS "from", to_datum AS "to", offset_m AS "offsetM", offset_value AS "offsetValue",
  offset_unit AS "offsetUnit", source, created_at AS "createdAt"`;

async function insertDatum(q: Q, teamId: string, name: string, description: string): Promise<DatumRow> {
  try {
    const [row] = await q<DatumRow>(
      `INSERT INTO datums (id, team_id, name, description) VALUES ($1, $2, $3, $4) RETURNING ${DATUM_COLUMNS}`,
      [newId(), teamId, name, description],
    );
    return row!;
  } catch (e) {
    if (isPgUniqueViolation(e)) throw new ConflictError(`datum "${name}" is already registered`, { cause: e });
    throw e;
  }
}

async function upsertOffset(q: Q, teamId: string, o: OffsetInput): Promise<OffsetRow> {
  const [row] = await q<OffsetRow>(
    `INSERT INTO station_offsets (id, team_id, from_datum, to_datum, offset_m, offset_value, offset_unit, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (team_id, from_datum, to_datum) DO UPDATE SET offset_m = excluded.offset_m, offset_value = excluded.offset_value,
       offset_unit = excluded.offset_unit, source = excluded.source
     RETURNING ${OFFSET_COLUMNS}`,
    [newId(), teamId, o.from, o.to, o.offsetM, o.offsetValue, o.offsetUnit, o.source ?? null],
  );
  return row!;
}

/** The datum registry over the pool. */
export function pgDatums(pool: pg.Pool, registries: PgRegistryCache): DatumsRepo {
  const q = queryOn(pool);
  // Registry writes of one team take turns, so "is the name known" and the insert see the same registry.
  const write = <T>(teamId: string, fn: (tq: Q) => Promise<T>) =>
    inTransaction(pool, async (tq) => {
      await tq("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("registry", teamId)]);
      const value = await fn(tq);
      await bumpVersion(tq, teamId, "registry");
      return value;
    });
  return {
    registry: (teamId) => registries.current(q, teamId),
    list: (teamId) => q<DatumRow>(DATUM_SELECT, [teamId]),
    offsets: (teamId) => q<OffsetRow>(OFFSET_SELECT, [teamId]),
    add: (teamId, name, description = "") =>
      write(teamId, async (tq) => {
        if ((await registries.current(tq, teamId)).has(name))
          throw new ConflictError(`a datum named '${name}' is already registered`);
        return insertDatum(tq, teamId, name, description);
      }),
    addOffset: (teamId, offset) =>
      write(teamId, async (tq) => {
        const reg = await registries.current(tq, teamId);
        reg.get(offset.from);
        reg.get(offset.to);
        return upsertOffset(tq, teamId, offset);
      }),
    ensure: async (teamId, datums, offsets) => {
      await write(teamId, async (tq) => {
        const reg = await registries.current(tq, teamId);
        const added = datums.filter((d) => !reg.has(d.name));
        for (const d of added) await insertDatum(tq, teamId, d.name, d.description ?? "");
        const now = reg.with(added);
        for (const o of offsets) if (!now.canConvert(o.from, o.to)) await upsertOffset(tq, teamId, o);
      });
      return registries.current(q, teamId);
    },
  };
}

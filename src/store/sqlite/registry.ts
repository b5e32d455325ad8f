// A team's datum registry built from its rows, cached until this process or another one writes to the database.
import type { Database } from "better-sqlite3";
import { DatumRegistry } from "../../quantity/datums.js";
import { addDatum, listDatums, listOffsets, upsertOffset } from "./datums.js";
import type { Db } from "./db.js";
import type { DatumRow, OffsetInput, OffsetRow } from "../model.js";

/** Builds and caches each team's DatumRegistry (builtins + the team's datums and offsets). */
export class RegistryCache {
  private readonly byTeam = new Map<string, DatumRegistry>();
  private dataVersion = -1;
  private readonly versionStmt;

  constructor(
    private readonly db: Db,
    private readonly sqlite: Database,
  ) {
    this.versionStmt = sqlite.prepare("PRAGMA data_version");
  }

  /** The team's registry as stored now; `dataVersion`, when given, is the connection's, read in the same step. */
  forTeam(teamId: string, dataVersion?: number): DatumRegistry {
    // data_version changes when another connection commits; our own writes clear the cache directly.
    const v = dataVersion ?? (this.versionStmt.get() as { data_version: number }).data_version;
    if (v !== this.dataVersion) {
      this.byTeam.clear();
      this.dataVersion = v;
    }
    let reg = this.byTeam.get(teamId);
    if (!reg) {
      const offsets = listOffsets(this.db, teamId).map((o) => ({
        from: o.from,
        to: o.to,
        offsetM: o.offsetM,
        source: o.source,
      }));
      reg = new DatumRegistry(listDatums(this.db, teamId), offsets);
      this.byTeam.set(teamId, reg);
    }
    return reg;
  }

  /** Registers a datum for a team (409 when the name exists, builtins included). */
  addDatum(teamId: string, name: string, description = ""): DatumRow {
    const row = addDatum(this.db, teamId, name, description);
    this.byTeam.delete(teamId);
    return row;
  }

  /** Registers an offset (both names must be known); a later offset for the same pair replaces the earlier. */
  addOffset(teamId: string, o: OffsetInput): OffsetRow {
    const reg = this.forTeam(teamId);
    reg.get(o.from);
    reg.get(o.to);
    const row = upsertOffset(this.db, teamId, o);
    this.byTeam.delete(teamId);
    return row;
  }

  /** Registers datums and offsets that are not there yet (first registration wins), in one transaction. */
  ensure(
    teamId: string,
    datums: readonly { name: string; description?: string }[],
    offsets: readonly OffsetInput[],
  ): DatumRegistry {
    const reg = this.forTeam(teamId);
    this.sqlite
      .transaction(() => {
        for (const d of datums) if (!reg.has(d.name)) addDatum(this.db, teamId, d.name, d.description ?? "");
        this.byTeam.delete(teamId);
        const now = this.forTeam(teamId);
        for (const o of offsets) if (!now.canConvert(o.from, o.to)) upsertOffset(this.db, teamId, o);
      })
      .immediate();
    this.byTeam.delete(teamId);
    return this.forTeam(teamId);
  }
}

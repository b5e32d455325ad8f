// Each team's datum registry and compiled declarations, cached per process. Another instance's writes are seen through
// the team's `registry` counter in team_versions, which every datum or offset write bumps in its own transaction.
import type { ToolDeclaration, ToolDeclarationInput } from "../../guard/declaration.js";
import { DatumRegistry } from "../../quantity/datums.js";
import type { Q } from "./tx.js";
import type { DatumRow, OffsetRow, ToolRow } from "../model.js";
import { CompiledTools } from "../common/compiled-tools.js";

/** The columns of a datum row, aliased to DatumRow. */
export const DATUM_SELECT = `SELECT id, name, kind, description, created_at AS "createdAt" FROM datums WHERE team_id = $1 ORDER BY name`;
/** The columns of an offset row, aliased to OffsetRow. */
export const OFFSET_SELECT = `SELECT id, from_datum AS "from", to_datum AS "to", offset_m AS "offsetM", offset_value AS "offsetValue",
  offset_unit AS "offsetUnit", source, created_at AS "createdAt" FROM station_offsets WHERE team_id = $1 ORDER BY from_datum, to_datum`;

/** Bumps a team's counter of `kind` in the caller's transaction (the row lock orders concurrent writers). */
export async function bumpVersion(q: Q, teamId: string, kind: "registry" | "claims"): Promise<void> {
  await q(
    `INSERT INTO team_versions (team_id, kind, version) VALUES ($1, $2, 1)
     ON CONFLICT (team_id, kind) DO UPDATE SET version = team_versions.version + 1`,
    [teamId, kind],
  );
}

/** A team's counter of `kind` (0 before the first write). */
export async function readVersion(q: Q, teamId: string, kind: "registry" | "claims"): Promise<number> {
  const r = await q<{ version: number }>("SELECT version FROM team_versions WHERE team_id = $1 AND kind = $2", [
    teamId,
    kind,
  ]);
  return r[0]?.version ?? 0;
}

/** Registries by team, valid while the team's registry counter is unchanged. */
export class PgRegistryCache {
  private readonly byTeam = new Map<string, { version: number; registry: DatumRegistry }>();

  /** The team's registry at counter `version` (read first, so a concurrent write can only make the cache reload). */
  async at(q: Q, teamId: string, version: number): Promise<DatumRegistry> {
    const hit = this.byTeam.get(teamId);
    if (hit && hit.version === version) return hit.registry;
    const datums = await q<DatumRow>(DATUM_SELECT, [teamId]);
    const offsets = await q<OffsetRow>(OFFSET_SELECT, [teamId]);
    const registry = new DatumRegistry(
      datums,
      offsets.map((o) => ({ from: o.from, to: o.to, offsetM: o.offsetM, source: o.source })),
    );
    if (this.byTeam.size > 10_000) this.byTeam.clear();
    this.byTeam.set(teamId, { version, registry });
    return registry;
  }

  /** The registry last read for the team and its counter, without asking the database. */
  remembered(teamId: string): { version: number; registry: DatumRegistry } | undefined {
    return this.byTeam.get(teamId);
  }

  /** The team's registry as stored now. */
  async current(q: Q, teamId: string): Promise<DatumRegistry> {
    return this.at(q, teamId, await readVersion(q, teamId, "registry"));
  }
}

type RawTool = { name: string; version: number; declaration: string; created_at: string };

/** A tool row in its store form. */
export const toToolRow = (r: RawTool): ToolRow => ({
  name: r.name,
  version: r.version,
  declaration: JSON.parse(r.declaration) as ToolDeclarationInput,
  createdAt: r.created_at,
});

/** The columns of a tool row. */
export const TOOL_COLUMNS = "name, version, declaration, created_at";

/** Compiled declarations by (team, name, version): a stored version never changes. */
export class PgToolCache extends CompiledTools {
  private readonly latestByName = new Map<string, number | null>();

  /** The latest version of a tool last seen under a session lock (null: none declared), or undefined when not seen. */
  latest(teamId: string, name: string): number | null | undefined {
    return this.latestByName.get(`${teamId}\u0000${name}`);
  }

  /** Notes the latest version of a tool as read under a session lock. */
  sawLatest(teamId: string, name: string, version: number | null): void {
    if (this.latestByName.size > 20_000) this.latestByName.clear();
    this.latestByName.set(`${teamId}\u0000${name}`, version);
  }

  /** The compiled declaration of version `version` of a tool, or null when it is not stored. */
  async compiled(
    q: Q,
    teamId: string,
    name: string,
    version: number | null,
    datums: DatumRegistry,
  ): Promise<ToolDeclaration | null> {
    if (version === null) return null;
    const hit = this.remembered(teamId, name, version);
    if (hit) return hit;
    const rows = await q<RawTool>(
      `SELECT ${TOOL_COLUMNS} FROM tools WHERE team_id = $1 AND name = $2 AND version = $3`,
      [teamId, name, version],
    );
    return rows[0] ? this.compiledOf(teamId, toToolRow(rows[0]), datums) : null;
  }
}

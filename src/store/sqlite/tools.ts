// Tool declarations, versioned per team: a changed declaration is a new version, an identical one is not.
import type { Database } from "better-sqlite3";
import type { DatumRegistry } from "../../quantity/datums.js";
import { compileTool, type ToolDeclaration, type ToolDeclarationInput } from "../../guard/declaration.js";
import { newId } from "../common/ids.js";
import type { ToolRow } from "../model.js";
import { canonicalJson } from "../common/canonical-json.js";
import { CompiledTools } from "../common/compiled-tools.js";
import { sqliteChain } from "./chain.js";

type Raw = { name: string; version: number; declaration: string; created_at: string };
const toRow = (r: Raw): ToolRow => ({
  name: r.name,
  version: r.version,
  declaration: JSON.parse(r.declaration) as ToolDeclarationInput,
  createdAt: r.created_at,
});

/** Repository of tool declarations on the raw handle (prepared statements: this is on every call's path). */
export class ToolStore {
  private readonly latestStmt;
  private readonly versionStmt;
  private readonly insertStmt;
  private readonly listStmt;
  private readonly latestVersionStmt;
  private readonly cache = new CompiledTools();

  constructor(private readonly sqlite: Database) {
    this.latestStmt = sqlite.prepare<[string, string], Raw>(
      "SELECT name, version, declaration, created_at FROM tools WHERE team_id = ? AND name = ? ORDER BY version DESC LIMIT 1",
    );
    this.versionStmt = sqlite.prepare<[string, string, number], Raw>(
      "SELECT name, version, declaration, created_at FROM tools WHERE team_id = ? AND name = ? AND version = ?",
    );
    this.latestVersionStmt = sqlite.prepare<[string, string], { version: number }>(
      "SELECT version FROM tools WHERE team_id = ? AND name = ? ORDER BY version DESC LIMIT 1",
    );
    this.insertStmt = sqlite.prepare(
      "INSERT INTO tools (id, team_id, name, version, declaration) VALUES (?, ?, ?, ?, ?)",
    );
    this.listStmt = sqlite.prepare<[string, string], Raw>(
      `SELECT t.name, t.version, t.declaration, t.created_at FROM tools t
       WHERE t.team_id = ? AND t.name > ? AND t.version = (SELECT max(version) FROM tools u WHERE u.team_id = t.team_id AND u.name = t.name)
       ORDER BY t.name LIMIT 501`,
    );
  }

  /** Declares a tool: validates against the team's registry, stores a new version only when the declaration changed. */
  put(
    teamId: string,
    name: string,
    input: ToolDeclarationInput,
    datums: DatumRegistry,
  ): { row: ToolRow; created: boolean } {
    compileTool(name, input, { datums });
    const json = canonicalJson(input);
    return this.sqlite
      .transaction(() => {
        const latest = this.latestStmt.get(teamId, name);
        if (latest && canonicalJson(JSON.parse(latest.declaration)) === json)
          return { row: toRow(latest), created: false };
        const version = (latest?.version ?? 0) + 1;
        // Stored as sent: parameter order is the tool's signature order; only the comparison is canonical.
        const id = newId();
        this.insertStmt.run(id, teamId, name, version, JSON.stringify(input));
        sqliteChain(this.sqlite).append(teamId, "tools", [id]);
        return { row: toRow(this.versionStmt.get(teamId, name, version)!), created: true };
      })
      .immediate();
  }

  /** The number of a tool's latest version, or undefined for an undeclared tool (one indexed look-up). */
  latestVersion(teamId: string, name: string): number | undefined {
    return this.latestVersionStmt.get(teamId, name)?.version;
  }

  /** The latest version of a tool, or null. */
  latest(teamId: string, name: string): ToolRow | null {
    const r = this.latestStmt.get(teamId, name);
    return r ? toRow(r) : null;
  }

  /** One version of a tool, or null. */
  version(teamId: string, name: string, version: number): ToolRow | null {
    const r = this.versionStmt.get(teamId, name, version);
    return r ? toRow(r) : null;
  }

  /** The latest version of every tool, by name, after `after`. */
  list(teamId: string, after = ""): ToolRow[] {
    return this.listStmt.all(teamId, after).map(toRow);
  }

  /** The compiled declaration of the latest (or a given) version, or null; on the hot path only the version is read. */
  compiled(
    teamId: string,
    name: string,
    version: number | null | undefined,
    datums: DatumRegistry,
  ): ToolDeclaration | null {
    const v = version ?? this.latestVersionStmt.get(teamId, name)?.version;
    if (v === undefined) return null;
    const hit = this.cache.remembered(teamId, name, v);
    if (hit) return hit;
    const row = this.version(teamId, name, v);
    return row ? this.compiledOf(teamId, row, datums) : null;
  }

  /** The compiled declaration of a stored version, cached: versions never change once written. */
  compiledOf(teamId: string, row: ToolRow, datums: DatumRegistry): ToolDeclaration {
    return this.cache.compiledOf(teamId, row, datums);
  }
}

// Compiled tool declarations by (team, name, version), kept in memory by either engine: a stored version never changes.
import { compileTool, type ToolDeclaration } from "../../guard/declaration.js";
import type { DatumRegistry } from "../../quantity/datums.js";
import type { ToolRow } from "../model.js";

/** Compiled declarations by (team, name, version), cleared past 5,000 so a long-lived process stays bounded. */
export class CompiledTools {
  private readonly byVersion = new Map<string, ToolDeclaration>();

  /** The compiled declaration of a stored version already in memory, or undefined. */
  remembered(teamId: string, name: string, version: number): ToolDeclaration | undefined {
    return this.byVersion.get(`${teamId}\u0000${name}\u0000${version}`);
  }

  /** The compiled form of a stored row, compiled once. */
  compiledOf(teamId: string, row: ToolRow, datums: DatumRegistry): ToolDeclaration {
    const key = `${teamId}\u0000${row.name}\u0000${row.version}`;
    let c = this.byVersion.get(key);
    if (!c) {
      c = compileTool(row.name, row.declaration, { datums }, row.version);
      if (this.byVersion.size > 5000) this.byVersion.clear();
      this.byVersion.set(key, c);
    }
    return c;
  }
}

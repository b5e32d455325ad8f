// Tool declarations on PostgreSQL: versioned by content per team, one writer per (team, tool) at a time.
import { compileTool } from "../../guard/declaration.js";
import type { ToolsRepo } from "../port.js";
import { newId } from "../common/ids.js";
import { type PgRegistryCache, type PgToolCache, TOOL_COLUMNS, toToolRow } from "./registry.js";
import { inTransaction, lockKey, queryOn } from "./tx.js";
import type pg from "pg";
import { pgAppend } from "./chain-append.js";
import { canonicalJson } from "../common/canonical-json.js";

type RawTool = { name: string; version: number; declaration: string; created_at: string };

/** The ToolsRepo of a PgStore. */
export type PgToolsRepo = ToolsRepo;

/** Tool declarations over the pool. */
export function pgTools(pool: pg.Pool, registries: PgRegistryCache, tools: PgToolCache): PgToolsRepo {
  const q = queryOn(pool);
  const latest = `SELECT ${TOOL_COLUMNS} FROM tools WHERE team_id = $1 AND name = $2 ORDER BY version DESC LIMIT 1`;
  return {
    put: async (teamId, name, input) => {
      const datums = await registries.current(q, teamId);
      compileTool(name, input, { datums });
      const json = canonicalJson(input);
      const { row, created } = await inTransaction(pool, async (tq) => {
        // Two instances declaring the same tool at once must not both take version n + 1.
        await tq("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("tool", teamId, name)]);
        const [last] = await tq<RawTool>(latest, [teamId, name]);
        if (last && canonicalJson(JSON.parse(last.declaration)) === json)
          return { row: toToolRow(last), created: false };
        const version = (last?.version ?? 0) + 1;
        // Stored as sent: parameter order is the tool's signature order; only the comparison is canonical.
        const toolId = newId();
        const [inserted] = await tq<RawTool>(
          `INSERT INTO tools (id, team_id, name, version, declaration) VALUES ($1, $2, $3, $4, $5) RETURNING ${TOOL_COLUMNS}`,
          [toolId, teamId, name, version, JSON.stringify(input)],
        );
        await pgAppend(tq, teamId, [["tools", toolId]]);
        return { row: toToolRow(inserted!), created: true };
      });
      return { row, declaration: tools.compiledOf(teamId, row, datums), created };
    },
    get: async (teamId, name, version) => {
      const rows =
        version === undefined
          ? await q<RawTool>(latest, [teamId, name])
          : await q<RawTool>(`SELECT ${TOOL_COLUMNS} FROM tools WHERE team_id = $1 AND name = $2 AND version = $3`, [
              teamId,
              name,
              version,
            ]);
      if (!rows[0]) return null;
      const row = toToolRow(rows[0]);
      return { row, declaration: tools.compiledOf(teamId, row, await registries.current(q, teamId)) };
    },
    list: async (teamId, { after, limit }) => {
      const rows = await q<RawTool>(
        `SELECT DISTINCT ON (name) ${TOOL_COLUMNS} FROM tools WHERE team_id = $1 AND name > $2
         ORDER BY name, version DESC LIMIT $3`,
        [teamId, after ?? "", Math.min(limit, 501)],
      );
      const datums = await registries.current(q, teamId);
      return rows.map((r) => {
        const row = toToolRow(r);
        return { row, declaration: tools.compiledOf(teamId, row, datums) };
      });
    },
  };
}

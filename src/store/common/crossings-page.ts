// The dashboard's crossings list, newest first, by violation code and tool. One statement per combination of filters,
// each walking an index that is already in id order (crossings_team_code_idx, crossings_team_tool_idx,
// crossings_team_code_tool_idx for both, or the primary key when neither filter is set), so a page reads its own rows
// and no more however long the history. A single statement with "(? IS NULL OR ...)" terms cannot: the planner picks
// one index for every case and sorts the team.

/** What the list is filtered by; `before` is the last id of the previous page. */
export type CrossingsPageFilter = { code?: string; tool?: string; limit: number; before?: number | null };

/** The SQL dialects the list is written in. */
export type Dialect = "sqlite" | "pg";

// SQLite would answer the unfiltered list from crossings_team_tool_idx and sort every crossing of the team; reading the
// table down from `before` stops after one page of the team's rows.
const FROM: Record<Dialect, string> = { sqlite: "crossings NOT INDEXED", pg: "crossings" };

/** The statement and its arguments for one page of the list. */
export function crossingsPageQuery(dialect: Dialect, teamId: string, f: CrossingsPageFilter) {
  const terms: [string, unknown][] = [["team_id", teamId]];
  if (f.code !== undefined) terms.push(["violation", f.code]);
  if (f.tool !== undefined) terms.push(["tool", f.tool]);
  const from = f.code === undefined && f.tool === undefined ? FROM[dialect] : "crossings";
  const args = [...terms.map(([, v]) => v), f.before ?? Number.MAX_SAFE_INTEGER, f.limit + 1];
  const mark = dialect === "pg" ? (i: number) => `$${i + 1}` : () => "?";
  const where = terms.map(([column], i) => `${column} = ${mark(i)}`).join(" AND ");
  const n = terms.length;
  return {
    sql: `SELECT * FROM ${from} WHERE ${where} AND id < ${mark(n)} ORDER BY id DESC LIMIT ${mark(n + 1)}`,
    args,
  };
}

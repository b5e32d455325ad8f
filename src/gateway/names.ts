// Names of a gateway: which upstream names are allowed, and how an upstream's tools and prompts are advertised
// (`<upstream>__<tool>`) and declared in the ledger (`<namespace>.<tool>`). Pure functions on strings.
// @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names

/** Between an upstream's name and its tool's or prompt's name in what the gateway advertises. */
export const SEPARATOR = "__";

/** MCP 2025-11-25 tool names: 1 to 128 of A-Z a-z 0-9 _ - . (case-sensitive). */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * An upstream's name: letters, digits, `-` and single `_` (never two in a row, never last), at most 64, starting with
 * a letter or digit. No `.` and no `__`, so that `<upstream>__<tool>` splits at its first `__` into exactly one upstream
 * and tool, and the name passes the function-name rules of model providers (`^[a-zA-Z0-9_-]{1,64}$`).
 */
export const UPSTREAM_NAME = /^(?=.{1,64}$)[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*(?<!_)$/;

/** Why an upstream name is refused, in words, or null when it is a valid one. */
export function upstreamNameProblem(name: string): string | null {
  if (UPSTREAM_NAME.test(name)) return null;
  return (
    `upstream names take letters, digits, - and single _ (not two in a row, not last), at most 64, starting with a letter` +
    ` or digit, so that "${name}${SEPARATOR}<tool>" is a valid MCP tool name; received '${name}'`
  );
}

/** The name an upstream's tool (or prompt) is advertised under, or null when it would break the MCP name rules. */
export function advertisedName(upstream: string, tool: string): string | null {
  const name = `${upstream}${SEPARATOR}${tool}`;
  return MCP_TOOL_NAME.test(name) ? name : null;
}

/** The upstream and tool an advertised name stands for, or null when it has no separator. */
export function splitAdvertised(name: string): { upstream: string; tool: string } | null {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0 || at + SEPARATOR.length >= name.length) return null;
  return { upstream: name.slice(0, at), tool: name.slice(at + SEPARATOR.length) };
}

/** The name an upstream's tool is declared and recorded under in the ledger: `<namespace>.<tool>`, as `--namespace` does. */
export function ledgerName(namespace: string, tool: string): string {
  return `${namespace}.${tool}`;
}

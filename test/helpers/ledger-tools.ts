// The service's own MCP tools (`/mcp`), by name, in alphabetical order: what every client of it should list.

/** The seven ledger tools' names, sorted. */
export const LEDGER_TOOL_NAMES = [
  "audit_answer",
  "claim_status",
  "compute",
  "convert",
  "evaluate_result",
  "find_crossings",
  "find_sessions",
] as const;

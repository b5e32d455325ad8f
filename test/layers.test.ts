// The import rules of the whole of src/: which top-level folder (or root module) may import which, written once as a
// table and read from the import lines. The graph the table draws has no cycles, so every import points one way down.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { relativeImports, SRC, sourceFiles } from "./helpers/imports.js";

/** The modules at the root of src/ that every folder outside the pure core may take: small, and above nothing. */
const LEAVES = ["clock.ts", "config.ts", "ledger-http-error.ts", "limits.ts", "text.ts", "version.ts"] as const;

/**
 * Which top-level entries of src/ each one may import, besides itself; top to bottom, so an entry names only entries
 * further down. The core (quantity, guard, provenance, gates) is held tighter still by core-imports.test.ts.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // The command line: serves the API, runs the proxy and the harness, and reads the store directly.
  cli: [
    "api",
    "harness",
    "mcp",
    "packs",
    "chain",
    "query-params.ts",
    "store",
    "telemetry",
    "gateway",
    "gates",
    "provenance",
    ...LEAVES,
  ],
  // The HTTP service: its routes, the ledger's own MCP tools (api/mcp) and the dashboard it mounts.
  api: [
    "mcp",
    "ui",
    "packs",
    "chain",
    "query-params.ts",
    "store",
    "telemetry",
    "gateway",
    "gates",
    "provenance",
    "guard",
    "quantity",
    ...LEAVES,
  ],
  // The dashboard: pages over the store, mounted by the API.
  ui: ["packs", "query-params.ts", "store", "gateway", "gates", "guard", "quantity", ...LEAVES],
  // The MCP proxy and the MCP plumbing the API's /mcp shares (sessions over HTTP, tool results).
  mcp: ["store", "telemetry", "gateway", "guard", "quantity", ...LEAVES],
  // The evaluation harness: records into a store, or into a running service over HTTP.
  harness: ["store", "guard", "quantity", ...LEAVES],
  // The package's entry point (src/index.ts) and the in-process library it exports.
  "index.ts": ["library", "packs", "store", "guard", "quantity"],
  library: ["store", "guard", "quantity", ...LEAVES],
  // Retrieval packs; the OGC watch records revisions through the store's port.
  packs: ["store", "guard", "quantity", ...LEAVES],
  // The ledger chain's signing key, signed heads and self-contained proofs, over the store's chain.
  chain: ["store", "provenance"],
  // Request parsing shared by the API, the command line and the dashboard (times, labels, the 400 they answer).
  "query-params.ts": ["store"],
  // Storage, treated here as one area (its inner rules are the store's own tests).
  store: ["gateway", "gates", "provenance", "guard", "quantity", ...LEAVES],
  telemetry: ["guard", ...LEAVES],
  // The gateway's configuration, pins and views.
  gateway: ["provenance", "guard", ...LEAVES],
  // The pure core.
  gates: ["provenance", "guard", "quantity"],
  provenance: ["guard", "quantity"],
  guard: ["quantity"],
  quantity: [],
  // The root's leaves.
  "config.ts": ["limits.ts"],
  "clock.ts": [],
  "ledger-http-error.ts": [],
  "limits.ts": [],
  "text.ts": [],
  "version.ts": [],
};

/** Each import under a top-level entry of src/ that the table does not allow, as "file -> specifier". */
function strayImports(entry: string): string[] {
  const files = entry.endsWith(".ts") ? [`${SRC}/${entry}`] : sourceFiles(entry);
  const allowed = MAY_IMPORT[entry] ?? [];
  return files.flatMap((file) =>
    relativeImports(file)
      .filter((i) => i.target !== entry && !allowed.includes(i.target))
      .map((i) => i.where),
  );
}

/** A cycle in a table of edges, as the entries along it ("a -> b -> a"), or null when there is none. */
function cycleIn(table: Record<string, readonly string[]>): string | null {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string | null => {
    if (state.get(node) === "done") return null;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node].join(" -> ");
    state.set(node, "open");
    path.push(node);
    for (const next of table[node] ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of Object.keys(table)) {
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

describe("import direction across src/", () => {
  it("has a row for every top-level folder and module of src/, and names only entries that have one", () => {
    const entries = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory() || d.name.endsWith(".ts"))
      .map((d) => d.name);
    expect(Object.keys(MAY_IMPORT).sort()).toEqual(entries.sort());
    const named = new Set(Object.values(MAY_IMPORT).flat());
    expect([...named].filter((n) => !(n in MAY_IMPORT))).toEqual([]);
  });

  it("draws no cycle: following the table's edges never comes back to where it started", () => {
    expect(cycleIn(MAY_IMPORT)).toBeNull();
  });

  it("finds the cycle in a table that has one, and none in one that points one way", () => {
    expect(cycleIn({ api: ["mcp"], mcp: ["store", "api"], store: [] })).toBe("api -> mcp -> api");
    expect(cycleIn({ api: ["mcp", "store"], mcp: ["store"], store: [] })).toBeNull();
  });

  for (const [entry, allowed] of Object.entries(MAY_IMPORT)) {
    const folders = allowed.filter((a) => !(LEAVES as readonly string[]).includes(a));
    const leaves = folders.length < allowed.length ? " and the root's leaves" : "";
    it(`src/${entry} imports only ${folders.join(", ") || "itself"}${leaves}`, () => {
      expect(strayImports(entry)).toEqual([]);
    });
  }
});
